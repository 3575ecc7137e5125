"""Outcome flips between runs that should agree: reruns of an unchanged prompt (the null control, the noise
floor) and perturbed or faulted runs paired with the original prompt's run (robustness).

Shared by the topics ``reliability`` and ``reliability_taxonomy``: one definition of each pairing and of the
flip rate over the pairs.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.memo import TableMemo
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import wilson_interval
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
    original = rows[rows["variant"] == ORIGINAL_VARIANT][[*PAIR_KEYS, "passed", "trial_id"]]
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
