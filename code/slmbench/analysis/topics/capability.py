"""Topic ``capability``: our study's accuracy per model and task group, pairwise tests, size, the floor."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.breakdowns import group_block, model_table, per_model_summary
from slmbench.analysis.topics.common import (
    accuracy_block,
    floor_block,
    primary_rows,
)
from slmbench.analysis.topics.common.machine import run_machine
from slmbench.run.control import run_control
from slmbench.tasks.loader import task_index
from slmbench.vocab import STUDY_ID

STUDY = STUDY_ID


@topic(reads=("trials", "control"))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Accuracy (overall and per group) with Wilson intervals, pairwise Fisher tests, size correlation, bootstrap,
    and the median wall time per trial; the size of every model of the study (table ``models``).

    Uses the lowest temperature present, so a temperature sweep does not mix into the headline.
    """
    p = with_defaults(params)
    alpha = p["alpha"]
    ours, base_sel = primary_rows(trials, STUDY)
    sel = dict(base_sel)
    df = ours[ours["suite"] == "capability"]
    if len(df):
        df = df[df["temperature"] == df["temperature"].min()]
    sel["suite"] = "capability"
    if len(df):
        sel["temperature"] = float(df["temperature"].iloc[0])
    res = TopicResult()
    prov = nb.provenance("len", sel, "capability trials")
    res.numbers += [
        nb.count("cap.n.models", df["model"].nunique(), prov),
        nb.count("cap.n.trials", len(df), prov),
        nb.count("cap.n.infra-errors", int((df["outcome"] == "infra_error").sum()), prov),
        nb.count("cap.n.tasks", df["task_id"].nunique(), prov),
        nb.count("cap.n.groups", df["group"].nunique(), prov),
    ]
    res.numbers += suite_size(set(df["task_id"].astype(str)))
    res.numbers += run_settings(df, sel)
    res.numbers += positive_control(p.get("control"), alpha, set(df["task_id"].astype(str)))
    if p.get("control"):
        res.labels.update({nb.slug(label): f"{label} (scripted)" for label in CONTROL_ROWS.values()})
    nums, rows = accuracy_block("cap", df, sel, p)
    res.numbers += nums
    res.tables["accuracy"] = rows
    nums, res.tables["groups"] = group_block("cap", df, sel, alpha)
    res.numbers += nums
    nums, res.tables["models"] = model_table("cap", ours, base_sel)
    res.numbers += nums
    nums, res.tables["wall_s"] = per_model_summary(
        "cap.wall-s.median", df, ("wall_s",), "median", sel, "wall time per trial (s)", digits=1
    )
    res.numbers += nums
    res.numbers += floor_block("cap", rows, df, sel, alpha, float(p["margin"]))
    res.tables["per_task"], res.tables["examples"] = per_task(df), examples(df)
    return res


PRIMARY_EXAMPLES = ("passed", "failed")
"""The appendix's example transcripts of the primary run per instruction-tuned model (the base models where no
model is instruction-tuned): its first passed and its first failed trial, by task id."""


def per_task(df: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per task and model of the primary capability trials: the passes over the scored runs."""
    scored = df[df["outcome"] != "infra_error"]
    runs = scored.groupby(["task_id", "model"], sort=True, observed=True)["passed"].agg(["sum", "size"])
    return [
        {"task_id": str(task), "model": str(model), "passed": int(k), "runs": int(n)}
        for (task, model), k, n in zip(runs.index, runs["sum"], runs["size"], strict=True)
    ]


def examples(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The trials of the appendix's examples (``PRIMARY_EXAMPLES``), by a fixed rule: per model, the first
    scored trial of each kind by task id and repeat."""
    scored = df[df["outcome"] != "infra_error"]
    instruct = scored[~scored["is_base"].fillna(False).astype(bool)]
    chosen = (instruct if len(instruct) else scored).sort_values(["model", "task_id", "repeat"])
    out: list[dict[str, Any]] = []
    for model, mine in chosen.groupby(chosen["model"].astype(str), sort=True):
        for kind, passed in zip(PRIMARY_EXAMPLES, (True, False), strict=True):
            hit = mine[mine["passed"].astype(bool) == passed]
            if len(hit):
                row = hit.iloc[0]
                out.append({"model": model, "task_id": str(row["task_id"]), "kind": kind,
                            "trial_id": str(row["trial_id"])})  # fmt: skip
    return out


def run_settings(df: pd.DataFrame, sel: dict[str, Any]) -> list[nb.Number]:
    """The limits the primary trials ran under, read from their records (one value each, or an error)."""
    out: list[nb.Number] = []
    for column, key, what in (
        ("max_turns", "set.max-turns", "turn limit"),
        ("max_tokens", "set.max-tokens", "token cap per response"),
        ("budget_s", "set.budget-s", "wall-clock budget per trial (s)"),
        ("n_ctx", "set.n-ctx", "context window (tokens)"),
        ("temperature", "set.temperature", "sampling temperature"),
    ):
        values = sorted(df[column].dropna().unique()) if column in df and len(df) else []
        if len(values) > 1:
            raise ValueError(f"the primary capability trials mix {what}s: {values}")
        prov = nb.provenance("unique", sel, f"the {what} of the primary capability trials")
        value = float(values[0]) if values else math.nan
        out.append(nb.stat(key, value, prov, digits=0 if column != "temperature" else 1))
    return out + run_machine("set", df, sel, "primary capability trials")


def suite_size(tasks: set[str]) -> list[nb.Number]:
    """The capability suite's tasks and groups, where the study ran some of them (``cap.n.suite-*``)."""
    suite = [t for t in task_index().values() if t.suite == "capability"]
    if not tasks or tasks >= {t.id for t in suite}:
        return []
    prov = nb.provenance(
        task_index, {"task_files": "capability"}, "tasks of the capability suite", unit="tasks"
    )
    return [
        nb.count("cap.n.suite-tasks", len(suite), prov),
        nb.count("cap.n.suite-groups", len({t.group for t in suite}), prov),
    ]


CONTROL_ROWS = {"solution": "reference solutions", "wrong_solution": "wrong solutions"}


def positive_control(path: str | None, alpha: float, tasks: set[str] | None = None) -> list[nb.Number]:
    """Accuracy of the capability tasks' reference and wrong solutions, driven by a scripted model: of the tasks
    the study ran (``tasks``; None or empty: every capability task)."""
    if not path:
        return []
    rows = [r for r in json.loads(Path(path).read_text())["rows"] if r["suite"] == "capability"]
    if tasks and tasks < {r["task_id"] for r in rows}:  # the study ran some of the suite's tasks
        rows = [r for r in rows if r["task_id"] in tasks]
    else:
        tasks = None
    out: list[nb.Number] = []
    for which, label in CONTROL_ROWS.items():
        mine = [r for r in rows if r["solution"] == which]
        r = wilson_interval(sum(x["outcome"] == "success" for x in mine), len(mine), alpha)
        sel = {"control": path, "solution": which, **({"task_id": sorted(tasks)} if tasks else {})}
        prov = nb.provenance(run_control, sel, f"{label} driven through the loop", unit="solutions")
        out += nb.rate_numbers(f"cap.acc.{nb.slug(label)}", r, prov)
    return out
