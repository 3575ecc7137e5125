"""``data_query``: run one SQL statement on the trial's own SQLite database."""

from __future__ import annotations

import logging
import re
import sqlite3
from pathlib import Path
from typing import Any

from slmbench.tools.arguments import ArgumentError, get_choice, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool

logger = logging.getLogger(__name__)

KINDS = ("select", "insert", "update", "delete")
MAX_ROWS = 50
DB_FILE = "database.sqlite"
PROGRESS_STEPS = 1000  # SQLite VM instructions between progress checks
MAX_PROGRESS_CALLS = 5_000  # so at most ~5 million instructions per statement: deterministic, not timed
_COMMENT = re.compile(r"^\s*(--[^\n]*(\n|$)|/\*.*?\*/)", re.DOTALL)
_WRITE_WORD = re.compile(r"\b(insert|replace|update|delete)\b", re.IGNORECASE)
_TABLES_SQL = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
_DENIED_ACTIONS = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH}


def quote(identifier: str) -> str:
    """An SQL identifier in double quotes."""
    return '"' + identifier.replace('"', '""') + '"'


def statement_kind(sql: str) -> str:
    """The statement's kind from its first keyword: select, insert, update, delete, or that keyword."""
    text = sql
    while match := _COMMENT.match(text):
        text = text[match.end() :]
    words = re.findall(r"[A-Za-z]+", text[:64])
    first = words[0].lower() if words else ""
    if first == "with":
        write = _WRITE_WORD.search(re.sub(r"'(?:[^']|'')*'", "''", text))
        return (
            "insert" if write and write[1].lower() == "replace" else (write[1].lower() if write else "select")
        )
    if first in ("replace", "values"):
        return "insert" if first == "replace" else "select"
    return first


def _json_value(value: Any) -> Any:
    return f"<blob {len(value)} bytes>" if isinstance(value, bytes) else value


def _row_key(row: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    order = {type(None): 0, int: 1, float: 1, str: 2, bytes: 3}
    return tuple((order.get(type(v), 4), v if v is not None else 0) for v in row)


def build_database(path: Path, database: dict[str, Any]) -> None:
    """Create the SQLite file from ``{"tables": {name: {"columns": [[name, type], ...], "rows": [...]}}}``."""
    with sqlite3.connect(path) as conn:
        for table, spec in (database.get("tables") or {}).items():
            columns = [(str(col[0]), str(col[1]) if len(col) > 1 else "") for col in spec.get("columns", [])]
            defs = ", ".join(f"{quote(name)} {sqltype}".strip() for name, sqltype in columns)
            conn.execute(f"CREATE TABLE {quote(str(table))} ({defs})")
            marks = ", ".join("?" for _ in columns)
            conn.executemany(f"INSERT INTO {quote(str(table))} VALUES ({marks})", spec.get("rows", []))
    conn.close()


@register_tool(
    name="data_query", side_effects={"argument": "kind", "actions": ("insert", "update", "delete")}
)
class DataQuery:
    """One statement per call; ``kind`` must agree with the statement (select/insert/update/delete)."""

    name = "data_query"
    description = (
        "Run one SQL statement on the database. Set 'kind' to the statement type: select, insert, update "
        "or delete. A select returns columns and rows; the others return how many rows changed."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "sql": {"type": "string", "description": "One SQLite statement."},
            "kind": {"type": "string", "enum": list(KINDS), "description": "The statement type."},
        },
        "required": ["sql", "kind"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        self._path = ctx.workdir / DB_FILE
        if self._path.exists():
            self._path.unlink()
        build_database(self._path, ctx.state.get("database") or {})

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path)
        calls = 0

        def progress() -> int:
            nonlocal calls
            calls += 1
            return 1 if calls > MAX_PROGRESS_CALLS else 0

        conn.set_progress_handler(progress, PROGRESS_STEPS)
        conn.set_authorizer(
            lambda action, *_: sqlite3.SQLITE_DENY if action in _DENIED_ACTIONS else sqlite3.SQLITE_OK
        )
        return conn

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Run the statement."""
        try:
            sql = need_str(arguments, "sql")
            kind = get_choice(arguments, "kind", KINDS)
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))
        actual = statement_kind(sql)
        if actual not in KINDS:
            return ToolResult(
                ok=False,
                content=None,
                error=f"only select, insert, update and delete statements are allowed (got {actual!r})",
            )
        if actual != kind:
            return ToolResult(
                ok=False, content=None, error=f"kind '{kind}' does not match the statement ({actual})"
            )
        conn = self._connect()
        try:
            cursor = conn.execute(sql)
            if kind == "select":
                columns = [d[0] for d in cursor.description or []]
                rows = [[_json_value(v) for v in row] for row in cursor.fetchmany(MAX_ROWS + 1)]
                content: dict[str, Any] = {
                    "columns": columns,
                    "rows": rows[:MAX_ROWS],
                    "truncated": len(rows) > MAX_ROWS,
                }
                if content["truncated"]:
                    content["note"] = f"only the first {MAX_ROWS} rows are shown"
                return ToolResult(ok=True, content=content)
            conn.commit()
            return ToolResult(ok=True, content={"rows_affected": cursor.rowcount})
        except sqlite3.OperationalError as exc:
            message = "query exceeded the work limit" if "interrupted" in str(exc) else f"SQL error: {exc}"
            return ToolResult(ok=False, content=None, error=message)
        except (sqlite3.Error, sqlite3.Warning) as exc:
            return ToolResult(ok=False, content=None, error=f"SQL error: {exc}")
        finally:
            conn.rollback()
            conn.close()

    def snapshot(self) -> dict[str, Any]:
        """Every table as ``{"columns": [[name, type], ...], "rows": [...]}`` with rows sorted."""
        conn = sqlite3.connect(self._path)
        try:
            names = [r[0] for r in conn.execute(_TABLES_SQL)]
            tables: dict[str, Any] = {}
            for name in names:
                columns = [[r[1], r[2]] for r in conn.execute(f"PRAGMA table_info({quote(name)})")]
                rows = sorted(conn.execute(f"SELECT * FROM {quote(name)}").fetchall(), key=_row_key)
                tables[name] = {"columns": columns, "rows": [[_json_value(v) for v in row] for row in rows]}
            return {"tables": tables}
        finally:
            conn.close()
