"""Tests for the data_query tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.data_query import DataQuery, statement_kind

DATABASE: dict[str, Any] = {
    "tables": {
        "orders": {
            "columns": [["id", "INTEGER"], ["item", "TEXT"], ["qty", "INTEGER"], ["price", "REAL"]],
            "rows": [[2, "pen", 5, 1.5], [1, "book", 1, 12.0], [3, "ink", None, 4.25]],
        },
        "numbers": {"columns": [["n", "INTEGER"]], "rows": [[i] for i in range(120)]},
    }
}


@pytest.fixture
def db(tmp_path: Path) -> DataQuery:
    return DataQuery(ToolContext(workdir=tmp_path, state={"database": DATABASE}))


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("SELECT 1", "select"),
        ("  -- note\n/* c */ select 1", "select"),
        ("insert into t values (1)", "insert"),
        ("REPLACE INTO t VALUES (1)", "insert"),
        ("WITH x AS (SELECT 1) SELECT * FROM x", "select"),
        ("WITH x AS (SELECT 1) DELETE FROM t WHERE a IN x", "delete"),
        ("WITH x AS (SELECT 'update') SELECT * FROM x", "select"),
        ("drop table t", "drop"),
    ],
)
def test_statement_kind(sql: str, kind: str) -> None:
    assert statement_kind(sql) == kind


def test_select(db: DataQuery) -> None:
    result = db.call({"sql": "SELECT item, qty FROM orders ORDER BY id", "kind": "select"})
    assert result.ok
    assert result.content == {"columns": ["item", "qty"], "rows": [["book", 1], ["pen", 5], ["ink", None]],
                              "truncated": False}  # fmt: skip


def test_select_is_capped_and_says_so(db: DataQuery) -> None:
    content = db.call({"sql": "SELECT n FROM numbers ORDER BY n", "kind": "select"}).content
    assert len(content["rows"]) == 50 and content["truncated"] and "50" in content["note"]


def test_writes_report_rows_affected_and_persist(db: DataQuery) -> None:
    assert db.call({"sql": "INSERT INTO orders VALUES (4, 'cap', 2, 3.0)", "kind": "insert"}).content == {
        "rows_affected": 1
    }
    assert db.call({"sql": "UPDATE orders SET qty = 0 WHERE qty IS NULL", "kind": "update"}).content == {
        "rows_affected": 1
    }
    assert db.call({"sql": "DELETE FROM orders WHERE id = 2", "kind": "delete"}).content == {
        "rows_affected": 1
    }
    rows = db.snapshot()["tables"]["orders"]["rows"]
    assert rows == [[1, "book", 1, 12.0], [3, "ink", 0, 4.25], [4, "cap", 2, 3.0]]


def test_kind_mismatch_is_refused_without_running(db: DataQuery) -> None:
    result = db.call({"sql": "DELETE FROM orders", "kind": "select"})
    assert not result.ok
    assert result.error == "kind 'select' does not match the statement (delete)"
    assert len(db.snapshot()["tables"]["orders"]["rows"]) == 3


@pytest.mark.parametrize(
    ("sql", "kind", "message"),
    [
        ("SELECT 1; DELETE FROM orders", "select", "one statement"),
        ("DROP TABLE orders", "delete", "only select, insert, update and delete"),
        ("ATTACH DATABASE '/tmp/x.db' AS x", "select", "only select"),
        ("SELECT * FROM missing", "select", "no such table"),
        ("SELEC 1", "select", "only select"),
        ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", "select",
         "work limit"),
    ],
)  # fmt: skip
def test_errors(db: DataQuery, sql: str, kind: str, message: str) -> None:
    result = db.call({"sql": sql, "kind": kind})
    assert not result.ok
    assert message in result.error
    assert len(db.snapshot()["tables"]["orders"]["rows"]) == 3


def test_snapshot_round_trips_initial_state(db: DataQuery) -> None:
    snap = db.snapshot()["tables"]
    assert snap["orders"]["columns"] == DATABASE["tables"]["orders"]["columns"]
    assert snap["orders"]["rows"] == sorted(DATABASE["tables"]["orders"]["rows"])
    assert set(snap) == {"orders", "numbers"}


def test_fresh_state_per_instance(tmp_path: Path) -> None:
    first = DataQuery(ToolContext(workdir=tmp_path, state={"database": DATABASE}))
    first.call({"sql": "DELETE FROM orders", "kind": "delete"})
    second = DataQuery(ToolContext(workdir=tmp_path, state={"database": DATABASE}))
    assert len(second.snapshot()["tables"]["orders"]["rows"]) == 3
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    assert DataQuery(ToolContext(workdir=empty_dir)).snapshot() == {"tables": {}}
