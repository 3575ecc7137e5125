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

import functools
import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from slmbench.analysis.memo import TableMemo

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
    "n_tool_calls",
    "n_refusals",
)
"""Columns ``selection_for`` narrows by, in this order, before it falls back to ``trial_id`` (the call and
refusal counts last: "trials with a recorded call" is ``{"n_tool_calls": {"not": 0}}``, not a list of ids)."""


def exclude(values: Values) -> dict[str, Values]:
    """The condition "none of ``values``": ``exclude("original")`` -> ``{"not": "original"}``."""
    return {NOT: values}


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def isin(column: pd.Series, values: Iterable[Any]) -> pd.Series:
    """``column.isin(values)``, also fast for a large set of text values: pandas converts each value to an
    Arrow scalar in Python for Arrow-backed text (seconds for the ids of a million trials); here the set is
    converted in one call."""
    dtype = column.dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return column.isin(values)
    if isinstance(values, pd.Series | pd.Index):
        wanted = values.to_numpy(dtype=object)
    else:
        wanted = np.asarray(
            values if isinstance(values, list | tuple | np.ndarray) else list(values), dtype=object
        )
    text = pa.array(column.array)
    try:
        value_set = pa.array(wanted, type=text.type, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return column.isin(values)  # not all text: pandas' rules
    hit = pc.is_in(text, value_set=value_set).to_numpy(zero_copy_only=False)
    return pd.Series(np.asarray(hit, dtype=bool), index=column.index)


def _any_of(column: pd.Series, values: Values) -> pd.Series:
    wanted = values if isinstance(values, list) else [values]
    present = [v for v in wanted if not _is_missing(v)]
    hit = isin(column, present) if present else pd.Series(False, index=column.index)
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


def _arrow(column: pd.Series) -> pa.Array:
    """A text column as one Arrow array (Arrow-backed columns without a copy of their values)."""
    values = column.array
    data = values.__arrow_array__() if hasattr(values, "__arrow_array__") else None
    if data is None:
        data = pa.array(column.to_numpy(dtype=object), from_pandas=True)
    return data.combine_chunks() if isinstance(data, pa.ChunkedArray) else data


class _Index:
    """A trials table encoded once for ``selection_for``: each column as integer codes of its distinct values
    (-1 for a missing value), row positions by trial id, and the masks of conditions already met.

    A topic asks for hundreds of selections over one table; encoding it once makes each request cost the rows
    its base selection picks instead of several passes over every row.
    """

    def __init__(self, trials: pd.DataFrame) -> None:
        self.trials = weakref.ref(trials)  # the cache must not keep a table alive
        self.n = len(trials)
        self._codes: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._masks: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        self._bases: dict[str, _Base] = {}
        self._by_code: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._arrow_ids = _arrow(trials["trial_id"])
        self._unique = pc.count_distinct(self._arrow_ids, mode="all").as_py() == self.n
        index = trials.index
        self._labelled_by_position = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1

    def _table(self) -> pd.DataFrame:
        table = self.trials()
        if table is None:
            raise RuntimeError("the encoded trials table no longer exists")
        return table

    @functools.cached_property
    def _ids(self) -> np.ndarray:
        """The trial ids as Python strings (built on first use: a million of them take a second)."""
        return np.asarray(self._arrow_ids.to_numpy(zero_copy_only=False), dtype=object)

    @functools.cached_property
    def _positions(self) -> pd.Index:
        """Row positions by trial id (built on first use: most selections come from the table's own rows)."""
        return pd.Index(self._ids)

    def codes(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """The column's codes and, per code, its value (``_plain`` gives it as JSON writes it)."""
        if column not in self._codes and column == "trial_id" and self._unique:
            self._codes[column] = (np.arange(self.n), self._ids)  # already one per row
        if column not in self._codes:
            codes, uniques = pd.factorize(self._table()[column], use_na_sentinel=True)
            self._codes[column] = (np.asarray(codes), np.asarray(uniques, dtype=object))
        return self._codes[column]

    def positions(self, ids: pd.Index) -> np.ndarray:
        """Row positions of ``ids`` (every row of a duplicated id).

        Raises:
            ValueError: An id is not in the table.
        """
        if self._unique:
            found = self._positions.get_indexer(pd.Index(ids.to_numpy(dtype=object)))
            if (found < 0).any():
                raise ValueError(f"trials not in the table: {sorted(ids[found < 0])[:3]}")
            return np.sort(found)
        hit = np.flatnonzero(self._positions.isin(ids))
        if self._positions[hit].nunique() < len(ids):
            raise ValueError(f"trials not in the table: {sorted(ids.difference(self._positions))[:3]}")
        return hit

    def by_label(self, ids: pd.Series) -> np.ndarray | None:
        """Sorted distinct positions of ``ids`` taken from their index labels, where the table is labelled by
        position and every label names a row holding that id (a column of the table's own rows: no lookup of
        the ids); else None."""
        if not (self._unique and self._labelled_by_position) or not pd.api.types.is_integer_dtype(ids.index):
            return None
        labels = ids.index.to_numpy()
        if len(labels) and (labels.min() < 0 or labels.max() >= self.n):
            return None
        return np.unique(labels) if self.holds(labels, ids) else None

    def holds(self, rows: np.ndarray, ids: pd.Series) -> bool:
        """Whether the rows at positions ``rows`` hold the trial ids ``ids``, one for one."""
        held = self._arrow_ids.take(pa.array(rows, type=pa.int64()))
        return pc.all(pc.equal(held, _arrow(ids).cast(held.type)), skip_nulls=False).as_py() is True

    def aligned(self, ids: np.ndarray) -> np.ndarray | None:
        """The position of each id, in order (None when ids are not unique in the table).

        Raises:
            ValueError: An id is not in the table.
        """
        if not self._unique:
            return None
        found = self._positions.get_indexer(pd.Index(ids))
        if (found < 0).any():
            raise ValueError(f"trials not in the table: {sorted(ids[found < 0])[:3]}")
        return found

    def mask(self, column: str, condition: Condition) -> tuple[np.ndarray, np.ndarray]:
        """Rows meeting one condition, as a mask and as sorted positions (cached: a topic asks for the same
        conditions many times)."""
        key = (column, repr(condition))
        if key not in self._masks:
            if len(self._masks) > 256:
                self._masks.clear()
            mask = condition_mask(self._table()[column], condition).to_numpy(dtype=bool)
            self._masks[key] = (mask, np.flatnonzero(mask))
        return self._masks[key]

    def rows(self, conditions: list[tuple[str, Condition]]) -> np.ndarray:
        """Sorted positions of the rows meeting every condition: the fewest rows of one condition, narrowed by
        the others' masks (so a narrow selection costs its own rows, not the table's)."""
        if not conditions:
            return np.arange(self.n)
        held = [self.mask(column, condition) for column, condition in conditions]
        held.sort(key=lambda mask_rows: len(mask_rows[1]))
        rows = held[0][1]
        for mask, _ in held[1:]:
            rows = rows[mask[rows]]
        return rows

    def meets(self, conditions: list[tuple[str, Condition]], rows: np.ndarray) -> bool:
        """Whether every one of ``rows`` meets every condition."""
        return all(self.mask(column, condition)[0][rows].all() for column, condition in conditions)

    def base(self, conditions: list[tuple[str, Condition]]) -> _Base:
        """The rows meeting ``conditions`` with what is asked of them again (cached: a topic makes many
        selections from one base, e.g. one per model from the rows of one condition)."""
        key = repr(conditions)
        if key not in self._bases:
            if len(self._bases) > 64:
                self._bases.clear()
            self._bases[key] = _Base(self, self.rows(conditions))
        return self._bases[key]

    def with_codes(self, column: str, wanted: np.ndarray) -> np.ndarray:
        """Sorted positions of the rows whose code (+ 1; 0: missing) in ``column`` is one of ``wanted``."""
        if column not in self._by_code:
            codes, _ = self.codes(column)
            order = np.argsort(codes, kind="stable")
            starts = np.searchsorted(codes[order], np.arange(-1, int(codes.max(initial=-1)) + 2))
            self._by_code[column] = (order, starts)
        order, starts = self._by_code[column]
        parts = [order[starts[c] : starts[c + 1]] for c in wanted]
        return np.sort(np.concatenate(parts)) if len(parts) > 1 else parts[0]


class _Base:
    """The rows one set of conditions selects, as positions and as a mask, and per column which codes they hold.

    Whether a column narrows a selection that has not been narrowed yet is then a question about codes, not
    rows; the rows are gathered only once a column narrows, from the rows holding the kept codes when those
    are fewer.
    """

    def __init__(self, index: _Index, rows: np.ndarray) -> None:
        self.index = index
        self.rows = rows
        self.mask = np.zeros(index.n, dtype=bool)
        self.mask[rows] = True
        self._present: dict[str, np.ndarray] = {}

    def present(self, column: str) -> np.ndarray:
        """Per code + 1 (0: missing): whether one of the rows holds it."""
        if column not in self._present:
            codes, values = self.index.codes(column)
            held = np.zeros(len(values) + 1, dtype=bool)
            held[codes[self.rows] + 1] = True
            self._present[column] = held
        return self._present[column]

    def narrowed(self, column: str, kept: np.ndarray, wanted: np.ndarray) -> np.ndarray:
        """Sorted positions of the rows that hold a kept code of ``column`` and are not ``wanted``."""
        codes, _ = self.index.codes(column)
        keep = np.flatnonzero(kept & self.present(column))
        candidates = self.index.with_codes(column, keep)
        if len(candidates) > len(self.rows):
            candidates = self.rows[kept[codes[self.rows] + 1]]
        else:
            candidates = candidates[self.mask[candidates]]
        return candidates[~wanted[candidates]]


_index = TableMemo(_Index)
"""The encoded table of a trials table (built on first use; topics never change the table they select
from)."""


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
    return selection_at(trials, positions_of(trials, trial_ids), base, columns)


def positions_of(trials: pd.DataFrame, trial_ids: Iterable[str]) -> np.ndarray:
    """Sorted row positions in ``trials`` of the trials ``trial_ids`` (every row of a duplicated id).

    Raises:
        ValueError: A trial id is not in the table.
    """
    if isinstance(trial_ids, pd.Series) and (found := _index(trials).by_label(trial_ids)) is not None:
        return found  # a column of the table's own rows
    ids = pd.Index(trial_ids if isinstance(trial_ids, pd.Series | pd.Index) else list(trial_ids)).unique()
    return _index(trials).positions(ids) if len(ids) else np.zeros(0, dtype=np.intp)


def holds_ids(trials: pd.DataFrame, rows: np.ndarray, trial_ids: pd.Series) -> bool:
    """Whether the rows of ``trials`` at positions ``rows`` hold ``trial_ids``, one for one."""
    return _index(trials).holds(rows, trial_ids)


def rows_of(trials: pd.DataFrame, trial_ids: pd.Series) -> np.ndarray | None:
    """The row position in ``trials`` of each of ``trial_ids``, in their order; None when the table's trial
    ids are not unique (a position would not name one trial).

    Raises:
        ValueError: A trial id is not in the table.
    """
    return _index(trials).aligned(trial_ids.to_numpy(dtype=object))


def selection_at(
    trials: pd.DataFrame,
    target: np.ndarray,
    base: Mapping[str, Any] | None = None,
    columns: Sequence[str] = SELECTION_COLUMNS,
) -> Selection:
    """``selection_for`` the rows at sorted, distinct positions ``target`` of ``trials`` (``positions_of``
    gives them; a caller that selects several sets of the same trials finds their positions once)."""
    sel: Selection = dict(base or {})
    if len(target) == 0:
        return {**sel, "trial_id": []}
    index = _index(trials)
    conditions = [(column, condition) for column, condition in sel.items() if column in trials.columns]
    if not index.meets(conditions, target):
        raise ValueError(f"the base selection {dict(sel)!r} leaves out some of the trials")
    held = index.base(conditions)
    wanted = np.zeros(index.n, dtype=bool)
    wanted[target] = True
    extra: np.ndarray | None = None  # the selected rows that are not wanted, once a column narrowed them
    for column in (*columns, "trial_id"):
        if (len(held.rows) - len(target) if extra is None else extra.size) == 0:
            break
        if column not in trials.columns or column in sel:
            continue
        codes, values = index.codes(column)
        kept = np.zeros(len(values) + 1, dtype=bool)  # per code + 1 (0: missing)
        kept[codes[target] + 1] = True
        if extra is None:
            dropped = held.present(column) & ~kept  # every selected row holding such a code is not wanted
            if dropped.any():
                extra = held.narrowed(column, kept, wanted)
        else:
            extra_codes = codes[extra] + 1
            dropped = np.zeros_like(kept)
            dropped[extra_codes] = True
            dropped &= ~kept
            if dropped.any():
                extra = extra[kept[extra_codes]]
        if not dropped.any():
            continue
        keep = {_plain(values[c - 1]) if c > 0 else None for c in np.flatnonzero(kept)}
        drop = {_plain(values[c - 1]) if c > 0 else None for c in np.flatnonzero(dropped)} - keep
        sel[column] = exclude(_values(drop)) if len(drop) < len(keep) else _values(keep)
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
