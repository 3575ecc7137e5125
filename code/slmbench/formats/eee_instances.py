"""One trial as one row of Every Eval Ever's instance-level schema: an agentic interaction with its messages.

The messages are the trial's Inspect conversation (``inspect_transcript``): the instruction, the model's replies
with their calls and the tool results. Following Every Eval Ever's own Inspect converter, each argument of a call is
written as its JSON text (the arguments exactly as sent, each value encoded once). The score is 1 for a pass and 0
otherwise; the check's partial credit, the failure classes, harm and the trial's identity go into the metadata.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from every_eval_ever.instance_level_types import (
    AnswerAttributionItem,
    Evaluation,
    Input,
    InstanceLevelEvaluationLog,
    InteractionType,
    Message,
    Performance,
    TokenUsage,
    ToolCall,
)
from every_eval_ever.schema import get_schema_version
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool

from slmbench.formats.inspect_out import judged
from slmbench.formats.inspect_transcript import transcript
from slmbench.formats.posed import posed, sample_id
from slmbench.records import schema as rec


def _message(index: int, message: ChatMessage) -> Message:
    calls = None
    if isinstance(message, ChatMessageAssistant) and message.tool_calls:
        calls = [
            ToolCall(
                id=c.id, name=c.function, arguments={str(k): json.dumps(v) for k, v in c.arguments.items()}
            )
            for c in message.tool_calls
        ]
    ids = [message.tool_call_id] if isinstance(message, ChatMessageTool) and message.tool_call_id else None
    return Message(
        turn_idx=index, role=message.role, content=message.text or None, tool_calls=calls, tool_call_id=ids
    )


def _attribution(record: rec.TrialRecord, messages: list[Message]) -> list[AnswerAttributionItem]:
    answer = next((e for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
    if answer is None:
        return []
    last = max((m.turn_idx for m in messages if m.role == "assistant"), default=0)
    return [
        AnswerAttributionItem(
            turn_idx=last,
            source=f"messages[{last}].content"
            if answer.channel == "text"
            else f"final answer ({answer.channel})",
            extracted_value=answer.text,
            extraction_method=f"slmbench harness: {answer.channel}",
            is_terminal=True,
        )
    ]


def instance_row(
    record: rec.TrialRecord,
    evaluation_id: str,
    model_id: str,
    evaluation_name: str,
    result_id: str,
    model: str,
) -> InstanceLevelEvaluationLog:
    """The trial as one instance-level row of the aggregate ``evaluation_id``'s result ``result_id``."""
    task = posed(record.task_id, record.variant)
    talk = transcript(record, model, task.instruction if task else None)
    messages = [_message(i, m) for i, m in enumerate(talk.messages)]
    end = record.events[-1]
    assert isinstance(end, rec.EndEvent)
    raw = task.instruction if task else ""
    reference = list(task.criteria) if task else []
    metadata: dict[str, Any] = {
        "trial_id": record.trial_id,
        "task_id": record.task_id,
        "variant": record.variant,
        "group": record.group,
        "repeat": record.repeat,
        "partial": record.check.partial if record.check else None,
        **judged(record),
    }
    latency = sum(e.latency_s for e in record.events if isinstance(e, rec.ModelResponse))
    return InstanceLevelEvaluationLog(
        schema_version=get_schema_version(),
        evaluation_id=evaluation_id,
        model_id=model_id,
        evaluation_name=evaluation_name,
        evaluation_result_id=result_id,
        sample_id=sample_id(record.task_id, record.variant),
        sample_hash=hashlib.sha256((raw + "".join(reference)).encode()).hexdigest(),
        interaction_type=InteractionType.agentic,
        input=Input(raw=raw, reference=reference),
        messages=messages,
        answer_attribution=_attribution(record, messages),
        evaluation=Evaluation(
            score=1.0 if record.outcome == "success" else 0.0,
            is_correct=record.outcome == "success",
            num_turns=end.turns or None,
            tool_calls_count=sum(isinstance(e, rec.ToolCallEvent) for e in record.events),
        ),
        token_usage=TokenUsage(
            input_tokens=talk.usage.input_tokens,
            output_tokens=talk.usage.output_tokens,
            total_tokens=talk.usage.total_tokens,
            input_tokens_cache_read=talk.usage.input_tokens_cache_read,
        ),
        performance=Performance(latency_ms=end.wall_s * 1000.0, generation_time_ms=latency * 1000.0),
        error=end.error or None if record.outcome == "infra_error" else None,
        metadata=metadata,
    )
