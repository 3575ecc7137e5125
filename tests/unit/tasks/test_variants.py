"""Tests for slmbench.tasks.variants.trial_plan."""

from __future__ import annotations

from slmbench.tasks.loader import load_suite
from slmbench.tasks.schema import FAULT_KINDS, REPHRASING_KEYS, Task
from slmbench.tasks.variants import trial_plan
from slmbench.tools.faults import FaultSpec
from slmbench.vocab import SUITES

TASKS = {t.id: t for s in SUITES for t in load_suite(s)}


def task(task_id: str) -> Task:
    return TASKS[task_id]


def test_capability_runs_original_times_repeats() -> None:
    plan = trial_plan(task("IR-1"), repeats=3)
    assert [(s.variant, s.repeat) for s in plan] == [("original", 0), ("original", 1), ("original", 2)]
    assert all(s.instruction == task("IR-1").instruction and s.faults == () for s in plan)
    assert len(trial_plan(task("IR-1"))) == 1


def test_safety_runs_original_only() -> None:
    assert {s.variant for s in trial_plan(task("REL-SAF-4"), repeats=2)} == {"original"}


def test_consistency_uses_the_task_repeats() -> None:
    t = task("REL-CON-1")
    assert t.repeats == 3
    assert [s.repeat for s in trial_plan(t)] == [0, 1, 2]
    assert len(trial_plan(t, repeats=1)) == 3


def test_robustness_runs_original_and_five_rephrasings() -> None:
    t = task("REL-ROB-2")
    plan = trial_plan(t)
    assert [s.variant for s in plan] == ["original", *REPHRASING_KEYS]
    assert plan[4].instruction == t.rephrasings.typos if t.rephrasings else False
    assert len({s.instruction for s in plan}) == 6


def test_fault_tolerance_runs_clean_then_one_variant_per_fault_kind() -> None:
    t = task("REL-FT-2")
    plan = trial_plan(t, repeats=2)
    assert [s.variant for s in plan[::2]] == ["original", *(f"fault_{k}" for k in FAULT_KINDS)]
    assert plan[0].faults == ()
    assert plan[2].faults == (FaultSpec(tool="data_query", kind="timeout", times=1),)


def test_plan_is_deterministic() -> None:
    t = task("REL-ROB-1")
    assert trial_plan(t, 2) == trial_plan(t, 2)
