"""One Inspect sample's conversation as our events: requests and replies, calls, results, the answer, the end.

Each assistant message is a model request (the hash of the messages before it, their count, the generation
settings) and a model response (its text, its calls, and where the log has the model's event, its token counts,
latency and stop reason). Each call with Inspect's ``parse_error`` is a refusal, every other call a tool call with
its arguments as the log holds them; each tool message is a tool result. The sample's output is the final answer.
What a log does not hold (peak memory, the raw text a call was parsed from) is left empty.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool

from slmbench.records import schema as rec
from slmbench.vocab import Outcome

_FINISH = {"max_tokens": "length", "model_length": "length"}


def _start(sample: EvalSample) -> datetime | None:
    if sample.started_at:
        return datetime.fromisoformat(str(sample.started_at))
    stamps = [e.timestamp for e in sample.events]
    return min(stamps) if stamps else None


def _model_events(sample: EvalSample) -> dict[str, ModelEvent]:
    """The model event of each assistant message, by the message's id."""
    out: dict[str, ModelEvent] = {}
    for event in sample.events:
        if isinstance(event, ModelEvent) and event.output.message.id:
            out.setdefault(event.output.message.id, event)
    return out


def _prompt_sha256(messages: list[ChatMessage]) -> str:
    text = json.dumps([m.model_dump(mode="json", exclude={"id"}) for m in messages], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _content(message: ChatMessageTool) -> Any:
    """A tool result as JSON where its text is JSON, else the text."""
    try:
        return json.loads(message.text)
    except ValueError:
        return message.text


def sample_events(
    sample: EvalSample, options: dict[str, Any], outcome: Outcome, stop_reason: str, error: str
) -> list[rec.Event]:
    """The events of one sample, ending with its end (``outcome`` and ``stop_reason`` decided by the caller)."""
    start = _start(sample)
    by_id = _model_events(sample)
    events: list[rec.Event] = []
    t, turn = 0.0, 0
    for index, message in enumerate(sample.messages):
        if isinstance(message, ChatMessageAssistant):
            turn += 1
            model_event = by_id.get(message.id or "")
            if model_event is not None and start is not None:
                t = max(t, (model_event.timestamp - start).total_seconds())
            history = sample.messages[:index]
            events.append(
                rec.ModelRequest(
                    t=t,
                    turn=turn,
                    prompt_sha256=_prompt_sha256(history),
                    n_messages=len(history),
                    options=options,
                )
            )
            usage = model_event.output.usage if model_event is not None else None
            finish = str(model_event.output.stop_reason) if model_event is not None else ""
            calls = message.tool_calls or []
            events.append(
                rec.ModelResponse(
                    t=t,
                    turn=turn,
                    raw_text=message.text,
                    native_tool_calls=[
                        {"id": c.id, "name": c.function, "arguments": c.arguments} for c in calls
                    ],
                    prompt_tokens=usage.input_tokens if usage else 0,
                    completion_tokens=usage.output_tokens if usage else 0,
                    cached_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
                    latency_s=(model_event.working_time or 0.0) if model_event is not None else 0.0,
                    finish_reason=_FINISH.get(finish, finish),
                )
            )
            for call in calls:
                if call.parse_error is not None:
                    events.append(
                        rec.RefusalEvent(
                            t=t,
                            turn=turn,
                            code="parse_error",
                            reason=call.parse_error,
                            name=call.function or None,
                            arguments=call.arguments,
                        )
                    )
                else:
                    events.append(
                        rec.ToolCallEvent(
                            t=t,
                            turn=turn,
                            call_id=call.id,
                            name=call.function,
                            arguments=call.arguments,
                            raw_span="",
                            surface="native",
                            parser_mode="strict",
                        )
                    )
        elif isinstance(message, ChatMessageTool):
            events.append(
                rec.ToolResultEvent(
                    t=t,
                    turn=turn,
                    call_id=message.tool_call_id or "",
                    name=message.function or "",
                    ok=message.error is None,
                    content=_content(message) if message.error is None else None,
                    error=message.error.message if message.error is not None else "",
                )
            )
    if sample.output.choices and outcome != "infra_error":
        events.append(rec.FinalAnswerEvent(t=t, turn=turn, text=sample.output.completion, channel="text"))
    wall = float(sample.total_time or t)
    events.append(
        rec.EndEvent(
            t=max(t, wall),
            outcome=outcome,
            stop_reason=stop_reason,
            turns=turn,
            wall_s=wall,
            peak_rss_mb=0.0,
            error=error,
        )
    )
    return events
