"""The trials table's order: Arrow's sort equals pandas' stable sort, missing values (null or NaN) last."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from slmbench.tidy import sort_order

_TEXT = st.one_of(st.none(), st.sampled_from(["a", "b", "B", "é", "qwen2.5", "qwen2.5-coder", ""]))
_FLOAT = st.one_of(st.none(), st.just(float("nan")), st.sampled_from([0.0, 0.3, 0.7, 1.0, -0.0]))
_INT = st.one_of(st.none(), st.integers(min_value=0, max_value=3))
_ROW = st.tuples(_TEXT, _FLOAT, _INT, _TEXT)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ROW, max_size=40))
def test_sort_order_is_pandas_stable_sort(rows: list[tuple[object, ...]]) -> None:
    names = ["model", "temperature", "repeat", "task_id"]
    keys = pa.table(
        [
            pa.array([r[0] for r in rows], pa.string()),
            pa.array([r[1] for r in rows], pa.float64(), from_pandas=False),
            pa.array([r[2] for r in rows], pa.int64()),
            pa.array([r[3] for r in rows], pa.string()),
        ],
        names=names,
    )
    expected = keys.to_pandas().sort_values(names, kind="stable").index.to_list()
    assert sort_order(keys).to_pylist() == expected


def test_sort_order_across_chunks() -> None:
    first = pa.table({"k": ["b", None, "a"], "t": [1.0, 0.0, float("nan")]})
    second = pa.table({"k": ["a", "b"], "t": [None, 0.5]})
    keys = pa.concat_tables([first, second])
    expected = pd.concat([first.to_pandas(), second.to_pandas()], ignore_index=True)
    assert sort_order(keys).to_pylist() == expected.sort_values(["k", "t"], kind="stable").index.to_list()
