"""The trial table's data: one row per trial of the tidy table, dictionary-encoded for 20,000 trials.

The browser filters, sorts and pages this table without loading any transcript. Categorical columns hold a
code into their list of values (``null`` where the trial has none), so a row is a short list of integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from slmbench.site.encode import plain
from slmbench.vocab import FAILURE_CLASSES, OUTCOMES, PARSER_MODES, SCAFFOLDS

FILTERS: tuple[tuple[str, str], ...] = (
    ("model", "model"),
    ("task_id", "task"),
    ("suite", "suite"),
    ("outcome", "outcome"),
    ("failure_class", "failure class"),
    ("scaffold", "scaffold"),
    ("parser_mode", "parser mode"),
    ("protocol", "protocol"),
    ("temperature", "temperature"),
    ("variant", "variant"),
    ("study", "study"),
)
"""The columns a reviewer filters the trial table by, with their labels (in the order shown)."""

COUNTS: tuple[tuple[str, str], ...] = (
    ("turns", "turns"),
    ("n_tool_calls", "calls"),
    ("n_refusals", "refusals"),
)
"""Numeric columns shown in the table."""

_ORDER: dict[str, tuple[str, ...]] = {
    "outcome": OUTCOMES,
    "failure_class": FAILURE_CLASSES,
    "scaffold": SCAFFOLDS,
    "parser_mode": PARSER_MODES,
}


@dataclass(frozen=True)
class TrialIndex:
    """The encoded table: ``doc`` is what ``data/index.js`` holds."""

    doc: dict[str, Any]
    n_rows: int


def _values(column: str, series: pd.Series) -> list[Any]:
    present = [plain(v) for v in series.dropna().unique()]
    present = [v for v in present if v is not None]
    order = _ORDER.get(column, ())
    known = [v for v in order if v in present]
    rest = sorted((v for v in present if v not in order), key=lambda v: (not isinstance(v, int | float), v))
    return known + rest


def _codes(series: pd.Series, values: list[Any]) -> list[int | None]:
    lookup = {v: i for i, v in enumerate(values)}
    return [None if plain(v) is None else lookup[plain(v)] for v in series.tolist()]


def trial_index(trials: pd.DataFrame, shard_of: list[str | None], shards: list[dict[str, Any]]) -> TrialIndex:
    """Encode ``trials`` (in row order) with each row's transcript shard id (``None``: no transcript)."""
    if len(shard_of) != len(trials):
        raise ValueError(f"{len(shard_of)} shard ids for {len(trials)} trials")
    trials = trials.reset_index(drop=True)
    categorical: dict[str, list[Any]] = {}
    columns: list[list[Any]] = [[plain(v) for v in trials["trial_id"].tolist()]]
    names = ["trial_id"]
    for column, _ in FILTERS:
        series = trials[column] if column in trials.columns else pd.Series([None] * len(trials))
        categorical[column] = _values(column, series)
        columns.append(_codes(series, categorical[column]))
        names.append(column)
    shard_values = [s["id"] for s in shards]
    categorical["shard"] = shard_values
    lookup = {s: i for i, s in enumerate(shard_values)}
    columns.append([None if s is None else lookup[s] for s in shard_of])
    names.append("shard")
    for column, _ in COUNTS:
        series = trials[column] if column in trials.columns else pd.Series([None] * len(trials))
        columns.append([None if plain(v) is None else int(v) for v in series.tolist()])
        names.append(column)
    rows = [list(r) for r in zip(*columns, strict=True)] if len(trials) else []
    doc = {
        "version": 1,
        "columns": names,
        "categorical": categorical,
        "filters": [[c, label] for c, label in FILTERS],
        "counts": [[c, label] for c, label in COUNTS],
        "shards": shards,
        "rows": rows,
    }
    return TrialIndex(doc=doc, n_rows=len(trials))
