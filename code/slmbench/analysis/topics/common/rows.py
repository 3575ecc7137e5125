"""Which rows count: each study's primary condition, scored trials, and counts and model facts over rows."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis.selection import Selection, exclude

CONDITION_COLUMNS: tuple[str, ...] = ("protocol", "max_turns", "max_tokens")
"""Harness conditions a paired comparison holds fixed on both sides (beside scaffold, parser mode, n_ctx)."""


def primary_only(trials: pd.DataFrame) -> pd.DataFrame:
    """Rows of each study's primary condition (comparison shards left out).

    A table without the ``primary`` column (written before comparison shards existed) is all primary.
    """
    return trials[_primary_mask(trials)]


def _primary_mask(trials: pd.DataFrame) -> pd.Series:
    if "primary" not in trials.columns:
        return pd.Series(True, index=trials.index)
    return trials["primary"].fillna(True).astype(bool)


def primary_rows(trials: pd.DataFrame, study: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Trials of ``study`` in its primary condition and the selection that names them (one copy of the rows:
    each copy of a million rows costs a second)."""
    return trials[(trials["study"] == study) & _primary_mask(trials)], {"study": study, "primary": True}


def pairs_within(df: pd.DataFrame, columns: list[str]) -> int:
    """How many pairs of rows agree on every one of ``columns`` (a missing value agrees with a missing one)."""
    if df.empty:
        return 0
    n = df.groupby(columns, sort=False, observed=True, dropna=False).size().to_numpy()
    return int((n * (n - 1) // 2).sum())


def scored(df: pd.DataFrame) -> pd.DataFrame:
    """Rows that count toward a model's score (infra errors excluded)."""
    return df[df["outcome"] != "infra_error"]


SCORED: Selection = {"outcome": exclude("infra_error")}
"""The selection that ``scored`` applies: add it to the selection of rows before scoring them."""


def counts_by(df: pd.DataFrame, *cols: str) -> dict[Any, tuple[int, int]]:
    """``(successes, trials)`` per value of ``cols`` over scored rows."""
    out: dict[Any, tuple[int, int]] = {}
    for key, part in scored(df).groupby(list(cols), sort=True):
        k = key[0] if len(cols) == 1 else key
        out[k] = (int(part["passed"].astype(bool).sum()), len(part))
    return out


def model_info(df: pd.DataFrame) -> pd.DataFrame:
    """One row per model: ``params_b`` and ``is_base``."""
    info = df.groupby("model", sort=True).agg(params_b=("params_b", "first"), is_base=("is_base", "first"))
    info["is_base"] = info["is_base"].fillna(False).astype(bool)
    return info


def models_table(df: pd.DataFrame) -> list[dict[str, Any]]:
    """One row per model of ``df``: its name, size and kind (a table sorts its rows by size from these)."""
    info = model_info(df)
    return [
        {
            "model": str(m),
            "params_b": json_float(info.loc[m, "params_b"]),
            "is_base": bool(info.loc[m, "is_base"]),
        }
        for m in info.index
    ]


def json_float(v: Any) -> float | None:
    """A JSON-safe float (``None`` for missing or non-finite)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def estimate_parts(estimate: float, lo: float, hi: float) -> list[tuple[str, float]]:
    """A point estimate and its interval as (key suffix, value): ``""``, ``".lo"``, ``".hi"``."""
    return [("", estimate), (".lo", lo), (".hi", hi)]
