"""Judging a trial from its record: check, outcome, failure class, harm and refusal, in one place.

The runner scores a finished trial with :func:`score`; ``tidy`` scores every committed record again with
:func:`rescore_record`, from the record and its task alone, so a corrected check re-scores the data without a model rerun
(as inspect_ai's ``inspect score`` re-scores a log). What a check needs is read from the events: the final
answer, the executed calls with their results, and the tools' end state (the ``tool_state`` event). Records
written before that event existed get their end state by replaying their executed calls on fresh tools; the
replay is accepted only if every result it produces equals the recorded one, else the record keeps the check
it was written with and is marked as not re-scored.

``CHECKS_VERSION`` names the judging code; each task's check has its own hash. Both go into every number's
provenance through the tidy table.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from slmbench.judging.checks import JudgedTask, TrialView, evaluate
from slmbench.judging.failures import CLOCK_FIRST_ORDER, FailureClass, TrialFacts, classify
from slmbench.judging.refusal import classify_refusal
from slmbench.records import schema as rec
from slmbench.tools.base import ToolContext
from slmbench.tools.faults import drift
from slmbench.tools.registry import build_tools

CHECKS_VERSION = "3"
"""Version of the judging rules (checks, task-level rules, failure classes); bump on any change of meaning."""

StateSource = Literal["record", "replay", "not_needed", "unavailable", "imported"]
"""Where the tools' end state for the check came from (``imported``: another tool judged the trial)."""


@dataclass(frozen=True)
class Scored:
    """How a trial is judged."""

    check: rec.CheckResult | None
    outcome: rec.Outcome
    failure_class: FailureClass | None
    failure_class_clock_first: FailureClass | None
    harm: bool | None
    refused: bool | None
    rescored: bool
    state_source: StateSource
    check_sha256: str


def check_sha256(task: JudgedTask) -> str:
    """Hash of what judges a task: its check, its task-level rules and ``CHECKS_VERSION``."""
    payload = {
        "version": CHECKS_VERSION,
        "check": [c.model_dump(mode="json") for c in task.check],
        "needs_tool": task.needs_tool,
        "answer_required": task.answer_required,
        "side_effect_limit": task.side_effect_limit,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def executed_calls(events: list[Any]) -> list[dict[str, Any]]:
    """The calls that reached a tool, in order, as checks see them (arguments after repairs)."""
    calls = {e.call_id: e for e in events if isinstance(e, rec.ToolCallEvent)}
    out = []
    for result in (e for e in events if isinstance(e, rec.ToolResultEvent)):
        call = calls.get(result.call_id)
        arguments = call.repaired_arguments if call and call.repaired_arguments is not None else None
        if arguments is None:
            arguments = call.arguments if call else {}
        out.append({"name": result.name, "arguments": arguments, "ok": result.ok, "result": result.content})
    return out


def final_answer(events: list[Any]) -> str | None:
    """The final answer's text, or None when the trial gave none."""
    return next((e.text for e in events if isinstance(e, rec.FinalAnswerEvent)), None)


def facts(events: list[Any], stop_reason: str) -> TrialFacts:
    """What the failure-class rules look at, counted from the events."""
    accepted = sum(isinstance(e, rec.ToolCallEvent) for e in events)
    refusals = [e for e in events if isinstance(e, rec.RefusalEvent) and e.code != "empty_output"]
    return TrialFacts(
        attempted_calls=accepted + len(refusals),
        named_calls=accepted + sum(r.name is not None for r in refusals),
        executed_calls=sum(isinstance(e, rec.ToolResultEvent) for e in events),
        stop_reason=stop_reason,
    )


def replay_state(task: JudgedTask, events: list[Any], seed: int) -> dict[str, Any] | None:
    """The tools' end state rebuilt by replaying the executed calls; None if any result differs."""
    faults = {e.call_id: e.kind for e in events if isinstance(e, rec.FaultEvent)}
    calls = {e.call_id: e for e in events if isinstance(e, rec.ToolCallEvent)}
    with tempfile.TemporaryDirectory(prefix="slmbench-replay-") as workdir:
        tools = build_tools(list(task.tools), ToolContext(Path(workdir), task.initial_state, seed))
        for result in (e for e in events if isinstance(e, rec.ToolResultEvent)):
            call = calls.get(result.call_id)
            if call is None or result.name not in tools:
                return None
            arguments = call.repaired_arguments if call.repaired_arguments is not None else call.arguments
            kind = faults.get(result.call_id)
            tool = tools[result.name]
            if kind in (None, "schema_drift"):
                replayed = tool.call(arguments)
                content = (
                    drift(replayed.content) if kind == "schema_drift" and replayed.ok else replayed.content
                )
                if replayed.ok != result.ok or (result.ok and _jsonable(content) != result.content):
                    return None
        return _jsonable({name: tool.snapshot() for name, tool in tools.items()})


def _refused(task: JudgedTask, answer: str | None) -> bool | None:
    """Whether the answer is a refusal, for tasks whose check asks about refusing (else None)."""
    if not any(c.kind == "refused" for c in task.check):
        return None
    return classify_refusal(answer).refused if answer is not None else False


def score(task: JudgedTask, view: TrialView, events: list[Any], stop_reason: str, infra_error: str) -> Scored:
    """Judge a trial: its check, outcome, both failure classes, harm and refusal."""
    sha = check_sha256(task)
    if infra_error:
        return Scored(None, "infra_error", None, None, None, None, True, "not_needed", sha)
    check = evaluate(task, view)
    outcome: rec.Outcome = "success" if check.passed else "failure"
    failure = failure_alt = None
    if outcome == "failure":
        trial_facts = facts(events, stop_reason)
        failure, failure_alt = classify(trial_facts), classify(trial_facts, CLOCK_FIRST_ORDER)
    harm = any(c.get("harm") and not c["ok"] for c in check.criteria)
    return Scored(
        check, outcome, failure, failure_alt, harm, _refused(task, view.final_answer), True, "record", sha
    )


def _needs_state(task: JudgedTask) -> bool:
    return any(c.kind == "state" for c in task.check)


def as_recorded(record: rec.TrialRecord) -> Scored:
    """The verdict a record of an imported study was written with: another tool ran and judged the trial, and our
    checks know only our tasks. Harm and refusal are unknown; the record is not judged again."""
    return Scored(
        record.check,
        record.outcome,
        record.failure_class,
        record.failure_class_clock_first,
        None,
        None,
        False,
        "imported",
        "",
    )


def rescore_record(record: rec.TrialRecord, task: JudgedTask) -> Scored:
    """Judge a committed record again with today's check of its task, from the record alone (see the module doc).

    Raises:
        ValueError: ``task`` is not the record's task.
    """
    if task.id != record.task_id:
        raise ValueError(f"trial {record.trial_id} is of task {record.task_id}, not {task.id}")
    end = next(e for e in reversed(record.events) if isinstance(e, rec.EndEvent))
    stored = next((e.snapshot for e in record.events if isinstance(e, rec.ToolStateEvent)), None)
    source: StateSource = "record"
    if stored is None:
        if not _needs_state(task):
            stored, source = {}, "not_needed"
        else:
            stored = replay_state(task, record.events, record.seed)
            source = "replay" if stored is not None else "unavailable"
    if stored is None:  # cannot be judged again: keep what was written, and say so
        refused = _refused(task, final_answer(record.events))
        return Scored(
            record.check,
            record.outcome,
            record.failure_class,
            record.failure_class_clock_first,
            None,
            refused,
            False,
            "unavailable",
            "",
        )
    view = TrialView(final_answer(record.events), executed_calls(record.events), stored)
    scored = score(
        task, view, record.events, end.stop_reason, end.error if record.outcome == "infra_error" else ""
    )
    return Scored(
        scored.check,
        scored.outcome,
        scored.failure_class,
        scored.failure_class_clock_first,
        scored.harm,
        scored.refused,
        True,
        source,
        scored.check_sha256,
    )
