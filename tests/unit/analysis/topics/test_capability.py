"""Topic ``capability``: what the paper's appendix and design read of a study that ran some of the suite's tasks
(the per-task passes, the example trials, the suite's size, the positive control over the tasks it ran)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis.topics.capability import examples, per_task, positive_control, suite_size


def trial(model: str, task: str, passed: bool, repeat: int = 0, **kw: Any) -> dict[str, Any]:
    return {
        "trial_id": f"{model}/{task}/{repeat}", "model": model, "task_id": task, "repeat": repeat,
        "passed": passed, "outcome": "success" if passed else "failure", "is_base": False, **kw,
    }  # fmt: skip


def test_per_task_passes_and_the_first_passed_and_failed_trial_of_each_model() -> None:
    df = pd.DataFrame([
        trial("a", "IR-1", False), trial("a", "COD-1", True), trial("a", "COD-1", False, repeat=1),
        trial("b", "IR-1", False), trial("b", "DA-1", False, outcome="infra_error"),
        trial("base", "IR-1", True, is_base=True),
    ])  # fmt: skip
    rows = {(r["task_id"], r["model"]): (r["passed"], r["runs"]) for r in per_task(df)}
    assert rows[("COD-1", "a")] == (1, 2) and ("DA-1", "b") not in rows  # an infra error is no run
    picked = [(e["model"], e["task_id"], e["kind"]) for e in examples(df)]
    assert picked == [("a", "COD-1", "passed"), ("a", "COD-1", "failed"), ("b", "IR-1", "failed")]


def test_the_suite_size_and_the_positive_control_follow_the_tasks_the_study_ran(tmp_path: Path) -> None:
    assert suite_size(set()) == [] and len(suite_size({"IR-1", "COD-1"})) == 2
    sizes = {n.key: n.value for n in suite_size({"IR-1"})}
    assert sizes["cap.n.suite-tasks"] > 1 and sizes["cap.n.suite-groups"] > 1
    rows = [{"task_id": t, "suite": "capability", "solution": s, "outcome": "success" if s == "solution" else "failure"}
            for t in ("IR-1", "COD-1", "DA-1") for s in ("solution", "wrong_solution")]  # fmt: skip
    path = tmp_path / "control.json"
    path.write_text(json.dumps({"rows": rows}))
    ran = {n.key: n.value for n in positive_control(str(path), 0.05, {"IR-1", "COD-1"})}
    every = {n.key: n.value for n in positive_control(str(path), 0.05, {"IR-1", "COD-1", "DA-1"})}
    assert ran["cap.acc.reference-solutions.n"] == 2 and every["cap.acc.reference-solutions.n"] == 3
