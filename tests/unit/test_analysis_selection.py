"""The selection language of provenance records: equality, any of, exclusion, exact selections of row sets."""

import math
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slmbench.analysis.selection import (
    _plain,
    _values,
    count_mismatches,
    exclude,
    ignored,
    isin,
    select_trials,
    selection_for,
    selection_mask,
)


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "trial_id": [f"t{i}" for i in range(6)],
            "model": ["a", "a", "a", "b", "b", "b"],
            "variant": ["original", "typos", "paraphrase", "original", "typos", "paraphrase"],
            "n_ctx": [4096.0, 4096.0, math.nan, 2048.0, 4096.0, math.nan],
            "outcome": ["success", "failure", "infra_error", "success", "success", "failure"],
        }
    )


def _ids(df: pd.DataFrame) -> list[str]:
    return df["trial_id"].tolist()


def test_scalar_list_and_exclusion() -> None:
    t = _table()
    assert _ids(select_trials(t, {"model": "a"})) == ["t0", "t1", "t2"]
    assert _ids(select_trials(t, {"variant": ["typos", "paraphrase"], "model": "b"})) == ["t4", "t5"]
    assert _ids(select_trials(t, {"model": "a", "variant": exclude("original")})) == ["t1", "t2"]
    assert _ids(select_trials(t, {"outcome": {"not": ["infra_error", "failure"]}})) == ["t0", "t3", "t4"]
    assert len(select_trials(t, {})) == 6


def test_null_matches_a_missing_value_and_its_exclusion_keeps_the_others() -> None:
    t = _table()
    assert _ids(select_trials(t, {"n_ctx": None})) == ["t2", "t5"]
    assert _ids(select_trials(t, {"n_ctx": [2048, None]})) == ["t2", "t3", "t5"]
    assert _ids(select_trials(t, {"n_ctx": exclude(None)})) == ["t0", "t1", "t3", "t4"]
    assert _ids(select_trials(t, {"n_ctx": exclude(4096)})) == ["t2", "t3", "t5"]


def test_a_column_the_table_lacks_is_ignored_and_listed() -> None:
    t = _table()
    assert _ids(select_trials(t, {"model": "b", "comparison": "x"})) == ["t3", "t4", "t5"]
    assert ignored(t, {"model": "b", "comparison": "x"}) == ["comparison"]


def test_a_mapping_other_than_not_is_an_error() -> None:
    with pytest.raises(ValueError, match="not"):
        select_trials(_table(), {"model": {"in": ["a"]}})


def test_selection_for_prefers_columns_and_exclusions() -> None:
    t = _table()
    assert selection_for(t, ["t1", "t2"], {"model": "a"}) == {"model": "a", "variant": exclude("original")}
    assert selection_for(t, ["t0", "t1", "t3", "t4", "t5"]) == {"outcome": exclude("infra_error")}
    assert selection_for(t, ["t0", "t1", "t2"]) == {"model": "a"}
    assert selection_for(t, _ids(t)) == {}


def test_selection_for_falls_back_to_trial_ids_only_where_columns_cannot_say_it() -> None:
    t = _table()
    sel = selection_for(t, ["t0", "t4"], columns=("model",))
    assert sel == {"trial_id": ["t0", "t4"]}
    assert _ids(select_trials(t, sel)) == ["t0", "t4"]


def test_selection_for_refuses_a_base_that_leaves_rows_out() -> None:
    with pytest.raises(ValueError, match="base selection"):
        selection_for(_table(), ["t0", "t3"], {"model": "a"})
    with pytest.raises(ValueError, match="not in the table"):
        selection_for(_table(), ["t0", "nope"])


_cell = st.sampled_from(["x", "y", "z", None])


@st.composite
def _tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(min_value=1, max_value=12))
    cols = {c: draw(st.lists(_cell, min_size=n, max_size=n)) for c in ("a", "b")}
    num = draw(st.lists(st.sampled_from([0.0, 0.7, math.nan]), min_size=n, max_size=n))
    return pd.DataFrame({"trial_id": [f"t{i}" for i in range(n)], **cols, "temperature": num})


@settings(max_examples=60, deadline=None)
@given(_tables(), st.lists(_cell, min_size=1, max_size=3, unique=True))
def test_a_condition_and_its_exclusion_split_the_table(t: pd.DataFrame, values: list[str | None]) -> None:
    value = values if len(values) > 1 else values[0]
    inside = selection_mask(t, {"a": value})
    outside = selection_mask(t, {"a": exclude(value)})
    assert (inside ^ outside).all()


@settings(max_examples=60, deadline=None)
@given(_tables(), st.data())
def test_selection_for_picks_exactly_the_rows_it_was_given(t: pd.DataFrame, data: st.DataObject) -> None:
    chosen = data.draw(st.lists(st.sampled_from(_ids(t)), unique=True))
    sel = selection_for(t, chosen, columns=("a", "b", "temperature"))
    assert sorted(_ids(select_trials(t, sel))) == sorted(chosen)


def _narrowed_by_hand(
    t: pd.DataFrame, chosen: list[str], base: dict[str, Any], columns: tuple[str, ...]
) -> dict[str, Any]:
    """What ``selection_for`` promises, row by row in pandas: from the base, each column in turn gets a condition
    where it leaves out rows the others kept (the kept values, or the exclusion when shorter)."""
    sel = dict(base)
    target = t[t["trial_id"].isin(chosen)]
    extra = select_trials(t, base)
    extra = extra[~extra["trial_id"].isin(chosen)]
    for column in (*columns, "trial_id"):
        if extra.empty:
            break
        if column in sel:
            continue
        keep = {_plain(v) for v in target[column]}
        drop = {_plain(v) for v in extra[column]} - keep
        if not drop:
            continue
        sel[column] = exclude(_values(drop)) if len(drop) < len(keep) else _values(keep)
        extra = extra[[_plain(v) in keep for v in extra[column]]]
    return sel


@settings(max_examples=80, deadline=None)
@given(_tables(), st.data())
def test_selections_from_one_base_agree_with_narrowing_by_hand(t: pd.DataFrame, data: st.DataObject) -> None:
    """Several selections from one base (its rows and codes are kept between them) give what narrowing the
    rows by hand gives."""
    columns = ("a", "b", "temperature")
    for _ in range(3):
        chosen = data.draw(st.lists(st.sampled_from(_ids(t)), min_size=1, unique=True))
        held = sorted({_plain(v) for v in t.loc[t["trial_id"].isin(chosen), "b"]}, key=str)
        base = {"b": held if len(held) > 1 else held[0]}
        assert selection_for(t, chosen, base, columns) == _narrowed_by_hand(t, chosen, base, columns)


def test_count_mismatches_reports_a_selection_that_picks_other_trials_than_n() -> None:
    t = _table()

    def num(key: str, value: object, sel: dict[str, object], unit: str = "trials") -> dict[str, object]:
        return {"key": key, "value": value, "provenance": {"selection": sel, "unit": unit}}

    numbers = [
        num("ok", 0.5, {"model": "a", "variant": exclude("original")}),
        num("ok.n", 2, {}),
        num("bad", 0.5, {"model": "a"}),
        num("bad.n", 2, {}),
        num("pairs", 0.5, {"model": "a"}, unit="pairs"),
        num("pairs.n", 1, {}),
        num("lonely", 0.5, {"model": "a"}),
    ]
    assert count_mismatches(numbers, t) == ["audit selects 3 trials, n is 2: bad"]


_TEXT = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "é", ""]))


@settings(max_examples=200, deadline=None)
@given(
    column=st.lists(_TEXT, max_size=12),
    values=st.lists(st.one_of(_TEXT, st.integers(0, 2)), max_size=6),
    as_series=st.booleans(),
)
def test_isin_agrees_with_pandas_on_arrow_text(
    column: list[str | None], values: list, as_series: bool
) -> None:
    text = pd.Series(column, dtype="str")
    assert text.dtype.storage == "pyarrow"  # the case the fast path serves
    given_values = pd.Series(values, dtype=object) if as_series else values
    assert isin(text, given_values).tolist() == text.isin(values).tolist()
    assert isin(text, given_values).index.equals(text.index)


def test_isin_leaves_other_columns_to_pandas() -> None:
    numbers = pd.Series([1.0, math.nan, 2.0])
    assert isin(numbers, [2.0]).tolist() == [False, False, True]


def test_a_column_of_the_tables_own_rows_is_found_by_its_labels_with_the_same_positions() -> None:
    """``positions_of`` takes a column of the table's own rows by its index labels (checked against the ids);
    a series whose labels name other rows, or a table not labelled by position, falls back to the ids."""
    from slmbench.analysis.selection import _index, positions_of

    t = _table()
    part = t[t["model"] == "b"]["trial_id"]
    assert _index(t).by_label(part) is not None
    assert positions_of(t, part).tolist() == [3, 4, 5] == positions_of(t, part.tolist()).tolist()
    relabelled = part.reset_index(drop=True)  # labels 0..2 name rows of other trials
    assert _index(t).by_label(relabelled) is None
    assert positions_of(t, relabelled).tolist() == [3, 4, 5]
    shifted = t.set_axis(range(10, 16))
    assert _index(shifted).by_label(shifted["trial_id"].iloc[:2]) is None
    assert positions_of(shifted, shifted["trial_id"].iloc[:2]).tolist() == [0, 1]
    assert selection_for(t, part) == selection_for(t, part.tolist())
