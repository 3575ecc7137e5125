"""The agent loop shared by both scaffolds: ask the model, parse, run tools, observe, until a final answer.

Every step appends an event to the trial's ledger: model request and response, each call as parsed (arguments
exactly as sent, the raw span, its surface form), each refusal, each injected fault, each tool result, the final
answer. The loop itself never judges the trial: ``run_trial`` returns the events and what the checks need.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from slmbench.backends.base import Backend, BackendError, ContextOverflow, GenerationOptions, Message
from slmbench.harness import records as rec
from slmbench.harness.faults import FaultInjector
from slmbench.harness.parser import parse_output
from slmbench.harness.prompts import observation_message, system_prompt
from slmbench.tasks.checks import TrialView
from slmbench.tasks.variants import TrialSpec
from slmbench.tools.base import Tool, ToolContext, ToolResult, function_schema
from slmbench.tools.registry import build_tools

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoopSettings:
    """How a trial is run: scaffold, parser mode, limits and sampling."""

    scaffold: rec.Scaffold = "native"
    parser_mode: rec.ParserMode = "repaired"
    max_turns: int = 6
    budget_s: float = 300.0
    max_tokens: int = 384
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    logprobs: bool = False


@dataclass
class TrialRun:
    """What one run of the loop produced."""

    events: list[Any] = field(default_factory=list)
    view: TrialView | None = None
    stop_reason: str = ""
    turns: int = 0
    wall_s: float = 0.0
    infra_error: str = ""
    recognised_calls: int = 0
    delivered_results: int = 0


def prompt_sha256(messages: list[Message], tools: list[dict[str, Any]] | None) -> str:
    """Hash of exactly what was sent (messages and tool schemas)."""
    payload = json.dumps({"messages": messages, "tools": tools}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _initial_messages(
    spec: TrialSpec, functions: list[dict[str, Any]], native: bool, scaffold: str
) -> list[Message]:
    if native:
        return [{"role": "user", "content": spec.instruction}]
    return [
        {"role": "system", "content": system_prompt(functions, scaffold)},  # type: ignore[arg-type]
        {"role": "user", "content": spec.instruction},
    ]


class _Trial:
    """State of one running trial (kept private: ``run_trial`` is the entry point)."""

    def __init__(self, backend: Backend, spec: TrialSpec, settings: LoopSettings, workdir: Path) -> None:
        self.backend, self.spec, self.settings = backend, spec, settings
        self.tools: dict[str, Tool] = build_tools(
            list(spec.task.tools),
            ToolContext(workdir=workdir, state=spec.task.initial_state, seed=settings.seed),
        )
        self.schemas = {name: tool.parameters for name, tool in self.tools.items()}
        self.functions = [function_schema(tool) for tool in self.tools.values()]
        self.native = settings.scaffold == "native" and bool(getattr(backend, "supports_native_tools", False))
        self.faults = FaultInjector(spec.faults)
        self.run = TrialRun()
        self.calls: list[dict[str, Any]] = []
        self.started = time.monotonic()
        self.call_seq = 0

    def now(self) -> float:
        return round(time.monotonic() - self.started, 4)

    def execute(self, turn: int, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one accepted call, with fault injection; records fault and result events."""
        self.call_seq += 1
        call_id = f"c{self.call_seq}"
        tool = self.tools[name]
        jsonschema.validate(arguments, tool.parameters)  # the parser validated; this guards the guard
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
        self.calls.append({"name": name, "arguments": arguments, "ok": result.ok, "result": result.content})
        return result

    def step(self, turn: int, messages: list[Message]) -> str | None:
        """One model turn; returns the final answer when the model gave one, else None."""
        s = self.settings
        tools_arg = self.functions if self.native else None
        options = GenerationOptions(
            temperature=s.temperature,
            top_p=s.top_p,
            seed=s.seed,
            max_tokens=s.max_tokens,
            logprobs=s.logprobs,
        )
        self.run.events.append(
            rec.ModelRequest(
                t=self.now(),
                turn=turn,
                prompt_sha256=prompt_sha256(messages, tools_arg),
                n_messages=len(messages),
                options={**options.__dict__, "stop": list(options.stop)},
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
                latency_s=round(reply.latency_s, 4),
                finish_reason=reply.finish_reason,
                logprobs=reply.logprobs,
            )
        )
        parsed = parse_output(reply.text, reply.native_tool_calls, self.schemas, s.parser_mode, s.scaffold)
        if not parsed.accepted and not parsed.refusals:
            answer = parsed.final_answer or ""
            self.run.events.append(rec.FinalAnswerEvent(t=self.now(), turn=turn, text=answer))
            return answer
        messages.append({"role": "assistant", "content": reply.text})
        observations: list[str] = []
        for accepted in parsed.accepted:
            call = accepted.call
            self.run.recognised_calls += 1
            self.run.events.append(
                rec.ToolCallEvent(
                    t=self.now(),
                    turn=turn,
                    call_id=f"c{self.call_seq + 1}",
                    name=call.name,
                    arguments=call.arguments,
                    raw_span=call.raw_span,
                    surface=call.surface,
                    parser_mode=s.parser_mode,
                    repairs=list(accepted.repairs),
                    repaired_arguments=accepted.arguments if accepted.repairs else None,
                )
            )
            observations.append(self.execute(turn, call.name, accepted.arguments).as_observation())
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
            observations.append(f"Your tool call was not accepted ({refusal.code}): {refusal.reason}")
        messages.append(observation_message("\n".join(observations), s.scaffold, plain=not self.native))
        return None

    def loop(self) -> TrialRun:
        messages = _initial_messages(self.spec, self.functions, self.native, self.settings.scaffold)
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
        self.run.view = TrialView(
            final_answer=final,
            calls=self.calls,
            snapshot={name: tool.snapshot() for name, tool in self.tools.items()},
        )
        return self.run


def run_trial(backend: Backend, spec: TrialSpec, settings: LoopSettings, workdir: Path) -> TrialRun:
    """Run one trial to its end and return its events and the view the task's check needs."""
    return _Trial(backend, spec, settings, workdir).loop()
