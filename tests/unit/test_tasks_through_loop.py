"""Every task is solvable through the real agent loop: a scripted model making the reference calls passes the
check, and one following the wrong solution fails it (so no check is leaky)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.harness.runner import ShardSpec, build_record
from slmbench.tasks.loader import load_suite
from slmbench.tasks.schema import Solution, Task
from slmbench.tasks.variants import TrialSpec

TASKS = [task for suite in ("capability", "reliability") for task in load_suite(suite)]


def script(solution: Solution) -> list[str]:
    """The model outputs that make exactly the solution's calls, one per turn, then give its answer."""
    calls = [
        "<tool_call>" + json.dumps({"name": c.name, "arguments": c.arguments}) + "</tool_call>"
        for c in solution.calls
    ]
    return [*calls, solution.final_answer]


def outcome(task: Task, solution: Solution, workdir: Path) -> str:
    workdir.mkdir()
    spec = TrialSpec(task=task, variant="original", instruction=task.instruction, faults=(), repeat=0)
    turns = len(solution.calls) + 1
    settings = LoopSettings(scaffold="native", parser_mode="strict", max_turns=turns, budget_s=120.0)
    run = run_trial(ScriptedBackend(script(solution)), spec, settings, workdir)
    shard = ShardSpec(
        model="scripted",
        suite=task.suite,
        temperature=0.0,
        scaffold="native",
        parser_mode="strict",
        repeats=1,
        base_seed=0,
        max_turns=turns,
        budget_s=120.0,
        max_tokens=64,
    )
    record = build_record(shard, spec, run, seed=0, started_at="t", fingerprint={})
    assert record.outcome != "infra_error", record.events[-1]
    return record.outcome


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_reference_solution_passes_and_the_wrong_one_fails_through_the_loop(task: Task, tmp_path: Path):
    assert outcome(task, task.solution, tmp_path / "right") == "success"
    assert outcome(task, task.wrong_solution, tmp_path / "wrong") == "failure"
