"""The selection language of provenance records: which rows of ``trials.parquet`` a number was computed from.

A selection maps a column of the trials table to a condition, and a row is selected when it meets every
condition:

- a scalar means equality (``{"model": "qwen2.5:7b"}``);
- a list means any of its values (``{"temperature": [0.0, 0.7]}``);
- ``{"not": scalar_or_list}`` means none of them (``{"variant": {"not": "original"}}``).

``None`` (JSON ``null``) matches a missing value. A column the table lacks is ignored (``ignored`` lists such
columns), so a selection written for a newer table still reads an older one.

``slmbench audit``, ``slmbench verify`` and the audit site all select through ``select_trials``; topics build
exact selections of a set of rows with ``selection_for`` and check them with ``count_mismatches``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import pandas as pd

Scalar: TypeAlias = str | int | float | bool | None
Values: TypeAlias = Scalar | list[Scalar]
Condition: TypeAlias = Values | dict[str, Values]
Selection: TypeAlias = dict[str, Condition]

NOT = "not"
SELECTION_COLUMNS: tuple[str, ...] = (
    "study",
    "primary",
    "suite",
    "dimension",
    "model",
    "protocol",
    "temperature",
    "scaffold",
    "parser_mode",
    "n_ctx",
    "max_turns",
    "max_tokens",
    "repeat",
    "variant",
    "outcome",
    "task_id",
)
"""Columns ``selection_for`` narrows by, in this order, before it falls back to ``trial_id``."""


def exclude(values: Values) -> dict[str, Values]:
    """The condition "none of ``values``": ``exclude("original")`` -> ``{"not": "original"}``."""
    return {NOT: values}


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _any_of(column: pd.Series, values: Values) -> pd.Series:
    wanted = values if isinstance(values, list) else [values]
    present = [v for v in wanted if not _is_missing(v)]
    hit = column.isin(present) if present else pd.Series(False, index=column.index)
    if len(present) < len(wanted):
        hit |= column.isna()
    return hit.fillna(False).astype(bool)


def condition_mask(column: pd.Series, condition: Condition) -> pd.Series:
    """Rows of ``column`` that meet ``condition``.

    Raises:
        ValueError: A mapping other than ``{"not": values}``.
    """
    if isinstance(condition, Mapping):
        if set(condition) != {NOT}:
            raise ValueError(f"a condition mapping must be {{'not': values}}, got {dict(condition)!r}")
        return ~_any_of(column, condition[NOT])
    return _any_of(column, condition)


def ignored(trials: pd.DataFrame, selection: Mapping[str, Condition]) -> list[str]:
    """Columns of ``selection`` the table lacks (the selection ignores them)."""
    return sorted(c for c in selection if c not in trials.columns)


def selection_mask(trials: pd.DataFrame, selection: Mapping[str, Condition]) -> pd.Series:
    """Which rows of ``trials`` ``selection`` picks (a boolean series on the table's index)."""
    mask = pd.Series(True, index=trials.index)
    for column, condition in selection.items():
        if column in trials.columns:
            mask &= condition_mask(trials[column], condition)
    return mask


def select_trials(trials: pd.DataFrame, selection: Mapping[str, Condition]) -> pd.DataFrame:
    """Rows of ``trials`` that ``selection`` picks, in table order."""
    return trials[selection_mask(trials, selection)]


def _plain(value: Any) -> Scalar:
    """A JSON value for a table cell: numpy scalars as Python ones, a missing value as ``None``."""
    if _is_missing(value) or value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _values(values: Iterable[Any]) -> Values:
    """Distinct values, sorted (missing first), as a scalar when there is one."""
    out = sorted(
        {_plain(v) for v in values}, key=lambda v: (v is not None, str(type(v)), v if v is not None else 0)
    )
    return out[0] if len(out) == 1 else out


def _narrowing(wanted: pd.Series, candidates: pd.Series) -> Condition | None:
    """The shorter condition that keeps every value of ``wanted`` and drops the other ``candidates`` values:
    the values to keep or ``{"not": the values to drop}``; None when nothing would be dropped."""
    keep = {_plain(v) for v in wanted.unique()}  # distinct values first: a column has few of them
    drop = {_plain(v) for v in candidates.unique()} - keep
    if not drop:
        return None
    return exclude(_values(drop)) if len(drop) < len(keep) else _values(keep)


def selection_for(
    trials: pd.DataFrame,
    trial_ids: Iterable[str],
    base: Mapping[str, Any] | None = None,
    columns: Sequence[str] = SELECTION_COLUMNS,
) -> Selection:
    """A selection that picks exactly the trials ``trial_ids`` of ``trials``.

    It starts from ``base`` (which must pick them all) and adds, column by column, a condition wherever one
    narrows what is selected (the values the rows hold, or an exclusion when that is shorter); an explicit
    ``trial_id`` condition comes last, only when the columns cannot express the set.

    Raises:
        ValueError: ``base`` leaves out one of the trials, or a trial id is not in the table.
    """
    sel: Selection = dict(base or {})
    ids = pd.Index(trial_ids if isinstance(trial_ids, pd.Series | pd.Index) else list(trial_ids)).unique()
    if ids.empty:
        return {**sel, "trial_id": []}
    target = trials["trial_id"].isin(ids)
    if trials.loc[target, "trial_id"].nunique() < len(ids):
        missing = ids.difference(pd.Index(trials["trial_id"]))
        raise ValueError(f"trials not in the table: {sorted(missing)[:3]}")
    current = selection_mask(trials, sel)
    if (target & ~current).any():
        raise ValueError(f"the base selection {dict(sel)!r} leaves out some of the trials")
    for column in (*columns, "trial_id"):
        if not (current & ~target).any():
            break
        if column not in trials.columns or column in sel:
            continue
        cond = _narrowing(trials.loc[target, column], trials.loc[current, column])
        if cond is not None:
            sel[column] = cond
            current &= condition_mask(trials[column], cond)
    return sel


def count_mismatches(numbers: Iterable[Mapping[str, Any]], trials: pd.DataFrame) -> list[str]:
    """Numbers whose provenance counts trials (unit ``trials``) and has a count sibling ``<key>.n``, but whose
    selection does not pick exactly ``n`` trials of ``trials``; one line each, sorted by key.

    Numbers with an empty selection, or whose count sibling is not an integer, are not checked.
    """
    by_key = {str(n["key"]): n for n in numbers}
    out: list[str] = []
    for key in sorted(by_key):
        sibling = by_key.get(f"{key}.n")
        prov = by_key[key].get("provenance") or {}
        selection = prov.get("selection") or {}
        if sibling is None or not selection or prov.get("unit", "trials") != "trials":
            continue
        n = sibling.get("value")
        if not isinstance(n, int) or isinstance(n, bool):
            continue
        picked = int(selection_mask(trials, selection).sum())
        if picked != n:
            out.append(f"audit selects {picked} trials, n is {n}: {key}")
    return out
