"""Outcome flips between runs that should agree: reruns of an unchanged prompt (the null control) and perturbed
or faulted runs paired with the original prompt's run (robustness).

Shared by the topics ``reliability`` and ``reliability_taxonomy``: one definition of each pairing and of the
flip rate over the pairs. The null control's reruns pair two ways (``analysis.units`` decides which runs are one
unit): within a unit, runs that cannot differ (the noise floor on one build), and across units, runs of one prompt
that the records cannot place on one build (a factor of its own: host or build, not noise). A perturbation's
pairs cluster by a model's task (``per_cluster``): the rephrasings or faults of one task share its original run.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.memo import TableMemo
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.units import CLUSTER, unit_ids
from slmbench.vocab import ORIGINAL_VARIANT

WILSON = wilson_interval
PROMPT = ["model", "task_id", "temperature"]
"""The runs of one prompt: a model, a task and a temperature."""
PAIR_KEYS = ["model", "task_id", "temperature", "repeat"]
"""What pairs a perturbed or faulted run with the original prompt's run: the same model, task, temperature and
repeat."""


def null_control(ours: pd.DataFrame) -> pd.DataFrame:
    """Null-control reruns of unchanged prompts plus the capability run of the same tasks on the same build (its
    first repeat: with k repeats, the later ones are not the run the null control reruns)."""
    null = ours[ours["suite"] == "null_control"]
    if null.empty:
        return null
    on = [*PROMPT, "build"] if "build" in ours.columns else PROMPT
    keys = null[on].drop_duplicates()
    cap = ours[(ours["suite"] == "capability") & (ours["variant"] == ORIGINAL_VARIANT)].merge(keys)
    first = cap.groupby(on, sort=False, observed=True)["repeat"].transform("min")
    return pd.concat([null, cap[cap["repeat"] == first]], ignore_index=True)


def null_control_runs(trials: pd.DataFrame, study: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``null_control`` read on each rerun's own build: of ``study``'s trials in the primary condition's first
    run on their build (``cpu_primary``), so that the reruns pair with the capability run they repeat wherever the
    primary results read another build; and the selection that names those trials."""
    flag = "cpu_primary" if "cpu_primary" in trials.columns else "primary"
    mine = trials["study"] == study
    if flag in trials.columns:
        mine &= trials[flag].fillna(True).astype(bool)
    return null_control(trials[mine]), {"study": study, flag: True} if flag in trials.columns else {
        "study": study
    }


def _run_order(df: pd.DataFrame) -> pd.DataFrame:
    """Runs of one prompt in the order they were made: the capability run before the null-control reruns."""
    return df.assign(_rerun=df["suite"] != "capability").sort_values(["_rerun", "repeat"], kind="stable")


def _find_reruns(df: pd.DataFrame) -> pd.DataFrame:
    wanted = [*PROMPT, "suite", "repeat", "passed", "trial_id"]
    ordered = _run_order(df[[c for c in wanted if c in df]]).dropna(subset=PROMPT)
    by_prompt = ordered.groupby(PROMPT, sort=False, observed=True)
    ordered = ordered.assign(_place=by_prompt.cumcount(), _runs=by_prompt["passed"].transform("size"))
    return ordered[ordered["_runs"] >= 2].sort_values([*PROMPT, "_place"], kind="stable")


reruns = TableMemo(_find_reruns)
"""The runs of every prompt run more than once, in run order, with ``_place`` (0: its first run) and ``_runs``
(how many runs the prompt has), sorted by prompt; the rows keep the table's index. Kept while the table lives
(a model's runs are paired three or four ways)."""


def paired_runs(df: pd.DataFrame, every: bool = False) -> list[str]:
    """Trial ids of the runs that ``repeat_pairs`` pairs (the first two of each prompt), or with ``every`` those
    of every prompt run more than once."""
    runs = reruns(df)
    return (runs if every else runs[runs["_place"] < 2])["trial_id"].tolist()


def repeat_pairs(df: pd.DataFrame) -> list[tuple[bool, bool]]:
    """One outcome pair per prompt: its first two runs (pairs that share a run are not independent, so the other
    pairs of a triple are left out)."""
    runs = reruns(df)
    firsts = runs[runs["_place"] == 0]["passed"].astype(bool)
    seconds = runs[runs["_place"] == 1]["passed"].astype(bool)
    return [(bool(a), bool(b)) for a, b in zip(firsts, seconds, strict=True)]


def flip_numbers(key: str, pairs: list[tuple[bool, bool]], sel: dict[str, Any], alpha: float) -> list[Number]:
    """The share of ``pairs`` whose two outcomes differ, with its Wilson interval (``.lo .hi .k .n``; unit pairs)."""
    flips = sum(a != b for a, b in pairs)
    r = wilson_interval(flips, len(pairs), alpha)
    prov = nb.provenance(WILSON, sel, "share of paired runs whose outcome differs", unit="pairs")
    return nb.rate_numbers(key, r, prov)


def perturbed_pairs(rows: pd.DataFrame) -> pd.DataFrame:
    """Each run of ``rows`` under a variant other than the original prompt beside the original prompt's run of
    the same model, task, temperature and repeat (its ``passed_base`` and ``trial_id_base``); a run without such
    an original is left out."""
    kept = [*PAIR_KEYS, "passed", "trial_id", *(["unit_trials"] if "unit_trials" in rows.columns else [])]
    original = rows[rows["variant"] == ORIGINAL_VARIANT][kept]
    base = original.drop_duplicates(PAIR_KEYS)
    return rows[rows["variant"] != ORIGINAL_VARIANT].merge(base, on=PAIR_KEYS, suffixes=("", "_base"))


def cells(pairs: pd.DataFrame) -> tuple[int, int, int, int]:
    """The paired table of ``perturbed_pairs``: (both pass, only the original, only the variant, neither)."""
    a, b = pairs["passed_base"].astype(bool), pairs["passed"].astype(bool)
    return int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum()), int((~a & ~b).sum())


def perturbed_flip_numbers(key: str, pairs: pd.DataFrame, sel: dict[str, Any], alpha: float) -> list[Number]:
    """The share of ``perturbed_pairs`` whose variant's outcome differs from the original's, with its Wilson
    interval (``.lo .hi .k .n``; unit pairs)."""
    _, down, up, _ = cells(pairs)
    r = wilson_interval(down + up, len(pairs), alpha)
    prov = nb.provenance(
        WILSON, sel, "perturbed outcome differs from the paired original", unit="pairs", alpha=alpha
    )
    return nb.rate_numbers(key, r, prov)


SIDES = ("passed", "trial_id", "build")
"""What a pair of null-control runs keeps of each side (``_a``: the earlier run, ``_b``: the later), with the
columns its caller names (a topic names the large text columns it reads)."""


def _pair_frame(first: pd.DataFrame, second: pd.DataFrame, also: tuple[str, ...]) -> pd.DataFrame:
    """Rows of ``first`` beside those of ``second`` of the same prompt (suffixes ``_a`` and ``_b``)."""
    keep = [c for c in (*SIDES, *also) if c in first.columns]
    a = first[[*PROMPT, *keep]].rename(columns={c: f"{c}_a" for c in keep})
    b = second[[*PROMPT, *keep]].rename(columns={c: f"{c}_b" for c in keep})
    return a.merge(b, on=PROMPT, how="inner")


def _ordered_units(df: pd.DataFrame) -> pd.DataFrame:
    """``df``'s runs that have a prompt, in run order, with ``_unit`` (``analysis.units.unit_ids``), ``_place``
    (the run's place in its unit) and ``_rank`` (its unit's place among the prompt's units, by their first run)."""
    runs = _run_order(df.dropna(subset=PROMPT))
    runs = runs.assign(_unit=unit_ids(runs))
    runs = runs.assign(_place=runs.groupby("_unit", sort=False).cumcount())
    firsts = runs[runs["_place"] == 0]
    rank = firsts.groupby(PROMPT, sort=False, observed=True).cumcount()
    return runs.assign(_rank=runs["_unit"].map(pd.Series(rank.to_numpy(), index=firsts["_unit"].to_numpy())))


def unit_pairs(df: pd.DataFrame, also: tuple[str, ...] = ()) -> pd.DataFrame:
    """One pair per unit run twice or more: its first two runs, which cannot differ (same prompt, condition and
    build: the noise floor on one build). Columns: ``PROMPT`` and each of ``SIDES`` and ``also`` with ``_a`` and
    ``_b``."""
    runs = _ordered_units(df)
    first, second = runs[runs["_place"] == 0], runs[runs["_place"] == 1]
    return _pair_frame(first[first["_unit"].isin(second["_unit"])], second, also)


def across_pairs(df: pd.DataFrame, also: tuple[str, ...] = ()) -> pd.DataFrame:
    """One pair per prompt whose runs fall in two units or more: the first run of its first unit and of its
    second (in run order: the capability run first), runs that the records do not place on one build."""
    runs = _ordered_units(df)
    firsts = runs[runs["_place"] == 0]
    return _pair_frame(firsts[firsts["_rank"] == 0], firsts[firsts["_rank"] == 1], also)


def pair_ids(pairs: pd.DataFrame) -> set[str]:
    """The trial ids of both sides of ``unit_pairs`` or ``across_pairs``."""
    return {*pairs["trial_id_a"].astype(str), *pairs["trial_id_b"].astype(str)} if len(pairs) else set()


def differ(pairs: pd.DataFrame, column: str) -> pd.Series:
    """Whether the two sides of each pair differ in ``column`` (``passed``, a transcript's hash ...); a missing
    value differs from every other, as in ``repeat_pairs``' transcripts."""
    if f"{column}_a" not in pairs.columns:
        return pd.Series(True, index=pairs.index)
    a, b = pairs[f"{column}_a"], pairs[f"{column}_b"]
    return (a.astype(object) != b.astype(object)) | a.isna() | b.isna()


def per_cluster(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per cluster (``analysis.units.CLUSTER``: a model's task) of ``perturbed_pairs``: ``pairs`` (its
    perturbed runs), ``flips`` (those whose outcome differs from the original's), ``passes`` (perturbed runs
    passed) and ``original`` (the share of its pairs whose original passed: 1 or 0 where the original is one
    unit); with the shares ``flip`` and ``perturbed`` (of its perturbed runs), and ``trial_ids`` (both sides of its
    pairs)."""
    if pairs.empty:
        return pd.DataFrame(columns=[*CLUSTER, "pairs", "flips", "passes", "original", "flip", "perturbed",
                                     "trial_ids"])  # fmt: skip
    a, b = pairs["passed_base"].astype(bool), pairs["passed"].astype(bool)
    frame = pd.DataFrame({c: pairs[c].astype(str) for c in CLUSTER})
    frame = frame.assign(flip=(a != b).astype(int), ok=b.astype(int), original=a.astype(int),
                         ids=pd.Series(_pair_trials(pairs), index=pairs.index, dtype=object))  # fmt: skip
    out = frame.groupby(CLUSTER, sort=True).agg(
        pairs=("flip", "size"), flips=("flip", "sum"), passes=("ok", "sum"), original=("original", "mean"),
        trial_ids=("ids", lambda v: tuple(sorted({t for pair in v for t in pair}))),
    )  # fmt: skip
    out["flip"] = out["flips"] / out["pairs"]
    out["perturbed"] = out["passes"] / out["pairs"]
    return out.reset_index()


def _pair_trials(pairs: pd.DataFrame) -> list[tuple[str, ...]]:
    """Per pair of ``perturbed_pairs`` the trials both sides read: every repeat of each side's unit where the rows
    are units (``unit_trials``), else the two trials."""
    if {"unit_trials", "unit_trials_base"} <= set(pairs.columns):
        return [(*a, *b) for a, b in zip(pairs["unit_trials"], pairs["unit_trials_base"], strict=True)]
    return list(zip(pairs["trial_id"].astype(str), pairs["trial_id_base"].astype(str), strict=True))
