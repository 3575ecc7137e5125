"""``csv_processor``: aggregate, filter and sort a CSV file from the files root with pandas."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pandas as pd

from slmbench.tools.arguments import ArgumentError, get_bool, get_choice, get_str, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool
from slmbench.tools.files import files_root, resolve

logger = logging.getLogger(__name__)

OPERATIONS = ("sum", "mean", "min", "max", "count", "filter", "sort", "group_sum")
MAX_ROWS = 50
_WHERE = re.compile(r"^\s*(?P<column>.+?)\s*(?P<op>==|!=|>=|<=|>|<)\s*(?P<value>.*?)\s*$")
_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}


def find_column(frame: pd.DataFrame, name: str) -> str:
    """The column called ``name`` (exactly, else case-insensitively)."""
    columns = [str(c) for c in frame.columns]
    if name in columns:
        return name
    folded = [c for c in columns if c.strip().casefold() == name.strip().casefold()]
    if len(folded) == 1:
        return folded[0]
    raise ArgumentError(f"no column {name!r} (columns: {', '.join(columns)})")


def numeric(frame: pd.DataFrame, column: str) -> pd.Series:
    """The column as numbers; raises if none of its values are numeric."""
    values = pd.to_numeric(frame[column], errors="coerce")
    if len(values) and values.isna().all():
        raise ArgumentError(f"column {column!r} is not numeric")
    return values


def apply_where(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    """Rows matching ``"<column> <op> <value>"`` with op one of == != > < >= <=."""
    match = _WHERE.match(where)
    if not match:
        raise ArgumentError(f"where must look like 'column == value' or 'amount > 100' (got {where!r})")
    column = find_column(frame, match["column"].strip("'\"` "))
    op, raw = match["op"], match["value"].strip().strip("'\"")
    try:
        number: float | None = float(raw)
    except ValueError:
        number = None
    ordering = op in (">", "<", ">=", "<=")
    if number is not None and (ordering or _is_numeric(frame, column)):
        mask = _COMPARE[op](pd.to_numeric(frame[column], errors="coerce"), number)
    elif not ordering:
        mask = _COMPARE[op](frame[column].astype(str).str.strip(), raw)
    else:
        raise ArgumentError(f"'{op}' needs a number to compare with (got {raw!r})")
    return frame[mask.fillna(False).astype(bool)]


def _is_numeric(frame: pd.DataFrame, column: str) -> bool:
    return bool(pd.api.types.is_numeric_dtype(frame[column]))


def records(frame: pd.DataFrame) -> dict[str, Any]:
    """Up to ``MAX_ROWS`` rows as JSON-ready records, with the total and a truncation flag."""
    head = json.loads(frame.head(MAX_ROWS).to_json(orient="records", double_precision=15))
    return {"rows": head, "total_rows": len(frame), "truncated": len(frame) > MAX_ROWS}


@register_tool(name="csv_processor")
class CsvProcessor:
    """Reads CSV files under ``ctx.workdir / "files"`` (shared with ``file_operator``)."""

    name = "csv_processor"
    description = (
        "Compute over a CSV file: sum, mean, min, max or count of a column; filter rows with 'where' "
        "(e.g. 'region == North', 'amount > 100'); sort by a column; or group_sum a column 'by' another."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file": {"type": "string", "description": "Relative path of the CSV file, e.g. 'sales.csv'."},
            "operation": {"type": "string", "enum": list(OPERATIONS)},
            "column": {"type": "string", "description": "The column to compute on or sort by."},
            "where": {"type": "string", "description": "Optional row filter: column, operator, value."},
            "by": {"type": "string", "description": "The column to group by (operation 'group_sum')."},
            "descending": {"type": "boolean", "description": "Sort largest first (operation 'sort')."},
        },
        "required": ["file", "operation"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        self._root = files_root(ctx)
        self._operations: list[dict[str, Any]] = []

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Run one operation; numbers come back as floats, rows as records."""
        self._operations.append({key: arguments[key] for key in sorted(arguments)})
        try:
            return ToolResult(ok=True, content=self._run(arguments))
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))

    def _load(self, rel: str) -> pd.DataFrame:
        path = resolve(self._root, rel)
        if not path.is_file():
            raise ArgumentError(f"no file {rel!r}")
        try:
            return pd.read_csv(path)
        except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise ArgumentError(f"cannot read {rel!r} as CSV: {exc}") from None

    def _run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        operation = get_choice(arguments, "operation", OPERATIONS)
        frame = self._load(need_str(arguments, "file"))
        where = get_str(arguments, "where")
        if where and where.strip():
            frame = apply_where(frame, where)
        elif operation == "filter":
            raise ArgumentError("operation 'filter' needs 'where'")
        column_arg = get_str(arguments, "column")
        column = find_column(frame, column_arg) if column_arg else None
        if operation == "filter":
            return records(frame)
        if operation == "count":
            return {"result": float(frame[column].notna().sum() if column else len(frame))}
        if column is None:
            raise ArgumentError(f"operation {operation!r} needs 'column'")
        if operation == "sort":
            ordered = frame.sort_values(
                column,
                ascending=not get_bool(arguments, "descending", False),
                kind="mergesort",
                na_position="last",
            )
            return records(ordered)
        values = numeric(frame, column)
        if operation == "group_sum":
            by = find_column(frame, need_str(arguments, "by"))
            sums = values.groupby(frame[by].astype(str)).sum()
            return {"result": {str(key): float(sums[key]) for key in sorted(sums.index)}}
        if values.dropna().empty and operation != "sum":
            raise ArgumentError("no rows to compute on")
        return {"result": float(getattr(values, operation)())}

    def snapshot(self) -> dict[str, Any]:
        """The operations requested (their arguments), in order."""
        return {"operations": [dict(op) for op in self._operations]}
