"""The agent loop shared by the scaffolds: ask the model, parse, run tools, observe, until a final answer.

Every step appends an event to the trial's ledger: model request and response, each call as parsed (arguments
exactly as sent, the raw span, its surface form), each refusal, each injected fault, each tool result, the final
answer. The loop itself never judges the trial: ``run_trial`` returns the events and what the checks need.
What depends on the scaffold (prompt, native tools, call shape, history) the loop asks the scaffold object.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slmbench.backends.base import Backend, BackendError, ContextOverflow, GenerationOptions, Message
from slmbench.harness import protocol as proto
from slmbench.harness.calls import AcceptedCall, ParseOutcome
from slmbench.harness.parser import parse_output
from slmbench.harness.scaffolds import get_scaffold
from slmbench.harness.schema_check import validator_for
from slmbench.records import schema as rec
from slmbench.tasks.variants import TrialSpec
from slmbench.tools.base import Tool, ToolContext, ToolResult, function_schema
from slmbench.tools.faults import FaultInjector
from slmbench.tools.registry import build_tools
from slmbench.vocab import ParserMode, ScaffoldName

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoopSettings:
    """How a trial is run: scaffold, parser mode, protocol conditions, limits and sampling."""

    scaffold: ScaffoldName = "native"
    parser_mode: ParserMode = "repaired"
    max_turns: int = 6
    budget_s: float = 300.0
    max_tokens: int = 384
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    logprobs: bool = False
    protocol: proto.ProtocolConditions = proto.LEGACY


@dataclass
class TrialRun:
    """What one run of the loop produced."""

    events: list[Any] = field(default_factory=list)
    stop_reason: str = ""
    turns: int = 0
    wall_s: float = 0.0
    infra_error: str = ""
    recognised_calls: int = 0
    delivered_results: int = 0
    kv_reset: bool | None = None


def prompt_sha256(messages: list[Message], tools: list[dict[str, Any]] | None) -> str:
    """Hash of exactly what was sent (messages and tool schemas)."""
    payload = json.dumps({"messages": messages, "tools": tools}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class _Trial:
    """State of one running trial (kept private: ``run_trial`` is the entry point)."""

    def __init__(self, backend: Backend, spec: TrialSpec, settings: LoopSettings, workdir: Path) -> None:
        self.backend, self.spec, self.settings = backend, spec, settings
        self.conditions = settings.protocol
        self.tools: dict[str, Tool] = build_tools(
            list(spec.task.tools),
            ToolContext(workdir=workdir, state=spec.task.initial_state, seed=settings.seed),
        )
        self.schemas = {name: tool.parameters for name, tool in self.tools.items()}
        self.functions = [function_schema(tool) for tool in self.tools.values()]
        self.scaffold = get_scaffold(settings.scaffold)
        self.own_answer_line = self.conditions.answer_line and bool(self.scaffold.answer_line)
        if self.conditions.answer_channel and not self.own_answer_line:
            answer_tool = proto.final_answer_schema()
            self.functions.append(answer_tool)
            self.schemas[proto.FINAL_ANSWER_TOOL] = answer_tool["function"]["parameters"]
        self.native = self.scaffold.sends_native_tools and backend.supports_native_tools
        self.faults = FaultInjector(spec.faults)
        self.run = TrialRun()
        self.executed: dict[str, tuple[str, ToolResult]] = {}  # call key -> (call id, delivered result)
        self.started = time.monotonic()
        self.call_seq = 0

    def now(self) -> float:
        return round(time.monotonic() - self.started, 4)

    def execute(self, turn: int, call_id: str, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one accepted call, with fault injection; records fault and result events."""
        tool = self.tools[name]
        validator_for(tool.parameters).validate(arguments)  # the parser validated; this guards the guard
        kind = self.faults.fault_for(name)
        if kind is not None:
            self.run.events.append(
                rec.FaultEvent(t=self.now(), turn=turn, call_id=call_id, tool=name, kind=kind)
            )
            result = FaultInjector.apply(kind, lambda: tool.call(arguments))
        else:
            result = tool.call(arguments)
        if result.ok:  # only schema drift, among the faults, still delivers a result
            self.run.delivered_results += 1
            self.executed.setdefault(proto.call_key(name, arguments), (call_id, result))
        self.run.events.append(
            rec.ToolResultEvent(
                t=self.now(),
                turn=turn,
                call_id=call_id,
                name=name,
                ok=result.ok,
                content=result.content,
                error=result.error,
            )
        )
        return result

    def ask(self, turn: int, messages: list[Message], purpose: str = "turn") -> tuple[ParseOutcome, str]:
        """One model call: request and response events, then the parse of the reply and its raw text."""
        s = self.settings
        tools_arg = self.functions if self.native else None
        options = GenerationOptions(
            temperature=s.temperature,
            top_p=s.top_p,
            seed=s.seed,
            max_tokens=s.max_tokens,
            logprobs=s.logprobs,
            stop=self.scaffold.stop if self.conditions.stop_strings else (),
        )
        self.run.events.append(
            rec.ModelRequest(
                t=self.now(),
                turn=turn,
                prompt_sha256=prompt_sha256(messages, tools_arg),
                n_messages=len(messages),
                options={**options.__dict__, "stop": list(options.stop)},
                purpose=purpose,  # type: ignore[arg-type]
            )
        )
        reply = self.backend.chat(messages, tools_arg, options)
        self.run.events.append(
            rec.ModelResponse(
                t=self.now(),
                turn=turn,
                raw_text=reply.text,
                native_tool_calls=reply.native_tool_calls,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                cached_tokens=reply.cached_tokens,
                restored_tokens=reply.restored_tokens,
                latency_s=round(reply.latency_s, 4),
                finish_reason=reply.finish_reason,
                logprobs=reply.logprobs,
                server_text=reply.server_text,
            )
        )
        parsed = parse_output(reply.text, reply.native_tool_calls, self.schemas, s.parser_mode, self.scaffold)
        if self.conditions.answer_channel and parsed.refusals:
            parsed = self._resolve_action_names(parsed)
        return parsed, reply.text

    def _resolve_action_names(self, parsed: ParseOutcome) -> ParseOutcome:
        """Answer channel: an action name used as a tool name becomes a call of its tool (named repair)."""
        accepted, refusals = list(parsed.accepted), []
        for refusal in parsed.refusals:
            resolved = proto.action_as_tool(refusal, self.schemas)
            if resolved is None:
                refusals.append(refusal)
            else:
                accepted.append(resolved)
        return ParseOutcome(accepted, refusals, parsed.final_answer, parsed.thought)

    def answer(self, turn: int, text: str, channel: str) -> str:
        self.run.events.append(
            rec.FinalAnswerEvent(t=self.now(), turn=turn, text=text, channel=channel)  # type: ignore[arg-type]
        )
        return text

    @staticmethod
    def tool_answer(parsed: ParseOutcome) -> str | None:
        """The answer given through the ``final_answer`` tool in this reply, if any."""
        call = next((a for a in parsed.accepted if a.call.name == proto.FINAL_ANSWER_TOOL), None)
        return None if call is None else proto.answer_text(call.arguments.get("answer", ""))

    def given_answer(self, parsed: ParseOutcome, text: str) -> tuple[str, str] | None:
        """The answer a reply gives and its channel: the answer tool, an answer inside a re-emitted call (answer
        channel), or plain text (a reply with no call at all)."""
        tool = self.tool_answer(parsed)
        if tool is not None:
            return tool, "final_answer_tool"
        if self.conditions.answer_channel:
            embedded = proto.answer_in_call(text, self.executed)
            if embedded is not None:
                return embedded, "answer_in_call"
        if not parsed.accepted and not parsed.refusals:
            return parsed.final_answer or "", "text"
        return None

    def step(self, turn: int, messages: list[Message]) -> str | None:
        """One model turn; returns the final answer when the model gave one, else None."""
        parsed, text = self.ask(turn, messages)
        calls = [a for a in parsed.accepted if a.call.name != proto.FINAL_ANSWER_TOOL]
        if not calls:
            given = self.given_answer(parsed, text)
            if given is not None:
                return self.answer(turn, *given)
        elif self.conditions.answer_channel:
            embedded = proto.answer_in_call(text, self.executed)
            if embedded is not None:
                return self.answer(turn, embedded, "answer_in_call")
        observed: list[tuple[str | None, str]] = []  # (tool name, observation) in order
        ran: list[tuple[str, AcceptedCall]] = []
        for accepted in calls:
            call = accepted.call
            self.run.recognised_calls += 1
            self.call_seq += 1
            call_id = f"c{self.call_seq}"
            self.run.events.append(
                rec.ToolCallEvent(
                    t=self.now(),
                    turn=turn,
                    call_id=call_id,
                    name=call.name,
                    arguments=call.arguments,
                    raw_span=call.raw_span,
                    surface=call.surface,
                    parser_mode=self.settings.parser_mode,
                    repairs=list(accepted.repairs),
                    repaired_arguments=accepted.arguments if accepted.repairs else None,
                )
            )
            ran.append((call_id, accepted))
            earlier = self.executed.get(proto.call_key(call.name, accepted.arguments))
            if self.conditions.stuck_detection and earlier is not None:
                self.run.events.append(
                    rec.StuckEvent(
                        t=self.now(), turn=turn, call_id=call_id, name=call.name, first_call_id=earlier[0]
                    )
                )
                result_text = earlier[1].as_observation()
                observed.append(
                    (call.name, proto.STUCK_OBSERVATION.format(name=call.name, result=result_text))
                )
                continue
            observed.append(
                (call.name, self.execute(turn, call_id, call.name, accepted.arguments).as_observation())
            )
        for refusal in parsed.refusals:
            if refusal.name is not None:
                self.run.recognised_calls += 1
            self.run.events.append(
                rec.RefusalEvent(
                    t=self.now(),
                    turn=turn,
                    code=refusal.code,
                    reason=refusal.reason,
                    name=refusal.name,
                    arguments=refusal.arguments,
                    raw_span=refusal.raw_span,
                    repairs=list(refusal.repairs),
                )
            )
            observed.append(
                (refusal.name, f"Your tool call was not accepted ({refusal.code}): {refusal.reason}")
            )
        self.extend_history(messages, text, ran, observed)
        tool = self.tool_answer(parsed)  # calls first, then an answer given in the same reply
        return None if tool is None else self.answer(turn, tool, "final_answer_tool")

    def extend_history(
        self,
        messages: list[Message],
        text: str,
        ran: list[tuple[str, AcceptedCall]],
        observed: list[tuple[str | None, str]],
    ) -> None:
        """Append the assistant turn and the observations, as the scaffold renders them under the conditions."""
        calls = [(call_id, a.call.name, a.arguments) for call_id, a in ran]
        canonical = self.conditions.canonical_history
        messages.extend(self.scaffold.history(text, calls, observed, self.native, canonical))

    def closing(self, turn: int, messages: list[Message]) -> str | None:
        """Closing turn: ask once more for the answer in plain text; calls in the reply are not run."""
        prompt = self.scaffold.closing_line_prompt if self.own_answer_line else proto.CLOSING_PROMPT
        messages.append({"role": "user", "content": prompt})
        parsed, text = self.ask(turn, messages, purpose="closing")
        given = self.given_answer(parsed, text)
        return None if given is None else self.answer(turn, given[0], "closing_turn")

    def loop(self) -> TrialRun:
        if self.conditions.clean_kv:
            self.run.kv_reset = self.backend.reset()
        messages = self.scaffold.initial_messages(self.spec.instruction, self.functions, self.native)
        final: str | None = None
        try:
            for turn in range(1, self.settings.max_turns + 1):
                if time.monotonic() - self.started > self.settings.budget_s:
                    self.run.stop_reason = "time_budget"
                    break
                self.run.turns = turn
                final = self.step(turn, messages)
                if final is not None:
                    self.run.stop_reason = "final_answer"
                    break
            else:
                self.run.stop_reason = "max_turns"
                budget_left = time.monotonic() - self.started <= self.settings.budget_s
                if self.conditions.closing_turn and budget_left:
                    self.run.turns += 1
                    final = self.closing(self.run.turns, messages)
                    if final is not None:
                        self.run.stop_reason = "closing_answer"
        except BackendError as exc:
            if isinstance(exc, ContextOverflow):
                self.run.stop_reason = "context_overflow"
            else:
                self.run.stop_reason = "infra_error"
                self.run.infra_error = f"backend: {exc}"
        except Exception as exc:  # a tool or sandbox crashed: the harness failed, not the model
            log.exception("trial %s: harness error", self.spec.task.id)
            self.run.stop_reason = "infra_error"
            self.run.infra_error = f"harness: {type(exc).__name__}: {exc}"
        self.run.wall_s = round(time.monotonic() - self.started, 4)
        snapshot = {name: tool.snapshot() for name, tool in self.tools.items()}
        self.run.events.append(rec.ToolStateEvent(t=self.now(), snapshot=_jsonable(snapshot)))
        return self.run


def _jsonable(value: Any) -> Any:
    """The value as it will read back from the JSON record (tuples become lists, odd types strings)."""
    return json.loads(json.dumps(value, default=str))


def run_trial(backend: Backend, spec: TrialSpec, settings: LoopSettings, workdir: Path) -> TrialRun:
    """Run one trial to its end and return its events (what its check reads is judged from them)."""
    return _Trial(backend, spec, settings, workdir).loop()
