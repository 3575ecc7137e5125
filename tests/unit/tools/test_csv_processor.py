"""Tests for the csv_processor tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.csv_processor import CsvProcessor

SALES = "region,amount,rep\nNorth,120,Ann\nSouth,80,Bo\nNorth,40,Cy\nEast,200.5,Di\nSouth,,Ed\n"


@pytest.fixture
def csv(tmp_path: Path) -> CsvProcessor:
    rows = "n\n" + "".join(f"{i}\n" for i in range(60))
    return CsvProcessor(
        ToolContext(workdir=tmp_path, state={"files": {"sales.csv": SALES, "data/many.csv": rows}})
    )


@pytest.mark.parametrize(
    ("operation", "extra", "expected"),
    [
        ("sum", {}, 440.5),
        ("mean", {}, 110.125),
        ("min", {}, 40.0),
        ("max", {}, 200.5),
        ("count", {}, 4.0),
        ("sum", {"where": "region == North"}, 160.0),
        ("sum", {"where": "amount > 100"}, 320.5),
        ("sum", {"where": "amount <= 80"}, 120.0),
        ("sum", {"where": "region != 'North'"}, 280.5),
        ("sum", {"where": "region == Nowhere"}, 0.0),
    ],
)
def test_aggregates_are_floats(
    csv: CsvProcessor, operation: str, extra: dict[str, str], expected: float
) -> None:
    result = csv.call({"file": "sales.csv", "operation": operation, "column": "amount", **extra})
    assert result.ok, result.error
    assert result.content == {"result": expected}
    assert isinstance(result.content["result"], float)


def test_count_rows_without_column(csv: CsvProcessor) -> None:
    assert csv.call({"file": "sales.csv", "operation": "count"}).content == {"result": 5.0}
    assert csv.call({"file": "sales.csv", "operation": "count", "where": "region == South"}).content == {
        "result": 2.0
    }


def test_filter_returns_records(csv: CsvProcessor) -> None:
    content = csv.call({"file": "sales.csv", "operation": "filter", "where": "region == North"}).content
    assert content == {
        "rows": [
            {"region": "North", "amount": 120.0, "rep": "Ann"},
            {"region": "North", "amount": 40.0, "rep": "Cy"},
        ],
        "total_rows": 2,
        "truncated": False,
    }


def test_sort_and_cap(csv: CsvProcessor) -> None:
    content = csv.call(
        {"file": "sales.csv", "operation": "sort", "column": "amount", "descending": True}
    ).content
    assert [row["rep"] for row in content["rows"]] == ["Di", "Ann", "Bo", "Cy", "Ed"]
    many = csv.call({"file": "data/many.csv", "operation": "sort", "column": "n", "descending": True}).content
    assert len(many["rows"]) == 50 and many["truncated"] and many["total_rows"] == 60
    assert many["rows"][0] == {"n": 59}


def test_group_sum(csv: CsvProcessor) -> None:
    result = csv.call({"file": "sales.csv", "operation": "group_sum", "column": "amount", "by": "region"})
    assert result.content == {"result": {"East": 200.5, "North": 160.0, "South": 80.0}}


def test_column_names_are_forgiving_about_case(csv: CsvProcessor) -> None:
    assert csv.call({"file": "sales.csv", "operation": "sum", "column": "Amount"}).content == {
        "result": 440.5
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"file": "nope.csv", "operation": "sum", "column": "amount"}, "no file"),
        ({"file": "../sales.csv", "operation": "sum", "column": "amount"}, "path outside the sandbox"),
        ({"file": "/etc/passwd", "operation": "count"}, "path outside the sandbox"),
        ({"file": "sales.csv", "operation": "sum", "column": "price"}, "no column 'price'"),
        ({"file": "sales.csv", "operation": "sum", "column": "region"}, "not numeric"),
        ({"file": "sales.csv", "operation": "sum"}, "needs 'column'"),
        ({"file": "sales.csv", "operation": "filter"}, "needs 'where'"),
        ({"file": "sales.csv", "operation": "filter", "where": "region is North"}, "where must look like"),
        ({"file": "sales.csv", "operation": "filter", "where": "region > North"}, "needs a number"),
        ({"file": "sales.csv", "operation": "group_sum", "column": "amount"}, "'by'"),
        ({"file": "sales.csv", "operation": "median", "column": "amount"}, "must be one of"),
        (
            {"file": "sales.csv", "operation": "sort", "column": "amount", "descending": "yes"},
            "true or false",
        ),
    ],
)
def test_errors(csv: CsvProcessor, arguments: dict[str, object], message: str) -> None:
    result = csv.call(arguments)
    assert not result.ok
    assert message in result.error


def test_snapshot_records_operations_and_is_deterministic(tmp_path: Path) -> None:
    outputs = []
    for index in range(2):
        workdir = tmp_path / str(index)
        workdir.mkdir()
        tool = CsvProcessor(ToolContext(workdir=workdir, state={"files": {"sales.csv": SALES}}))
        outputs.append(tool.call({"file": "sales.csv", "operation": "mean", "column": "amount"}).content)
        tool.call({"operation": "sum", "file": "missing.csv", "column": "x"})
        assert tool.snapshot() == {
            "operations": [
                {"column": "amount", "file": "sales.csv", "operation": "mean"},
                {"column": "x", "file": "missing.csv", "operation": "sum"},
            ]
        }
    assert outputs[0] == outputs[1]
