"""Values derived from a table once and kept while the table lives: a topic asks the same questions of one
trials table many times."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

import pandas as pd

T = TypeVar("T")


class TableMemo(Generic[T]):
    """``build(table)``, computed once per table and kept while the table lives.

    Keyed by the table's identity and checked against a weak reference (a new table that happens to reuse a
    freed table's id is not mistaken for it) and against its length (a table grown or cut in place is built
    again); entries of tables that no longer exist are dropped when a new one is built.
    """

    def __init__(self, build: Callable[[pd.DataFrame], T]) -> None:
        self._build = build
        self._held: dict[int, tuple[weakref.ref[pd.DataFrame], int, T]] = {}

    def __call__(self, table: pd.DataFrame) -> T:
        held = self._held.get(id(table))
        if held is None or held[0]() is not table or held[1] != len(table):
            for stale in [k for k, (ref, _, _) in self._held.items() if ref() is None]:
                del self._held[stale]
            held = self._held[id(table)] = (weakref.ref(table), len(table), self._build(table))
        return held[2]
