"""The tools by name (each registered by its decorator where it is defined), and building a trial's fresh set."""

from __future__ import annotations

import logging
from typing import Any

from slmbench.tools.base import Tool, ToolContext, register_tool

logger = logging.getLogger(__name__)


def tool_names() -> tuple[str, ...]:
    """The registered tools' names, sorted (read from their decorators: no tool is imported)."""
    return tuple(sorted(register_tool.declared))


def tool_class(name: str) -> Any:
    """The class of tool ``name`` (its module imported).

    Raises:
        ValueError: No tool of that name.
    """
    if name not in register_tool.declared:
        raise ValueError(f"unknown tool(s) {name}; known tools: {', '.join(tool_names())}")
    return register_tool.get(name)


def build_tools(names: list[str], ctx: ToolContext) -> dict[str, Tool]:
    """A fresh instance of each named tool, sharing ``ctx`` (and so one files root)."""
    unknown = [name for name in names if name not in register_tool.declared]
    if unknown:
        raise ValueError(f"unknown tool(s) {', '.join(unknown)}; known tools: {', '.join(tool_names())}")
    tools: dict[str, Tool] = {name: tool_class(name)(ctx) for name in names}
    logger.debug("built tools %s in %s", names, ctx.workdir)
    return tools


def is_side_effect(tool: str, arguments: object) -> bool:
    """Whether a call changes the world outside the conversation (a message sent, a row deleted...), as the tool
    declares (``side_effects`` of its ``@register_tool``)."""
    declared = register_tool.declared.get(tool)
    effects = declared.arguments.get("side_effects") if declared else None
    if effects is None:
        return False
    if effects == "every call":
        return True
    return isinstance(arguments, dict) and arguments.get(effects["argument"]) in effects["actions"]
