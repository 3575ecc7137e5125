"""Outcome consistency of the topic ``task_consistency``: over the ``k`` samples of each task above T = 0,
pass^j (all of j samples drawn from the task's pass) and pass@j (at least one of them passes) for j = 1..k, and the
share of tasks with mixed outcomes. A task counts when it has all ``k`` samples scored (an infrastructure error or
a shard still being recorded leaves it out, and the count of such tasks is reported)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_bootstrap import cluster_bootstrap
from slmbench.analysis.stats_passk import pass_at_k, pass_hat_k
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics.task_consistency import phrases as ph

PREFIX = "tcons"
ESTIMATORS = {"pass-hat": pass_hat_k, "pass-at": pass_at_k}
"""The per-task estimators by key part: pass^j and pass@j of ``stats_passk``."""


def samples_per_task(samples: pd.DataFrame) -> int:
    """``k``: the most scored samples any task has (the samples planned per task)."""
    return int(samples.groupby(["model", "task_id"], observed=True).size().max())


def task_counts(samples: pd.DataFrame, k: int) -> tuple[pd.DataFrame, int]:
    """Per task with all ``k`` samples its samples (``n``) and passes (``c``), and how many tasks have fewer."""
    grouped = samples.groupby("task_id", sort=True, observed=True)["passed"]
    by_task = pd.DataFrame({"n": grouped.size(), "c": grouped.sum()}).astype(int)
    n = by_task["n"]
    return by_task[n == k], int((n < k).sum())


def task_mean(values: np.ndarray, p: dict[str, Any]) -> tuple[float, float, float, int]:
    """The mean over tasks of one value per task, its percentile interval from resampling tasks (nan where there
    is none: fewer than ``MIN_CLUSTERS`` tasks, or every resample alike), and the resamples kept."""
    per_task = pd.DataFrame({"task": np.arange(len(values)), "v": values})
    b = cluster_bootstrap(
        per_task,
        lambda draw: np.mean(draw["v"], axis=-1),
        cluster="task",
        n_resamples=p["n_boot"],
        seed=p["bootstrap_seed"],
        alpha=p["alpha"],
        batched=True,
    )
    lo, hi = b.interval
    return b.estimate, lo, hi, b.n_valid


def outcome_numbers(
    samples: pd.DataFrame, k: int, s: str, trials: pd.DataFrame, base: dict[str, Any], p: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """One model's outcome consistency: ``tcons.pass-hat.<j>.<s>`` and ``tcons.pass-at.<j>.<s>`` (+ ``.lo .hi``)
    for j = 1..k (those of j = k also as ``tcons.pass-hat-k.<s>``, ``tcons.pass-at-k.<s>``), ``tcons.mixed.<s>`` (+ ``.lo .hi .k .n``), ``tcons.n.tasks.<s>``, ``tcons.n.all-pass.<s>``,
    ``tcons.n.none-pass.<s>``, ``tcons.n.short.<s>`` and the phrases ``tcons.phrase.outcome.<s>``,
    ``tcons.phrase.decline.<s>``; and the rows of the figure's table (j, pass^j, pass@j with intervals)."""
    tasks, short = task_counts(samples, k)
    counted = samples[samples["task_id"].isin(tasks.index)]
    sel = selection_for(trials, counted["trial_id"], base)
    out: list[Number] = []
    rows: list[dict[str, Any]] = [{"j": j} for j in range(1, k + 1)]
    for name, estimator in ESTIMATORS.items():
        for row in rows:
            j = row["j"]
            values = np.array([estimator(k, c, j) for c in tasks["c"]], dtype=float)
            est, lo, hi, _ = task_mean(values, p) if len(values) else (np.nan, np.nan, np.nan, 0)
            what = "all" if name == "pass-hat" else "at least one"
            prov = nb.provenance(
                estimator,
                sel,
                f"mean over tasks of the chance that {what} of {j} of the task's {k} samples pass"
                f" (unbiased estimator); tasks resampled",
                unit="tasks",
                j=j,
                k=k,
                bootstrap_seed=p["bootstrap_seed"],
                n_boot=p["n_boot"],
            )
            keys = [f"{PREFIX}.{name}.{j}.{s}"] + ([f"{PREFIX}.{name}-k.{s}"] if j == k else [])
            out += [
                nb.rate(f"{key}{x}", v, prov)
                for key in keys
                for x, v in (("", est), (".lo", lo), (".hi", hi))
            ]
            row.update({name: est, f"{name}_lo": lo, f"{name}_hi": hi})
    c, n = tasks["c"], len(tasks)
    all_pass, none_pass = int((c == k).sum()), int((c == 0).sum())
    mixed = n - all_pass - none_pass
    mprov = nb.provenance(
        wilson_interval,
        sel,
        f"tasks with mixed outcomes over their {k} samples",
        unit="tasks",
        alpha=p["alpha"],
    )
    out += nb.rate_numbers(f"{PREFIX}.mixed.{s}", wilson_interval(mixed, n, p["alpha"]), mprov)
    cprov = nb.provenance("len", sel, f"tasks with all {k} samples", unit="tasks")
    out += [
        nb.count(f"{PREFIX}.n.tasks.{s}", n, cprov),
        nb.count(f"{PREFIX}.n.all-pass.{s}", all_pass, cprov),
        nb.count(f"{PREFIX}.n.none-pass.{s}", none_pass, cprov),
        nb.count(
            f"{PREFIX}.n.short.{s}",
            short,
            nb.provenance("len", base, f"tasks with fewer than {k} scored samples, left out", unit="tasks"),
        ),
        nb.count(f"{PREFIX}.n.samples.{s}", len(counted), nb.provenance("len", sel, "samples counted")),
    ]
    pprov = nb.provenance(ph.outcome_phrase, sel, "outcome consistency", unit="tasks", k=k)
    first, last = rows[0]["pass-hat"], rows[-1]["pass-hat"]
    out += [
        nb.text(f"{PREFIX}.phrase.outcome.{s}", ph.outcome_phrase(k, n, all_pass, none_pass), pprov),
        nb.text(f"{PREFIX}.phrase.decline.{s}", ph.decline_phrase(k, first, last), pprov),
    ]
    return out, rows
