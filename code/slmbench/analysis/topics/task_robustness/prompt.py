"""Prompt robustness on every capability task: each task's original run against its paraphrased runs.

The paraphrases of one task share its original run, so they are not independent pairs: every interval resamples
tasks (a task-cluster bootstrap over one summary row per task), and the test of direction is an exact sign test on
the task-level difference (the mean pass of a task's paraphrases minus its original's pass; tasks with no
difference dropped), never McNemar on the pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.stats_tests import flip_binomial_p
from slmbench.analysis.topics.common import json_float

BOOT = cluster_bootstrap
WILSON = wilson_interval


def per_task(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per task of ``perturbed_pairs``: ``pairs`` (its paraphrased runs), ``flips`` (those whose outcome
    differs from the original's), ``passes`` (paraphrased runs passed), ``original`` (1 if the original passed)."""
    a, b = pairs["passed_base"].astype(bool), pairs["passed"].astype(bool)
    frame = pd.DataFrame(
        {
            "task": pairs["task_id"].astype(str),
            "flip": (a != b).astype(int),
            "pass": b.astype(int),
            "original": a.astype(int),
        }  # fmt: skip
    )
    out = frame.groupby("task", sort=True).agg(
        pairs=("flip", "size"), flips=("flip", "sum"), passes=("pass", "sum"), original=("original", "first")
    )
    return out.reset_index()


def _ratio(top: str, bottom: str) -> Any:
    def statistic(draw: Draw) -> Any:
        return np.sum(draw[top], axis=-1) / np.sum(draw[bottom], axis=-1)

    return statistic


def _diff(draw: Draw) -> Any:
    return np.mean(draw["passes"] / draw["pairs"] - draw["original"], axis=-1)


def _boot(tasks: pd.DataFrame, statistic: Any, p: dict[str, Any]) -> tuple[float, float, float]:
    b = cluster_bootstrap(
        tasks, statistic, cluster="task", n_resamples=p["n_boot"], seed=p["bootstrap_seed"], alpha=p["alpha"],
        batched=True,
    )  # fmt: skip
    lo, hi = b.interval
    return b.estimate, lo, hi


def prompt_numbers(
    pairs: pd.DataFrame, s: str, trials: pd.DataFrame, base: dict[str, Any], p: dict[str, Any]
) -> tuple[list[Number], dict[str, Any]]:
    """``trob.prompt.<s>.*`` of one model's paraphrase pairs, and its row of the topic's ``prompt`` table.

    ``flip`` (paraphrased runs whose outcome differs from the original's; ``.k`` flips, ``.n`` pairs),
    ``acc.paraphrase`` (over the pairs), ``diff`` (mean over tasks of a task's paraphrase pass share minus its
    original's), each with a task-cluster bootstrap interval (none with fewer than ``MIN_CLUSTERS`` tasks or where
    every resample gives one value); ``acc.original`` over the tasks (one run each: Wilson); ``n.tasks``,
    ``n.up``/``n.down`` (tasks whose paraphrases pass more / less often than their original) and ``sign.p``
    (exact two-sided sign test on them).
    """
    tasks = per_task(pairs)
    n_tasks, n_pairs = len(tasks), int(tasks["pairs"].sum()) if len(tasks) else 0
    sel = selection_for(trials, {*pairs["trial_id"], *pairs["trial_id_base"]}, base)
    key = f"trob.prompt.{s}"
    out: list[Number] = []
    row: dict[str, Any] = {"slug": s, "tasks": n_tasks, "pairs": n_pairs}
    for name, stat, what, k in (
        ("flip", _ratio("flips", "pairs"), "paraphrased runs whose outcome differs from the original's",
         int(tasks["flips"].sum()) if n_tasks else 0),
        ("acc.paraphrase", _ratio("passes", "pairs"), "paraphrased runs passed",
         int(tasks["passes"].sum()) if n_tasks else 0),
    ):  # fmt: skip
        est, lo, hi = _boot(tasks, stat, p) if n_tasks else (float("nan"),) * 3
        prov = nb.provenance(BOOT, sel, f"{what}, over the pairs; tasks resampled", unit="pairs",
                             bootstrap_seed=p["bootstrap_seed"], n_boot=p["n_boot"], alpha=p["alpha"])  # fmt: skip
        out += [nb.rate(f"{key}.{name}{x}", v, prov) for x, v in (("", est), (".lo", lo), (".hi", hi))]
        out += [nb.count(f"{key}.{name}.k", k, prov), nb.count(f"{key}.{name}.n", n_pairs, prov)]
        row[name] = json_float(est)
    est, lo, hi = _boot(tasks, _diff, p) if n_tasks else (float("nan"),) * 3
    dprov = nb.provenance(BOOT, sel, "mean over tasks of the paraphrases' pass share minus the original's pass; "
                          "tasks resampled", unit="tasks", bootstrap_seed=p["bootstrap_seed"], n_boot=p["n_boot"],
                          alpha=p["alpha"])  # fmt: skip
    out += [nb.rate(f"{key}.diff{x}", v, dprov) for x, v in (("", est), (".lo", lo), (".hi", hi))]
    row["diff"] = json_float(est)
    originals = selection_for(trials, pairs["trial_id_base"], base)
    r = wilson_interval(int(tasks["original"].sum()) if n_tasks else 0, n_tasks, p["alpha"])
    oprov = nb.provenance(WILSON, originals, "original runs passed, one per paraphrased task", unit="tasks",
                          alpha=p["alpha"])  # fmt: skip
    out += nb.rate_numbers(f"{key}.acc.original", r, oprov)
    row["acc.original"] = json_float(r.rate)
    d = (tasks["passes"] / tasks["pairs"] - tasks["original"]) if n_tasks else pd.Series(dtype=float)
    up, down = int((d > 0).sum()), int((d < 0).sum())
    sprov = nb.provenance(flip_binomial_p, sel, "tasks whose paraphrases pass more often than the original "
                          "against tasks where less (exact sign test; tasks without a difference dropped)",
                          unit="tasks")  # fmt: skip
    out += [
        nb.count(f"{key}.n.tasks", n_tasks, sprov),
        nb.count(f"{key}.n.up", up, sprov),
        nb.count(f"{key}.n.down", down, sprov),
        nb.pvalue(f"{key}.sign.p", flip_binomial_p(down, up), sprov),
    ]
    row.update(up=up, down=down)
    return out, row
