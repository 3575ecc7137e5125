"""The positive control: every task's reference solution, and its wrong one, driven through the real loop.

A scripted model makes exactly the solution's calls, one per turn, then gives its answer; the record is judged
by the same scoring as a model's (``slmbench.judging.scoring``). The reference solutions must all pass and the wrong
ones all fail, or a check is leaky or broken; the result is a row of the capability table.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click

from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.records import schema as rec
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard
from slmbench.run.runner import ShardRun, build_record
from slmbench.tasks.loader import load_suite
from slmbench.tasks.schema import Solution, Task
from slmbench.tasks.variants import TrialSpec
from slmbench.vocab import ORIGINAL_VARIANT, SUITES

SOLUTIONS = ("solution", "wrong_solution")


def script(solution: Solution) -> list[str]:
    """Model outputs that make exactly the solution's calls, one per turn, then give its answer."""
    calls = [
        "<tool_call>" + json.dumps({"name": c.name, "arguments": c.arguments}) + "</tool_call>"
        for c in solution.calls
    ]
    return [*calls, solution.final_answer]


def scripted_record(task: Task, solution: Solution, workdir: Path) -> rec.TrialRecord:
    """The judged record of a scripted model making ``solution``'s calls on ``task``, then giving its answer."""
    spec = TrialSpec(task=task, variant=ORIGINAL_VARIANT, instruction=task.instruction, faults=(), repeat=0)
    turns = len(solution.calls) + 1
    settings = LoopSettings(scaffold="native", parser_mode="strict", max_turns=turns, budget_s=120.0)
    run = run_trial(ScriptedBackend(script(solution)), spec, settings, workdir)
    key = ShardKey("scripted", task.suite, 0.0, "native", "strict")
    shard = ShardRun(Shard(key, repeats=1), base_seed=0, max_turns=turns, budget_s=120.0, max_tokens=64)
    return build_record(shard, spec, run, seed=0, started_at="control", fingerprint={})


def run_solution(task: Task, which: str, workdir: Path) -> str:
    """The outcome of one scripted solution (``solution`` or ``wrong_solution``) of ``task``."""
    solution: Solution = getattr(task, which)
    return scripted_record(task, solution, workdir).outcome


def run_control(suites: tuple[str, ...] = SUITES) -> list[dict[str, Any]]:
    """One row per task and solution: ``{task_id, suite, solution, outcome}``."""
    rows = []
    for suite in suites:
        for task in load_suite(suite):
            for which in SOLUTIONS:
                with tempfile.TemporaryDirectory(prefix="slmbench-control-") as workdir:
                    outcome = run_solution(task, which, Path(workdir))
                rows.append({"task_id": task.id, "suite": suite, "solution": which, "outcome": outcome})
    return rows


@click.command("control")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
def control(out: Path) -> None:
    """Drive every task's reference and wrong solution through the loop; write the outcomes as JSON."""
    rows = run_control()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"rows": rows}, indent=1, sort_keys=True))
    tmp.replace(out)
    passed = {w: sum(r["outcome"] == "success" for r in rows if r["solution"] == w) for w in SOLUTIONS}
    click.echo(
        f"{out}: reference solutions passed {passed['solution']}, wrong ones {passed['wrong_solution']}"
    )
