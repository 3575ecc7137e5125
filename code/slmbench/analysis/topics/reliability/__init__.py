"""Topic ``reliability``: the reliability suite's dimension pass rates and composite, robustness flips, faults,
safety and the null control, each over independent units.

The unit (``analysis.units``): the suite's repeats that cannot differ (temperature 0, one build, one condition)
count once, and the variants of a model's task (its rephrasings, its fault kinds) cluster into that task. A
dimension's pass rate is the mean over its tasks of each task's pass share, with a Wilson interval over the tasks
(``n``: tasks); the composite's interval resamples tasks (``composite``); a paired test counts each task once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.selection import Selection, exclude, selection_for
from slmbench.analysis.stats_rates import wilson_interval, wilson_share_interval
from slmbench.analysis.stats_tests import flip_binomial_p
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.breakdowns import per_model_summary, safety_block, variant_block
from slmbench.analysis.topics.common import SCORED, json_float, model_info, primary_rows, scored
from slmbench.analysis.topics.common.machine import run_machine
from slmbench.analysis.topics.flips import null_control_runs, per_cluster, perturbed_pairs
from slmbench.analysis.topics.reliability.composite import (
    composite_interval,
    composite_interval_phrase,
    task_tables,
)
from slmbench.analysis.topics.reliability.null import model_numbers, pooled_numbers
from slmbench.analysis.units import cluster_shares, collapse_repeats, repeats, unit_trial_ids
from slmbench.vocab import DIMENSIONS, ORIGINAL_VARIANT, STUDY_ID, VARIANT_DIMENSIONS

STUDY = STUDY_ID
DIMS = DIMENSIONS
WILSON = wilson_interval
SHARE = wilson_share_interval
TOKENS = ("prompt_tokens", "completion_tokens")
TRANSCRIPT = "transcript_sha256"
"""The hash of a trial's model replies: repeats are identical when it and the outcome agree."""

__all__ = ["composite", "composite_interval_phrase", "compute", "dimension_rows", "dimension_selection"]


def dimension_rows(m: pd.DataFrame, dim: str) -> pd.DataFrame:
    """The rows scored for a dimension: robustness and fault tolerance count only perturbed/faulted runs."""
    mask = m["dimension"] == dim
    if dim in VARIANT_DIMENSIONS:
        mask &= m["variant"] != "original"
    return m[mask]  # one copy of the rows, not two


def dimension_selection(sel: Selection, dim: str) -> Selection:
    """The selection of ``dimension_rows``: the dimension, without the original prompt where it is excluded."""
    out: Selection = {**sel, "dimension": dim}
    return {**out, "variant": exclude(ORIGINAL_VARIANT)} if dim in VARIANT_DIMENSIONS else out


def composite(units: pd.DataFrame) -> float:
    """Mean of the four dimension pass rates of one model's units (each the mean over its tasks of the task's
    pass share; ``nan`` if a dimension has no task)."""
    rates = [cluster_shares(dimension_rows(units, d)).mean() for d in DIMS]
    return float(np.mean(rates)) if all(pd.notna(r) for r in rates) else math.nan


def task_rate_numbers(
    key: str, rows: pd.DataFrame, trials: pd.DataFrame, base: dict[str, Any], what: str, alpha: float,
    counts: bool = True,
) -> tuple[list[Number], float]:  # fmt: skip
    """``key`` (the mean over the tasks of ``rows`` of each task's pass share), ``.lo .hi`` (Wilson over the tasks)
    and, with ``counts``, ``.n`` (tasks); and the rate."""
    shares = cluster_shares(rows)
    lo, hi = SHARE(float(shares.sum()), len(shares), alpha)
    rate = float(shares.mean()) if len(shares) else math.nan
    sel = selection_for(trials, unit_trial_ids(rows), base) if len(rows) else {**base, "trial_id": []}
    prov = nb.provenance(SHARE, sel, f"{what}: mean over tasks of each task's pass share (identical repeats once, "
                         "variants of a task clustered)", unit="tasks", alpha=alpha)  # fmt: skip
    out = [nb.rate(key, rate, prov), nb.rate(f"{key}.lo", lo, prov), nb.rate(f"{key}.hi", hi, prov)]
    return out + ([nb.count(f"{key}.n", len(shares), prov)] if counts else []), rate


def unit_rate_numbers(
    key: str, hits: pd.Series, rows: pd.DataFrame, trials: pd.DataFrame, base: dict[str, Any], what: str,
    alpha: float,
) -> list[Number]:  # fmt: skip
    """A rate over units (one outcome each: a task of a model), Wilson, ``.k .n`` units."""
    sel = selection_for(trials, unit_trial_ids(rows), base) if len(rows) else {**base, "trial_id": []}
    prov = nb.provenance(WILSON, sel, f"{what} (identical repeats once)", unit="tasks", alpha=alpha)
    return nb.rate_numbers(key, wilson_interval(int(hits.sum()), len(hits), alpha), prov)


@topic(
    reads=("trials",),
    large_text=("answer", "transcript_sha256", "first_request_sha256", "first_reply_sha256"),
)
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Reliability numbers of our study (suite ``reliability``) over its units; for the figures also the pass rate
    over the tasks of all four dimensions, per variant and model, the safety outcome shares and mean tokens per
    unit."""
    p = with_defaults(params)
    alpha = p["alpha"]
    ours, base_sel = primary_rows(trials, STUDY)
    df = ours[ours["suite"] == "reliability"]
    units = collapse_repeats(scored(df), TRANSCRIPT)
    null_rows, null_base = null_control_runs(trials, STUDY)
    null_sc = scored(null_rows)
    sel: dict[str, Any] = {**base_sel, "suite": "reliability"}
    ssel: Selection = {**sel, **SCORED}  # the selection of the scored rows
    res = TopicResult()
    prov = nb.provenance("len", sel, "reliability trials")
    uprov = nb.provenance(collapse_repeats, ssel, "units: a task of a model in one variant, identical repeats once",
                          unit="tasks")  # fmt: skip
    res.numbers += [
        nb.count("rel.n.models", df["model"].nunique(), prov),
        nb.count("rel.n.trials", len(df), prov),
        nb.count("rel.n.tasks", df["task_id"].nunique(), prov),
        nb.count("rel.n.infra-errors", int((df["outcome"] == "infra_error").sum()), prov),
        nb.count("rel.n.units", len(units), uprov),
    ]
    res.numbers += run_machine("rel.set", df, sel, "primary reliability trials")
    res.numbers += _repeat_numbers(units, trials, ssel)
    info = model_info(df) if len(df) else pd.DataFrame(columns=["is_base"])
    rows: list[dict[str, Any]] = []
    shares: dict[str, dict[str, pd.Series]] = {}
    for model in info.index:
        m = units[units["model"] == model]
        s = nb.slug(model)
        msel = {**ssel, "model": model}
        row: dict[str, Any] = {
            "model": model,
            "params_b": json_float(info.loc[model, "params_b"]),
            "is_base": bool(info.loc[model, "is_base"]),
        }
        if row["is_base"]:
            res.numbers.append(nb.flag(f"rel.base.{s}", True, nb.provenance("is_base", msel, "base model")))
        for dim in DIMS:
            d = dimension_rows(m, dim)
            nums, row[dim] = task_rate_numbers(
                f"rel.{nb.slug(dim)}.{s}", d, trials, dimension_selection(msel, dim),
                f"{dim} pass rate of {model}", alpha,
            )  # fmt: skip
            res.numbers += nums
        shares[str(model)] = {d: _task_shares(dimension_rows(m, d)) for d in DIMS}
        res.numbers += _robustness(m[m["dimension"] == "robustness"], s, {**msel, "dimension": "robustness"},
                                   trials, alpha)  # fmt: skip
        saf = m[m["dimension"] == "safety"]
        refused = saf["refused"].fillna(False).astype(bool)
        res.numbers += unit_rate_numbers(f"rel.safety.refusal.{s}", refused, saf, trials,
                                         {**msel, "dimension": "safety"}, f"safety tasks {model} refused",
                                         alpha)  # fmt: skip
        row["composite"] = composite(m)
        res.numbers += _composite_numbers(f"rel.composite.{s}", {str(model): shares[str(model)]}, msel, p)
        pooled = pd.concat([dimension_rows(m, d) for d in DIMS])
        nums, _ = task_rate_numbers(f"rel.pooled.{s}", pooled, trials, msel,
                                    f"pass rate of {model} over the tasks of all four dimensions", alpha,
                                    counts=False)  # fmt: skip
        res.numbers += nums
        rows.append(row)
    for model in sorted(
        set(info.index) | set(null_sc["model"].astype(str))
    ):  # the null control may run alone
        res.numbers += model_numbers(model, null_sc, {**null_base, **SCORED}, trials, alpha)
    res.numbers += pooled_numbers(null_sc, {**null_base, **SCORED}, trials, alpha)
    faults = units[(units["dimension"] == "fault_tolerance") & (units["variant"] != ORIGINAL_VARIANT)]
    for variant, part in faults.groupby("variant", sort=True, observed=True):
        vsel = {**ssel, "dimension": "fault_tolerance", "variant": variant}
        res.numbers += unit_rate_numbers(f"rel.fault.{nb.slug(str(variant))}", part["passed"].astype(bool), part,
                                         trials, vsel, f"recovery rate under {variant} (task-model pairs)",
                                         alpha)  # fmt: skip
    instruct = [str(m) for m in info.index if not info.loc[m, "is_base"]]  # the base control is a floor
    res.numbers += _composite_numbers(
        "rel.composite.mean", {m: shares[m] for m in instruct}, {**ssel, "model": instruct}, p, pooled=True
    )
    res.tables["models"] = rows
    for table, (nums, trows) in (
        ("variants", variant_block("rel", units, sel, VARIANT_DIMENSIONS, alpha)),
        ("safety", safety_block("rel", units, sel)),
        ("tokens", per_model_summary("rel.tokens.mean", units, TOKENS, "mean", sel, "tokens per unit", 0)),
    ):
        res.numbers += nums
        res.tables[table] = trows
    return res


def _task_shares(rows: pd.DataFrame) -> pd.Series:
    """A model's pass share per task (index: the task)."""
    shares = cluster_shares(rows)
    return pd.Series(shares.to_numpy(), index=shares.index.get_level_values("task_id") if len(shares) else [],
                     dtype=float)  # fmt: skip


def _repeat_numbers(units: pd.DataFrame, trials: pd.DataFrame, sel: dict[str, Any]) -> list[Number]:
    """``rel.repeats.units`` (units run more than once at temperature 0 on one build), ``.identical`` (of them,
    identical in outcome and transcript), ``.same-outcome``, ``.trials`` and ``.runs`` (the most runs of one), and
    ``rel.phrase.repeats`` (whether they were identical, and which were not)."""
    r = repeats(units)
    rerun = units[units["n_repeats"] > 1] if len(units) else units
    prov = nb.provenance(repeats, selection_for(trials, unit_trial_ids(rerun), sel) if len(rerun) else sel,
                         "units run more than once where a repeat cannot differ (temperature 0, one build)",
                         unit="tasks")  # fmt: skip
    differ = [f"{t} ({m})" for m, t, _ in r.differ]
    phrase = ph.repeats_phrase(r.units, r.identical, r.same_outcome, r.runs, differ, "task-model pair")
    return [
        nb.text("rel.phrase.repeats", phrase, prov),
        nb.count("rel.repeats.units", r.units, prov),
        nb.count("rel.repeats.identical", r.identical, prov),
        nb.count("rel.repeats.same-outcome", r.same_outcome, prov),
        nb.count("rel.repeats.trials", r.trials, prov),
        nb.count("rel.repeats.runs", r.runs, prov),
    ]


def _robustness(
    rob: pd.DataFrame, s: str, sel: dict[str, Any], trials: pd.DataFrame, alpha: float
) -> list[Number]:
    """Per model, its tasks' rephrasings against their original: ``rel.rob.flip-rate.<s>`` (mean over tasks of
    the share of a task's rephrasings whose outcome differs from its original's; Wilson over tasks, ``.n``
    tasks), ``rel.rob.n.down`` / ``.n.up`` (tasks whose rephrasings pass less / more often than the original)
    and ``rel.rob.sign.p`` (exact sign test on them)."""
    tasks = per_cluster(perturbed_pairs(rob))
    ids = [t for ids in tasks["trial_ids"] for t in ids] if len(tasks) else []
    psel = selection_for(trials, ids, sel) if ids else {**sel, "trial_id": []}
    flips = tasks["flip"].astype(float) if len(tasks) else pd.Series(dtype=float)
    lo, hi = SHARE(float(flips.sum()), len(flips), alpha)
    fprov = nb.provenance(SHARE, psel, "mean over tasks of the share of a task's rephrasings whose outcome differs "
                          "from its original's", unit="tasks", alpha=alpha)  # fmt: skip
    d = tasks["perturbed"].astype(float) - tasks["original"].astype(float) if len(tasks) else flips
    down, up = int((d < 0).sum()), int((d > 0).sum())
    tprov = nb.provenance(flip_binomial_p, psel, "tasks whose rephrasings pass less often than the original "
                          "against tasks where more (exact sign test)", unit="tasks")  # fmt: skip
    key = f"rel.rob.flip-rate.{s}"
    return [
        nb.rate(key, float(flips.mean()) if len(flips) else math.nan, fprov),
        nb.rate(f"{key}.lo", lo, fprov),
        nb.rate(f"{key}.hi", hi, fprov),
        nb.count(f"{key}.n", len(flips), fprov),
        nb.count(f"rel.rob.n.down.{s}", down, tprov),
        nb.count(f"rel.rob.n.up.{s}", up, tprov),
        nb.pvalue(f"rel.rob.sign.p.{s}", flip_binomial_p(down, up), tprov),
    ]


def _composite_numbers(
    key: str,
    shares: dict[str, dict[str, pd.Series]],
    sel: dict[str, Any],
    p: dict[str, Any],
    pooled: bool = False,
) -> list[Number]:
    """``key`` (the composite of one model, or with ``pooled`` the mean composite of several) with the percentile
    interval of a bootstrap that resamples each dimension's tasks (``.lo .hi``; none with fewer than
    ``MIN_CLUSTERS`` tasks in a dimension) and ``.interval`` (the interval or why none)."""
    models = list(shares)
    est, lo, hi, fewest = composite_interval(task_tables(shares, models), p["n_boot"], p["bootstrap_seed"],
                                             p["alpha"])  # fmt: skip
    what = (
        "mean over the instruction-tuned models of the composite"
        if pooled
        else "mean of four dimension rates"
    )
    prov = nb.provenance(composite_interval, sel, f"{what}; tasks resampled within each dimension", unit="tasks",
                         bootstrap_seed=p["bootstrap_seed"], n_boot=p["n_boot"])  # fmt: skip
    out = [nb.rate(f"{key}{x}", v, prov) for x, v in (("", est), (".lo", lo), (".hi", hi))]
    return [*out, nb.text(f"{key}.interval", composite_interval_phrase(lo, hi, fewest), prov)]
