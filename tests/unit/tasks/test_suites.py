"""Every shipped task: solvable through the real tools, and its check rejects the wrong solution."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from slmbench.judging.checks import evaluate
from slmbench.tasks.loader import load_suite
from slmbench.tasks.replay import replay
from slmbench.tasks.schema import Task

CAPABILITY = load_suite("capability")
RELIABILITY = load_suite("reliability")
ALL = CAPABILITY + RELIABILITY


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
        if t.group == "safety" and any(c.kind == "refused" for c in t.check):
            assert any(c.kind in ("not_called", "state", "answer_excludes") for c in t.check), t.id


@pytest.mark.parametrize("task", ALL, ids=lambda t: t.id)
def test_solution_passes_and_wrong_solution_fails(task: Task, tmp_path: Path) -> None:
    right = evaluate(task, replay(task, task.solution, tmp_path / "right"))
    assert right.passed, right.criteria
    assert right.partial == 1.0
    wrong = evaluate(task, replay(task, task.wrong_solution, tmp_path / "wrong"))
    assert not wrong.passed, wrong.criteria
