"""Versioned trial records: the events of one trial, its end and its check's verdict, as validated pydantic models.

One trial is one JSON line in a shard file. ``TrialRecord.model_validate_json`` is the loader's check.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from slmbench import SCHEMA_VERSION
from slmbench.vocab import AnswerChannel, FailureClass, Outcome, ParserMode, ScaffoldName


class CheckResult(BaseModel):
    """How the task's check judged the trial: pass/fail, partial credit, and each criterion."""

    model_config = ConfigDict(extra="forbid")
    passed: bool
    partial: float = Field(ge=0.0, le=1.0)
    criteria: list[dict[str, Any]] = []


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    t: float = Field(description="seconds since the trial started")


class ModelRequest(_Event):
    type: Literal["model_request"] = "model_request"
    turn: int
    prompt_sha256: str
    n_messages: int
    options: dict[str, Any]
    purpose: Literal["turn", "closing"] = "turn"


class ModelResponse(_Event):
    type: Literal["model_response"] = "model_response"
    turn: int
    raw_text: str
    native_tool_calls: list[dict[str, Any]] = []
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    finish_reason: str = ""
    logprobs: list[float] | None = None
    restored_tokens: int = Field(
        default=0,
        description="prompt tokens whose state a saved prefix restored instead of evaluating them (a timing, like"
        " latency_s: the arithmetic is the same either way)",
    )
    server_text: str | None = Field(
        default=None,
        description="the text the server generated, before its own parser took tool calls out of it (where a"
        " server that parses tool calls returns it: llama-server's `__verbose.content`); None otherwise",
    )


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    turn: int
    call_id: str
    name: str
    arguments: Any = Field(description="the arguments exactly as the model sent them")
    raw_span: str
    surface: str = Field(
        description="how the call was written: native, json, fenced_json, tool_call_tag, react..."
    )
    parser_mode: ParserMode
    repairs: list[str] = []
    repaired_arguments: dict[str, Any] | None = None


class RefusalEvent(_Event):
    type: Literal["refusal"] = "refusal"
    turn: int
    code: str
    reason: str
    name: str | None = None
    arguments: Any = None
    raw_span: str = ""
    repairs: list[str] = Field(
        default_factory=list
    )  # repairs that shaped the refusal (sibling_required_guard)


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    turn: int
    call_id: str
    name: str
    ok: bool
    content: Any = None
    error: str = ""


class StuckEvent(_Event):
    """An identical call repeated after it had returned a result: not run again (protocol stuck_detection)."""

    type: Literal["stuck"] = "stuck"
    turn: int
    call_id: str
    name: str
    first_call_id: str


class ToolStateEvent(_Event):
    """Every tool's end state (``snapshot()``), so checks can be judged again from the record alone."""

    type: Literal["tool_state"] = "tool_state"
    snapshot: dict[str, Any]


class FaultEvent(_Event):
    type: Literal["fault"] = "fault"
    turn: int
    call_id: str
    tool: str
    kind: str


class FinalAnswerEvent(_Event):
    type: Literal["final_answer"] = "final_answer"
    turn: int
    text: str
    channel: AnswerChannel = "text"


class EndEvent(_Event):
    type: Literal["end"] = "end"
    outcome: Outcome
    failure_class: FailureClass | None = None
    failure_class_clock_first: FailureClass | None = None
    stop_reason: str
    turns: int
    wall_s: float
    peak_rss_mb: float
    error: str = ""


Event = Annotated[
    ModelRequest
    | ModelResponse
    | ToolCallEvent
    | RefusalEvent
    | ToolResultEvent
    | FaultEvent
    | StuckEvent
    | ToolStateEvent
    | FinalAnswerEvent
    | EndEvent,
    Field(discriminator="type"),
]


class TrialRecord(BaseModel):
    """One trial: which model did which task how, every event, the check and the fingerprint."""

    model_config = ConfigDict(extra="forbid")
    schema_version: str = SCHEMA_VERSION
    trial_id: str
    study: str
    suite: str
    task_id: str
    group: str
    variant: str = "original"
    model: str
    temperature: float
    seed: int
    repeat: int
    scaffold: ScaffoldName
    parser_mode: ParserMode
    protocol: str = "legacy"
    started_at: str
    events: list[Event]
    check: CheckResult | None
    outcome: Outcome
    failure_class: FailureClass | None
    failure_class_clock_first: FailureClass | None
    fingerprint: dict[str, Any]
    provenance: dict[str, Any] = {}

    @model_validator(mode="after")
    def _ends_with_end(self) -> TrialRecord:
        if not self.events or not isinstance(self.events[-1], EndEvent):
            raise ValueError("events must end with an 'end' event")
        if self.events[-1].outcome != self.outcome:
            raise ValueError("the end event's outcome differs from the record's outcome")
        return self
