"""Consistency in the taxonomy of ``reliability_taxonomy``: outcome, trajectory and resource consistency over
the samples of a task's original prompt (one model, task and temperature above 0).

The runs are units (``analysis.units.collapse_repeats``): repeats at temperature 0 on one build cannot differ and
count once, so only samples can make a task's runs several. A task counts when it has at least ``k`` runs, ``k``
the fewest runs of any task run more than once (1 when none was: then no task was sampled, and consistency is not
measured).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_bootstrap import cluster_bootstrap, finite_mean
from slmbench.analysis.stats_passk import pass_hat_k
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics.flips import PROMPT, WILSON
from slmbench.vocab import ORIGINAL_VARIANT

BOOT = cluster_bootstrap
RESOURCES = {"turns": ("turns",), "tokens": ("prompt_tokens", "completion_tokens")}
"""Each resource measure and the trial columns it sums."""


def repeated_runs(units: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The units (``collapse_repeats`` of the scored runs) of the original prompts of the tasks that count, with
    ``_task`` (one id per model, task and temperature) and ``_runs`` (the task's runs); and ``k``."""
    runs = units[units["variant"] == ORIGINAL_VARIANT].dropna(subset=PROMPT)
    ids = runs.groupby(PROMPT, sort=True, observed=True).ngroup()
    runs = runs.assign(_task=ids, _runs=ids.map(ids.value_counts()))
    repeated = runs["_runs"][runs["_runs"] >= 2]
    k = int(repeated.min()) if len(repeated) else 1
    return runs[runs["_runs"] >= k], k


def _boot_numbers(
    key: str, values: pd.Series, sel: dict[str, Any], what: str, p: dict[str, Any], as_rate: bool
) -> tuple[list[Number], str]:
    """The mean over tasks of ``values`` (one per task) with a task-resampled percentile interval (none, n/a,
    where it collapses to one value), ``.n`` (tasks), and the phrase on the interval."""
    per_task = pd.DataFrame({"task": np.arange(len(values)), "v": values.to_numpy(dtype=float)})
    b = cluster_bootstrap(
        per_task,
        lambda draw: finite_mean(draw["v"]),
        cluster="task",
        n_resamples=p["n_boot"],
        seed=p["bootstrap_seed"],
        alpha=p["alpha"],
    )
    prov = nb.provenance(
        BOOT, sel, f"{what}; tasks resampled", unit="tasks", bootstrap_seed=p["bootstrap_seed"]
    )
    make = nb.rate if as_rate else nb.stat
    lo, hi = b.interval
    out = [make(f"{key}{x}", v, prov) for x, v in (("", b.estimate), (".lo", lo), (".hi", hi))]
    out.append(nb.count(f"{key}.n", len(values), prov))
    return out, ph.interval_phrase(what, len(values), b.n_valid, b.lo, b.hi, as_rate)


def outcome_numbers(
    runs: pd.DataFrame, k: int, s: str, trials: pd.DataFrame, base: dict[str, Any], p: dict[str, Any]
) -> list[Number]:
    """pass^k (mean over tasks, tasks resampled) and the share of tasks run twice or more with mixed outcomes
    (Wilson): ``tax.outcome.pass-hat-k.<s>``, ``tax.outcome.mixed.<s>``, their phrases."""
    by_task = runs.groupby("_task", sort=True)["passed"].agg(["size", "sum"])
    n, c = by_task["size"].astype(int), by_task["sum"].astype(int)
    sel = selection_for(trials, runs["trial_id"], base)
    phk = pd.Series([pass_hat_k(a, b, k) for a, b in zip(n, c, strict=True)], dtype=float)
    out, phrase = _boot_numbers(
        "tax.outcome.pass-hat-k." + s, phk, sel, "the chance of passing all k runs", p, as_rate=True
    )
    two = n >= 2
    mixed = int(((c > 0) & (c < n) & two).sum())
    r = wilson_interval(mixed, int(two.sum()), p["alpha"])
    mprov = nb.provenance(
        WILSON, sel if k >= 2 else {**base, "trial_id": []}, "tasks with mixed outcomes", unit="tasks"
    )
    out += nb.rate_numbers(f"tax.outcome.mixed.{s}", r, mprov)
    prov = nb.provenance(ph.outcome_phrase, sel, "outcome consistency", unit="tasks", k=k)
    out.append(nb.text(f"tax.phrase.outcome.{s}", ph.outcome_phrase(k, len(by_task), mixed), prov))
    out.append(nb.text(f"tax.phrase.pass-hat-k.{s}", phrase, prov))
    return out


def _signatures(events: pd.DataFrame, trial_ids: pd.Series) -> tuple[list[str], list[str]]:
    """Per trial, its tool calls in order as one text: names with their arguments, and names alone (a trial
    without a call has the empty text)."""
    calls = events[(events["type"] == "tool_call") & events["trial_id"].isin(trial_ids)]
    calls = calls.sort_values(["trial_id", "seq"], kind="stable")
    names = calls["name"].astype(str)
    full = (
        (names + "\x1f" + calls["arguments"].astype(str))
        .groupby(calls["trial_id"], sort=False)
        .agg("\x1e".join)
    )
    short = names.groupby(calls["trial_id"], sort=False).agg("\x1e".join)
    by_full, by_short = full.to_dict(), short.to_dict()
    return [by_full.get(t, "") for t in trial_ids], [by_short.get(t, "") for t in trial_ids]


def trajectory_numbers(
    runs: pd.DataFrame,
    events: pd.DataFrame | None,
    s: str,
    trials: pd.DataFrame,
    base: dict[str, Any],
    alpha: float,
) -> list[Number]:
    """The share of tasks run twice or more whose runs all made the same tool calls (``events.parquet``'s
    ``tool_call`` rows by ``seq``) with the same arguments, and with the same names alone (Wilson; tasks):
    ``tax.trajectory.same-calls.<s>``, ``tax.trajectory.same-tools.<s>``, ``tax.phrase.trajectory.<s>``."""
    two = runs[runs["_runs"] >= 2] if events is not None else runs.iloc[0:0]
    sel = selection_for(trials, two["trial_id"], base)
    n_tasks = int(two["_task"].nunique())
    found = {"same-calls": 0, "same-tools": 0}
    if n_tasks and events is not None:
        tasks = two["_task"].to_numpy()
        for name, sig in zip(found, _signatures(events, two["trial_id"]), strict=True):
            agree = pd.Series(sig, index=tasks, dtype=object).groupby(level=0).nunique() == 1
            found[name] = int(agree.sum())
    out: list[Number] = []
    for name, what in (("same-calls", "tool calls and arguments"), ("same-tools", "tools called")):
        prov = nb.provenance(WILSON, sel, f"tasks whose runs agree on the {what}, in order", unit="tasks")
        out += nb.rate_numbers(
            f"tax.trajectory.{name}.{s}", wilson_interval(found[name], n_tasks, alpha), prov
        )
    prov = nb.provenance(ph.trajectory_phrase, sel, "trajectory consistency", unit="tasks")
    phrase = ph.trajectory_phrase(events is not None, n_tasks, found["same-calls"])
    return [*out, nb.text(f"tax.phrase.trajectory.{s}", phrase, prov)]


def resource_numbers(
    runs: pd.DataFrame, s: str, trials: pd.DataFrame, base: dict[str, Any], p: dict[str, Any]
) -> list[Number]:
    """The mean over tasks of the coefficient of variation (sample standard deviation over the mean) of turns and
    of tokens (prompt + completion) over a task's runs, tasks resampled: ``tax.resource.<r>-cv.<s>``. A task
    counts when two or more of its runs recorded the measure; runs that all used none have no spread (0)."""
    out: list[Number] = []
    for name, columns in RESOURCES.items():
        if set(columns) <= set(runs.columns):
            total = sum(pd.to_numeric(runs[c], errors="coerce") for c in columns)
            values = pd.DataFrame({"task": runs["_task"], "v": total, "trial_id": runs["trial_id"]}).dropna()
        else:
            values = pd.DataFrame({"task": [], "v": [], "trial_id": []})
        stats = values.groupby("task", sort=True)["v"].agg(["size", "mean", "std"])
        stats = stats[stats["size"] >= 2]
        cv = (stats["std"] / stats["mean"]).where(stats["mean"] != 0, 0.0)
        sel = selection_for(trials, values[values["task"].isin(stats.index)]["trial_id"], base)
        what = f"the spread of {name}"
        nums, phrase = _boot_numbers(f"tax.resource.{name}-cv.{s}", cv, sel, what, p, as_rate=False)
        prov = nb.provenance(ph.interval_phrase, sel, what, unit="tasks")
        out += [*nums, nb.text(f"tax.phrase.resource.{name}.{s}", phrase, prov)]
    return out
