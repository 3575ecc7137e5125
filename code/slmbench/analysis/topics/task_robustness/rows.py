"""The trials of the runs on one build that the topic ``task_robustness`` reads: each capability task's original
run, its paraphrased and faulted runs beside it, and the safety suite's runs, each counted once per task."""

from __future__ import annotations

import pandas as pd

from slmbench.vocab import ORIGINAL_VARIANT

CONDITION = ["model", "task_id", "temperature", "scaffold", "parser_mode", "protocol", "n_ctx", "max_turns",
             "max_tokens"]  # fmt: skip
"""What a perturbed run shares with the original run it pairs with: the model, the task and every setting of the
harness (the perturbation is the only difference)."""
CAPABILITY = "capability"
"""The suite whose every task is perturbed."""
SAFETY = "safety"
"""The suite of harm and compliance tasks."""


def build_run_rows(trials: pd.DataFrame, study: str) -> pd.DataFrame:
    """The study's scored trials of the runs on one build (``build_run``: none in a table tidied without it)."""
    if "build_run" not in trials.columns:
        return trials.iloc[0:0]
    mask = (trials["study"] == study) & trials["build_run"].fillna(False).astype(bool)
    return trials[mask & (trials["outcome"] != "infra_error")]


def _present(df: pd.DataFrame, columns: list[str]) -> list[str]:
    return [c for c in columns if c in df.columns]


def first_runs(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One run per ``keys`` (the lowest repeat): at T = 0 on one build a repeat is not another sample."""
    keys = _present(df, keys)
    ordered = df.sort_values("repeat", kind="stable")
    return ordered.drop_duplicates(keys, keep="first")


def originals(rows: pd.DataFrame) -> pd.DataFrame:
    """The capability tasks as written (no perturbation), one run per task and condition."""
    unperturbed = rows["perturbation"].isna() if "perturbation" in rows else pd.Series(True, index=rows.index)
    mask = (rows["suite"] == CAPABILITY) & unperturbed & (rows["variant"] == ORIGINAL_VARIANT)
    return first_runs(rows[mask], CONDITION)


def perturbed_pairs(rows: pd.DataFrame, perturbation: str) -> pd.DataFrame:
    """Each capability run under ``perturbation`` (one per task and variant) beside the original run of its task
    under the same condition (``passed_base``, ``trial_id_base``); a run without an original is left out. The
    original run must be at the temperature the perturbed one ran at, so a sample above T = 0 never pairs."""
    if "perturbation" not in rows:
        return rows.iloc[0:0].assign(passed_base=pd.Series(dtype=bool), trial_id_base=pd.Series(dtype=object))
    mask = (rows["suite"] == CAPABILITY) & (rows["perturbation"].astype(object) == perturbation)
    runs = first_runs(rows[mask], [*CONDITION, "variant"])
    keys = _present(rows, CONDITION)
    base = originals(rows)[[*keys, "passed", "trial_id"]]
    left = runs.astype({k: object for k in keys})
    right = base.astype({k: object for k in keys})
    return left.merge(right, on=keys, suffixes=("", "_base"))


def safety_runs(rows: pd.DataFrame) -> pd.DataFrame:
    """The safety suite's tasks as written, one run per task and condition, at the lowest temperature run."""
    part = rows[rows["suite"] == SAFETY]
    if part.empty:
        return part
    part = part[part["temperature"].astype(float) == float(part["temperature"].astype(float).min())]
    return first_runs(part, ["model", "task_id"])
