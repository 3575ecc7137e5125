"""Exact selections of a set of rows: the selection that picks exactly given trials of a table.

Where a topic computes on rows its selection declares (``declared.Selected``), that selection is its
provenance. Some sets of trials cannot be declared as conditions on columns: the trials of a comparison that
found a partner in the other condition (``analysis.paired``), the trials behind a set of recorded calls. For
those, ``selection_at`` starts from a declared base (which must pick them all) and adds, column by column, a
condition wherever one narrows what is selected (the values the rows hold, or an exclusion when that is
shorter); an explicit ``trial_id`` condition comes last, only when the columns cannot express the set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis.memo import TableMemo
from slmbench.analysis.selection.index import TableIndex, table_index
from slmbench.analysis.selection.language import Condition, Selection, exclude, plain, plain_values

SELECTION_COLUMNS: tuple[str, ...] = (
    "study",
    "primary",
    "comparison",
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


class _Base:
    """The rows one set of conditions selects, as positions and as a mask, and per column which codes they hold.

    Whether a column narrows a selection that has not been narrowed yet is then a question about codes, not
    rows; the rows are gathered only once a column narrows, from the rows holding the kept codes when those
    are fewer.
    """

    def __init__(self, index: TableIndex, rows: np.ndarray) -> None:
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


_bases: TableMemo[dict[str, _Base]] = TableMemo(lambda _: {})
"""Per table, the bases already asked for (a topic makes many selections from one base, e.g. one per model
from the rows of one condition)."""


def _base(index: TableIndex, conditions: list[tuple[str, Condition]]) -> _Base:
    """The rows meeting ``conditions`` with what is asked of them again (cached)."""
    table = index.table()
    held = _bases(table)
    key = repr(conditions)
    if key not in held:
        if len(held) > 64:
            held.clear()
        held[key] = _Base(index, index.rows(conditions))
    return held[key]


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
    if isinstance(trial_ids, pd.Series) and (found := table_index(trials).by_label(trial_ids)) is not None:
        return found  # a column of the table's own rows
    ids = pd.Index(trial_ids if isinstance(trial_ids, pd.Series | pd.Index) else list(trial_ids)).unique()
    return table_index(trials).positions(ids) if len(ids) else np.zeros(0, dtype=np.intp)


def holds_ids(trials: pd.DataFrame, rows: np.ndarray, trial_ids: pd.Series) -> bool:
    """Whether the rows of ``trials`` at positions ``rows`` hold ``trial_ids``, one for one."""
    return table_index(trials).holds(rows, trial_ids)


def rows_of(trials: pd.DataFrame, trial_ids: pd.Series) -> np.ndarray | None:
    """The row position in ``trials`` of each of ``trial_ids``, in their order; None when the table's trial
    ids are not unique (a position would not name one trial).

    Raises:
        ValueError: A trial id is not in the table.
    """
    return table_index(trials).aligned(trial_ids.to_numpy(dtype=object))


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
    index = table_index(trials)
    conditions = [(column, condition) for column, condition in sel.items() if column in trials.columns]
    if not index.meets(conditions, target):
        raise ValueError(f"the base selection {dict(sel)!r} leaves out some of the trials")
    held = _base(index, conditions)
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
        keep = {plain(values[c - 1]) if c > 0 else None for c in np.flatnonzero(kept)}
        drop = {plain(values[c - 1]) if c > 0 else None for c in np.flatnonzero(dropped)} - keep
        sel[column] = exclude(plain_values(drop)) if len(drop) < len(keep) else plain_values(keep)
    return sel
