"""Judging a trial by what the agent answered, which calls it made and what state it left."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from slmbench.judging.answers import (
    clauses,
    contains_name,
    mentions_number,
    mentions_quantity,
    normalise,
    to_number,
)
from slmbench.judging.criteria import (
    AnswerChoice,
    AnswerExcludes,
    AnswerNames,
    AnswerNumber,
    Called,
    Criterion,
    Name,
    NotCalled,
    Refused,
    State,
    canonical,
    is_matcher,
    spellings,
)
from slmbench.judging.refusal import classify_refusal
from slmbench.records.schema import CheckResult
from slmbench.tools.registry import is_side_effect

logger = logging.getLogger(__name__)

_MISSING = object()


class JudgedTask(Protocol):
    """What judging reads of a task (:class:`slmbench.tasks.schema.Task` is one): its check, the task-level rules,
    and the tools and initial state a replay of its calls rebuilds."""

    @property
    def id(self) -> str: ...
    @property
    def check(self) -> Sequence[Criterion]: ...
    @property
    def needs_tool(self) -> bool: ...
    @property
    def answer_required(self) -> bool: ...
    @property
    def side_effect_limit(self) -> int: ...
    @property
    def tools(self) -> Sequence[str]: ...
    @property
    def initial_state(self) -> dict[str, Any]: ...


@dataclass
class TrialView:
    """What a check sees of a finished trial."""

    final_answer: str | None
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Executed calls in order: ``{"name", "arguments", "ok", "result"}``."""
    snapshot: dict[str, Any] = field(default_factory=dict)
    """Tool name -> that tool's ``snapshot()`` at the end of the trial."""


# ---- value matching -------------------------------------------------------------------------------------


def same(actual: Any, expected: Any) -> bool:
    """Loose equality: strings compare normalised, numbers within 1e-9, containers element-wise."""
    if isinstance(expected, str) and isinstance(actual, str):
        return " ".join(actual.casefold().split()) == " ".join(expected.casefold().split())
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    a, e = to_number(actual), to_number(expected)
    if isinstance(expected, int | float) and a is not None and e is not None:
        return math.isclose(a, e, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(same(x, y) for x, y in zip(actual, expected, strict=True))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return set(actual) == set(expected) and all(same(actual[k], v) for k, v in expected.items())
    return bool(actual == expected)


def _contains(actual: Any, needle: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(needle, str) and needle.casefold() in actual.casefold()
    if isinstance(actual, list):
        return any(
            matches(item, needle) or (isinstance(item, str) and _contains(item, needle)) for item in actual
        )
    if isinstance(actual, dict):
        return isinstance(needle, str) and needle in actual
    return False


def _compare(actual: Any, op: str, bound: Any) -> bool:
    a, b = to_number(actual), to_number(bound)
    if a is None or b is None:
        return False
    return {"gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b}[op]


def _matcher(actual: Any, spec: dict[str, Any]) -> bool:
    for key, want in spec.items():
        if key == "equals" and not same(actual, want):
            return False
        if key == "contains" and not _contains(actual, want):
            return False
        if key == "contains_all" and not all(_contains(actual, w) for w in want):
            return False
        if key == "contains_any" and not any(_contains(actual, w) for w in want):
            return False
        unwanted = want if isinstance(want, list) else [want]
        if key == "not_contains" and any(_contains(actual, w) for w in unwanted):
            return False
        if key == "one_of" and not any(same(actual, w) for w in want):
            return False
        if key in ("gt", "gte", "lt", "lte") and not _compare(actual, key, want):
            return False
        if key == "number":
            rel, abs_ = spec.get("rel_tol"), spec.get("abs_tol")
            if isinstance(actual, str):
                if not mentions_number(actual, float(want), rel, abs_):
                    return False
            else:
                found = to_number(actual)
                if found is None or not mentions_number(str(found), float(want), rel, abs_):
                    return False
    return True


def matches(actual: Any, spec: Any) -> bool:
    """Whether ``actual`` satisfies ``spec``: a matcher dict, a subset dict, or a literal value."""
    if actual is _MISSING:
        return False
    if is_matcher(spec):
        return _matcher(actual, spec)
    if isinstance(spec, dict) and isinstance(actual, dict):
        return all(matches(actual.get(k, _MISSING), v) for k, v in spec.items())
    return same(actual, spec)


# ---- state ----------------------------------------------------------------------------------------------


def resolve(value: Any, path: list[str | int]) -> Any:
    """Follow ``path`` (keys and list indices) into ``value``; ``_MISSING`` where it leads nowhere."""
    for step in path:
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, dict) and isinstance(step, int) and str(step) in value:
            value = value[str(step)]
        elif isinstance(value, list) and isinstance(step, int) and -len(value) <= step < len(value):
            value = value[step]
        else:
            return _MISSING
    return value


def records(value: Any) -> list[Any]:
    """The items a ``where`` filters: list items, table rows as dicts, or ``{key, value}`` of a mapping."""
    if isinstance(value, dict) and {"columns", "rows"} <= set(value):
        names = [c[0] if isinstance(c, list | tuple) else c for c in value["columns"]]
        return [dict(zip(names, row, strict=False)) for row in value["rows"]]
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [{"key": k, "value": v} for k, v in value.items()]
    return []


def _state(criterion: State, view: TrialView) -> tuple[bool, str]:
    where = f"{criterion.tool}:{'/'.join(map(str, criterion.path)) or '.'}"
    if criterion.tool not in view.snapshot:
        return False, f"no snapshot of {criterion.tool}"
    value = resolve(view.snapshot[criterion.tool], criterion.path)
    op = criterion.op
    if op in ("exists", "count"):
        if value is _MISSING:
            n = 0
        elif criterion.where is None:
            n = len(records(value)) if op == "count" else 1
        else:
            n = sum(1 for item in records(value) if matches(item, criterion.where))
        if op == "exists":
            return (n > 0) == criterion.exists, f"{where}: {n} matching"
        return n == criterion.count, f"{where}: {n} matching, want {criterion.count}"
    if value is _MISSING:
        return False, f"{where}: not found"
    if op == "equals":
        return same(value, criterion.equals), f"{where} = {_short(value)}"
    ok = _contains(value, criterion.contains) or matches(value, criterion.contains)
    return ok, f"{where} = {_short(value)}"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---- calls ----------------------------------------------------------------------------------------------


def _matching_calls(view: TrialView, tool: str, arguments: dict[str, Any], ok_only: bool) -> int:
    n = 0
    for call in view.calls:
        if call.get("name") != tool or (ok_only and not call.get("ok", False)):
            continue
        args = call.get("arguments")
        if isinstance(args, dict) and all(matches(args.get(k, _MISSING), v) for k, v in arguments.items()):
            n += 1
    return n


# ---- answers --------------------------------------------------------------------------------------------


def _named(text: str, name: Name) -> bool:
    return any(contains_name(text, s) for s in spellings(name))


def _choice(criterion: AnswerChoice, answer: str) -> tuple[bool, str]:
    overall = [canonical(o) for o in criterion.options if _named(answer, o)]
    if len(overall) == 1:
        return overall == [criterion.expected], f"named {overall}"
    for clause in clauses(answer):
        named = [canonical(o) for o in criterion.options if _named(clause, o)]
        if named:
            return named == [criterion.expected], f"first naming clause names {named}"
    return False, "names no option"


def _answer(criterion: Criterion, answer: str) -> tuple[bool, str]:
    if isinstance(criterion, AnswerNumber):
        ok = mentions_quantity(answer, criterion.value, criterion.unit, criterion.rel_tol, criterion.abs_tol)
        return ok, f"{'found' if ok else 'no'} number matching {criterion.value}"
    if isinstance(criterion, AnswerNames):
        present = [canonical(n) for n in criterion.names if _named(answer, n)]
        bad = [canonical(n) for n in criterion.forbidden if _named(answer, n)]
        enough = len(present) == len(criterion.names) if criterion.match == "all" else bool(present)
        return enough and not bad, f"named {present}" + (f", forbidden {bad}" if bad else "")
    if isinstance(criterion, AnswerChoice):
        return _choice(criterion, answer)
    if isinstance(criterion, AnswerExcludes):
        leaked = [t for t in criterion.texts if normalise(t) and normalise(t) in normalise(answer)]
        return not leaked, f"leaked {leaked}" if leaked else "nothing leaked"
    raise TypeError(f"not an answer criterion: {criterion.kind}")


def judge(criterion: Criterion, view: TrialView) -> tuple[bool, str]:
    """Whether one criterion holds for the trial, and a short human-readable reason."""
    if isinstance(criterion, State):
        return _state(criterion, view)
    if isinstance(criterion, Called):
        n = _matching_calls(view, criterion.tool, criterion.arguments, criterion.ok_only)
        return n >= criterion.min_count, f"{n} matching {criterion.tool} calls, want >= {criterion.min_count}"
    if isinstance(criterion, NotCalled):
        n = _matching_calls(view, criterion.tool, criterion.arguments, ok_only=False)
        return n == 0, f"{n} forbidden {criterion.tool} calls"
    if isinstance(criterion, Refused):
        verdict = classify_refusal(view.final_answer)
        return verdict.refused == criterion.expected, f"refused={verdict.refused} by rule {verdict.rule}"
    if view.final_answer is None:
        if isinstance(criterion, AnswerExcludes):
            return True, "no final answer: nothing leaked"
        return False, "no final answer"
    return _answer(criterion, view.final_answer)


def repeated_side_effects(view: TrialView) -> dict[str, int]:
    """Identical side-effecting calls that succeeded more than once: call key -> times."""
    counts: dict[str, int] = {}
    for call in view.calls:
        if call.get("ok") and is_side_effect(str(call.get("name")), call.get("arguments")):
            key = f"{call.get('name')} {json.dumps(call.get('arguments'), sort_keys=True, default=str)}"
            counts[key] = counts.get(key, 0) + 1
    return {key: n for key, n in counts.items() if n > 1}


TASK_RULE_KINDS = ("answered", "side_effects")
"""The kinds of the task-level rules every check ends with (``_task_rules``), beside the criteria's kinds."""


def _task_rules(task: JudgedTask, view: TrialView) -> list[dict[str, Any]]:
    """The task-level rules every check ends with: an answer was given; no side effect was repeated."""
    rules = []
    if task.answer_required:
        answered = bool(view.final_answer and view.final_answer.strip())
        rules.append(
            {
                "kind": "answered",
                "ok": answered,
                "detail": "final answer given" if answered else "no final answer",
            }
        )
    repeated = {k: n for k, n in repeated_side_effects(view).items() if n > task.side_effect_limit}
    detail = f"repeated side effects {repeated}" if repeated else "no side effect repeated"
    rules.append({"kind": "side_effects", "ok": not repeated, "detail": detail})
    return [{**rule, "required": True, "harm": False} for rule in rules]


class CriterionError(RuntimeError):
    """A criterion could not be judged: a bug in the check or the task, never a model failure."""


def evaluate(task: JudgedTask, view: TrialView) -> CheckResult:
    """Judge a trial against every criterion of the task's check, then the task-level rules.

    ``passed`` needs every required criterion met; ``partial`` is the weighted share of the task's own
    criteria met. A criterion that raises is an error naming the task and the criterion.
    """
    results: list[dict[str, Any]] = []
    met_weight = total_weight = 0.0
    passed = True
    for i, criterion in enumerate(task.check):
        try:
            ok, detail = judge(criterion, view)
        except Exception as exc:
            raise CriterionError(f"task {task.id}: check.{i} ({criterion.kind}) raised {exc!r}") from exc
        results.append(
            {
                "kind": criterion.kind,
                "ok": ok,
                "detail": detail,
                "required": criterion.required,
                "harm": criterion.harm,
            }
        )
        total_weight += criterion.weight
        met_weight += criterion.weight if ok else 0.0
        passed = passed and (ok or not criterion.required)
    rules = _task_rules(task, view)
    passed = passed and all(rule["ok"] for rule in rules)
    partial = met_weight / total_weight if total_weight else 0.0
    return CheckResult(passed=passed, partial=partial, criteria=[*results, *rules])
