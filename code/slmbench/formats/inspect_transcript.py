"""One trial's events as an Inspect conversation: the messages, the model's output and its token usage.

The record holds what the model wrote and what it was answered, not the rendered prompt (only its hash): the
conversation starts from the task's instruction as posed, then for each model reply an assistant message with
the model's raw text and its calls, each with the arguments exactly as the model sent them, then one tool message
per result. A call the harness refused is a call with Inspect's ``parse_error`` and a tool message with the reason
the model was shown; an identical call that stuck detection did not run again answers with the first call's id; an
injected fault is the tool message's error. The closing turn's request is the harness's own closing prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolCall, ToolCallError

from slmbench.harness.protocol import CLOSING_PROMPT
from slmbench.records import schema as rec

ErrorType = Literal["timeout", "limit", "unknown"]
FAULT_ERRORS: dict[str, ErrorType] = {"timeout": "timeout", "rate_limit": "limit", "error": "unknown"}
"""Inspect's error type of each injected fault whose result is an error (``schema_drift`` answers, drifted)."""
StopReason = Literal["stop", "max_tokens", "model_length", "tool_calls", "content_filter", "unknown"]
_FINISH: dict[str, StopReason] = {"stop": "stop", "length": "max_tokens", "tool_calls": "tool_calls"}


@dataclass
class Transcript:
    """A trial as Inspect shows it."""

    messages: list[ChatMessage]
    output: ModelOutput
    usage: ModelUsage
    calls: list[ToolCall] = field(default_factory=list)
    """Every call the model made (accepted and refused), in order."""


def _text(content: Any) -> str:
    """A tool result as the text of a tool message (JSON for anything but a string)."""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, sort_keys=True)


def _arguments(arguments: Any) -> dict[str, Any]:
    """Arguments as Inspect's call holds them: an object as sent; anything else under ``value``."""
    return arguments if isinstance(arguments, dict) else {"value": arguments}


def _by_turn(events: list[Any]) -> Iterator[tuple[int, list[Any]]]:
    """The events grouped by turn, in order (events without a turn stay with the turn before them)."""
    turn = 0
    group: list[Any] = []
    for event in events:
        number = getattr(event, "turn", turn)
        if number != turn and group:
            yield turn, group
            group = []
        turn = number
        group.append(event)
    if group:
        yield turn, group


def _turn_messages(model: str, events: list[Any]) -> tuple[list[ChatMessage], list[ToolCall]]:
    """The messages of one turn: the closing prompt where it asked, the reply with its calls, the results."""
    messages: list[ChatMessage] = []
    if any(isinstance(e, rec.ModelRequest) and e.purpose == "closing" for e in events):
        messages.append(ChatMessageUser(content=CLOSING_PROMPT, source="input"))
    reply = next((e for e in events if isinstance(e, rec.ModelResponse)), None)
    calls: list[ToolCall] = []
    answers: list[ChatMessage] = []
    faults = {e.call_id: e.kind for e in events if isinstance(e, rec.FaultEvent)}
    for index, event in enumerate(events):
        if isinstance(event, rec.ToolCallEvent):
            calls.append(
                ToolCall(id=event.call_id, function=event.name, arguments=_arguments(event.arguments))
            )
        elif isinstance(event, rec.RefusalEvent):
            call_id = f"refused-{event.turn}-{index}"
            reason = f"Your tool call was not accepted ({event.code}): {event.reason}"
            calls.append(
                ToolCall(
                    id=call_id,
                    function=event.name or "",
                    arguments=_arguments(event.arguments) if event.arguments is not None else {},
                    parse_error=reason,
                )
            )
            answers.append(
                ChatMessageTool(
                    content=reason,
                    tool_call_id=call_id,
                    function=event.name,
                    error=ToolCallError("parsing", reason),
                )
            )
        elif isinstance(event, rec.ToolResultEvent):
            kind = FAULT_ERRORS.get(faults.get(event.call_id, ""), "unknown")
            error = None if event.ok else ToolCallError(kind, event.error or _text(event.content))
            answers.append(
                ChatMessageTool(
                    content=_text(event.content) if event.ok else event.error or _text(event.content),
                    tool_call_id=event.call_id,
                    function=event.name,
                    error=error,
                )
            )
        elif isinstance(event, rec.StuckEvent):
            answers.append(
                ChatMessageTool(
                    content=f"identical to call {event.first_call_id}: not run again (stuck detection)",
                    tool_call_id=event.call_id,
                    function=event.name,
                )
            )
    if reply is not None:
        metadata = {"turn": reply.turn, "finish_reason": reply.finish_reason, "latency_s": reply.latency_s}
        if reply.server_text is not None:
            metadata["server_text"] = reply.server_text
        messages.append(
            ChatMessageAssistant(
                content=reply.raw_text,
                tool_calls=calls or None,
                model=model,
                source="generate",
                metadata=metadata,
            )
        )
    return messages + answers, calls


def transcript(record: rec.TrialRecord, model: str, instruction: str | None) -> Transcript:
    """The trial's conversation, output and usage as Inspect's types (``model``: Inspect's model name)."""
    messages: list[ChatMessage] = []
    if instruction is not None:
        messages.append(ChatMessageUser(content=instruction, source="input"))
    calls: list[ToolCall] = []
    for _, events in _by_turn(record.events):
        turn_messages, turn_calls = _turn_messages(model, events)
        messages += turn_messages
        calls += turn_calls
    responses = [e for e in record.events if isinstance(e, rec.ModelResponse)]
    prompt = sum(e.prompt_tokens for e in responses)
    completion = sum(e.completion_tokens for e in responses)
    cached = sum(e.cached_tokens for e in responses)
    usage = ModelUsage(
        input_tokens=prompt,
        output_tokens=completion,
        total_tokens=prompt + completion,
        input_tokens_cache_read=cached or None,
    )
    answer = next((e for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
    last = responses[-1] if responses else None
    message = ChatMessageAssistant(
        content=answer.text if answer is not None else (last.raw_text if last else ""),
        model=model,
        source="generate",
    )
    stop: StopReason = _FINISH.get(last.finish_reason, "unknown") if last else "unknown"
    output = ModelOutput(
        model=model, choices=[ChatCompletionChoice(message=message, stop_reason=stop)], usage=usage
    )
    return Transcript(messages=messages, output=output, usage=usage, calls=calls)
