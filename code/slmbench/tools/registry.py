"""The tools by name, and building a trial's fresh set of them."""

from __future__ import annotations

import logging

from slmbench.tools.base import Tool, ToolContext
from slmbench.tools.calculator import Calculator
from slmbench.tools.calendar_tool import Calendar
from slmbench.tools.code_interpreter import CodeInterpreter
from slmbench.tools.csv_processor import CsvProcessor
from slmbench.tools.data_query import DataQuery
from slmbench.tools.email_tool import Email
from slmbench.tools.file_operator import FileOperator
from slmbench.tools.knowledge_lookup import KnowledgeLookup
from slmbench.tools.notification import Notification
from slmbench.tools.web_search import WebSearch

logger = logging.getLogger(__name__)

TOOL_CLASSES: dict[str, type] = {
    cls.name: cls
    for cls in (
        WebSearch, KnowledgeLookup, Calendar, DataQuery, CsvProcessor,
        CodeInterpreter, FileOperator, Email, Notification, Calculator,
    )
}  # fmt: skip


def build_tools(names: list[str], ctx: ToolContext) -> dict[str, Tool]:
    """A fresh instance of each named tool, sharing ``ctx`` (and so one files root)."""
    unknown = [name for name in names if name not in TOOL_CLASSES]
    if unknown:
        raise ValueError(
            f"unknown tool(s) {', '.join(unknown)}; known tools: {', '.join(sorted(TOOL_CLASSES))}"
        )
    tools: dict[str, Tool] = {}
    for name in names:
        tools[name] = TOOL_CLASSES[name](ctx)
    logger.debug("built tools %s in %s", names, ctx.workdir)
    return tools


SIDE_EFFECTS: dict[str, tuple[str | None, frozenset[str]]] = {
    "notification": (None, frozenset()),
    "email": ("action", frozenset({"send"})),
    "calendar": ("action", frozenset({"create", "delete"})),
    "file_operator": ("action", frozenset({"write"})),
    "data_query": ("kind", frozenset({"insert", "update", "delete"})),
}
"""Tool -> (the argument that names the action, the actions that change the world); None: every call does."""


def is_side_effect(tool: str, arguments: object) -> bool:
    """Whether a call changes the world outside the conversation (a message sent, a row deleted...)."""
    if tool not in SIDE_EFFECTS:
        return False
    field, actions = SIDE_EFFECTS[tool]
    return field is None or (isinstance(arguments, dict) and arguments.get(field) in actions)
