"""Every task is solvable through the real agent loop: a scripted model making the reference calls passes the
check, and one following the wrong solution fails it (so no check is leaky)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.run.control import run_solution
from slmbench.tasks.loader import load_suite
from slmbench.tasks.schema import Task
from slmbench.vocab import SUITES

TASKS = [task for suite in SUITES for task in load_suite(suite)]


def outcome(task: Task, which: str, workdir: Path) -> str:
    workdir.mkdir()
    return run_solution(task, which, workdir)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_reference_solution_passes_and_the_wrong_one_fails_through_the_loop(task: Task, tmp_path: Path):
    assert outcome(task, "solution", tmp_path / "right") == "success"
    assert outcome(task, "wrong_solution", tmp_path / "wrong") == "failure"
