"""Calls inside a parsed JSON value: the keys a model names a tool and its arguments by, in any wrapper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "action_input")


@dataclass(frozen=True)
class CallShape:
    """A call found inside a JSON value: its name, its arguments as sent and the keys it used."""

    name: str
    arguments: Any
    has_arguments: bool
    keys: tuple[str, ...]

    @property
    def canonical(self) -> bool:
        """True for exactly ``{"name": ..., "arguments": ...}``."""
        return self.keys == ("arguments", "name")


def _shape(obj: dict[str, Any], is_tool: Callable[[str], bool], any_name: bool) -> CallShape | None:
    keys = tuple(sorted(obj))
    fn = obj.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        args_key = next((k for k in ARGUMENT_KEYS if k in fn), None)
        return CallShape(fn["name"], fn.get(args_key) if args_key else None, args_key is not None, keys)
    name_key = next((k for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    args_key = next((k for k in ARGUMENT_KEYS if k in obj), None)
    if name_key is not None and (any_name or is_tool(obj[name_key]) or args_key is not None):
        args = obj[args_key] if args_key else None
        return CallShape(obj[name_key], args, args_key is not None, keys)
    if len(obj) == 1:
        ((key, value),) = obj.items()
        if is_tool(key) and isinstance(value, dict):
            return CallShape(key, value, True, keys)
    return None


def find_calls(
    value: Any, is_tool: Callable[[str], bool], any_name: bool = False, depth: int = 0
) -> list[CallShape]:
    """Every call in a parsed JSON value: the value itself, lists of calls, or calls nested in wrappers.

    A dict is a call when a name key holds a tool name, or it also has an arguments key, or (``any_name``,
    where the wrapper already says it is a call) it has any string under a name key.
    """
    if depth > 6:
        return []
    if isinstance(value, dict):
        shape = _shape(value, is_tool, any_name)
        if shape is not None:
            return [shape]
        return [c for v in value.values() for c in find_calls(v, is_tool, any_name, depth + 1)]
    if isinstance(value, list):
        return [c for v in value for c in find_calls(v, is_tool, any_name, depth + 1)]
    return []
