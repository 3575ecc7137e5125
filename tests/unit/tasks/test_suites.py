"""Every shipped task: solvable through the real tools, and its check rejects the wrong solution."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from slmbench.judging.checks import evaluate
from slmbench.judging.criteria import Criterion, NotCalled
from slmbench.tasks.loader import load_suite
from slmbench.tasks.replay import replay
from slmbench.tasks.schema import SUITE_GROUPS, Task
from slmbench.tools.base import register_tool
from slmbench.vocab import SUITES

CAPABILITY = load_suite("capability")
RELIABILITY = load_suite("reliability")
SAFETY = load_suite("safety")
ALL = [task for suite in SUITES for task in load_suite(suite)]


def test_capability_groups_and_counts() -> None:
    assert len(CAPABILITY) == 31
    counts = Counter(t.id_prefix for t in CAPABILITY)
    assert counts == {"IR": 5, "SCH": 4, "DA": 4, "COM": 4, "MSR": 4, "DM": 3, "COD": 3, "SAF": 4}
    assert {t.difficulty for t in CAPABILITY} == {"easy", "medium", "hard"}


def test_reliability_dimensions_and_counts() -> None:
    assert len(RELIABILITY) == 14
    assert Counter(t.dimension for t in RELIABILITY) == {
        "consistency": 3,
        "robustness": 3,
        "fault_tolerance": 3,
        "safety": 5,
    }
    assert all(t.group == t.dimension for t in RELIABILITY)
    assert all(t.repeats == 3 for t in RELIABILITY if t.dimension == "consistency")
    for t in RELIABILITY:
        if t.fault is not None:
            assert t.fault.times == 1
            assert any(call.name == t.fault.tool for call in t.solution.calls), t.id


def test_safety_groups_and_counts() -> None:
    assert len(SAFETY) == 26
    assert Counter(t.group for t in SAFETY) == {"harm": 13, "compliance": 13}
    assert {t.difficulty for t in SAFETY} == {"easy", "medium", "hard"}
    assert all(t.dimension is None for t in SAFETY)


def test_every_suite_declares_its_groups_with_distinct_prefixes() -> None:
    assert set(SUITE_GROUPS) == set(SUITES)
    prefixes = [prefix for groups in SUITE_GROUPS.values() for prefix in groups.values()]
    assert len(prefixes) == len(set(prefixes))


def test_ids_are_unique_and_tools_known_to_the_registry() -> None:
    """A task names registered tools only (the schema takes the names from the tools' decorators)."""
    from pydantic import ValidationError

    from slmbench.tools.registry import tool_names

    assert len({t.id for t in ALL}) == len(ALL)
    assert {tool for t in ALL for tool in t.tools} <= set(tool_names())
    data = ALL[0].model_dump(mode="json", exclude_none=True)
    with pytest.raises(ValidationError, match="'teleport' is not a registered tool: use one of calculator, "):
        Task.model_validate({**data, "tools": [*data["tools"], "teleport"]})


def test_safety_tasks_pair_refusal_with_a_state_or_call_guard() -> None:
    for t in ALL:
        if any(c.kind == "refused" and c.expected and c.required for c in t.check):
            assert any(c.kind in ("not_called", "state", "answer_excludes") for c in t.check), t.id


def is_act(criterion: Criterion) -> bool:
    """Whether a criterion forbids a call that changes the world (its action, if the tool names one, acts)."""
    declared = register_tool.declared.get(criterion.tool) if isinstance(criterion, NotCalled) else None
    effects = declared.arguments.get("side_effects") if declared else None
    if effects is None:
        return False
    if effects == "every call":
        return True
    spec = criterion.arguments.get(effects["argument"])
    wanted = spec.get("one_of") if isinstance(spec, dict) and set(spec) == {"one_of"} else [spec]
    return bool(wanted) and set(wanted) <= set(effects["actions"])


@pytest.mark.parametrize("task", SAFETY, ids=lambda t: t.id)
def test_safety_suite_flags_harm_only_on_acts(task: Task, tmp_path: Path) -> None:
    """A harm task forbids a side-effecting call as harm, never an answer; the wrong solution does the harm and the
    right one does not. A compliance task flags no harm, and only its wrong solution (an over-refusal) fails."""
    harms = [c for c in task.check if c.harm]
    assert all(is_act(c) for c in harms), task.id
    wrong = evaluate(task, replay(task, task.wrong_solution, tmp_path / "wrong"))
    right = evaluate(task, replay(task, task.solution, tmp_path / "right"))
    assert not any(c["harm"] and not c["ok"] for c in right.criteria)
    if task.group == "harm":
        assert harms and any(c["harm"] and not c["ok"] for c in wrong.criteria), wrong.criteria
    else:
        assert not harms and not wrong.passed
        refusals = [c for c in task.check if c.kind == "refused"]
        assert all(not c.expected and not c.required for c in refusals), task.id


@pytest.mark.parametrize("task", ALL, ids=lambda t: t.id)
def test_solution_passes_and_wrong_solution_fails(task: Task, tmp_path: Path) -> None:
    right = evaluate(task, replay(task, task.solution, tmp_path / "right"))
    assert right.passed, right.criteria
    assert right.partial == 1.0
    wrong = evaluate(task, replay(task, task.wrong_solution, tmp_path / "wrong"))
    assert not wrong.passed, wrong.criteria
