"""Reading tool arguments defensively: odd values become an ``ArgumentError``, never a crash."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ArgumentError(ValueError):
    """An argument a tool cannot use; its message is shown to the model."""


def get_str(arguments: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    """The string argument ``key``, or None when absent and optional."""
    value = arguments.get(key)
    if value is None:
        if required:
            raise ArgumentError(f"missing required argument '{key}'")
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"argument '{key}' must be a string")
    return value


def need_str(arguments: dict[str, Any], key: str) -> str:
    """The required, non-empty string argument ``key``."""
    value = get_str(arguments, key, required=True)
    assert value is not None
    if not value.strip():
        raise ArgumentError(f"argument '{key}' must not be empty")
    return value


def get_int(arguments: dict[str, Any], key: str, default: int, *, low: int, high: int) -> int:
    """The integer argument ``key`` within ``[low, high]``, or ``default`` when absent."""
    value = arguments.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ArgumentError(f"argument '{key}' must be an integer")
    if not low <= int(value) <= high:
        raise ArgumentError(f"argument '{key}' must be between {low} and {high}")
    return int(value)


def get_bool(arguments: dict[str, Any], key: str, default: bool) -> bool:
    """The boolean argument ``key``, or ``default`` when absent."""
    value = arguments.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ArgumentError(f"argument '{key}' must be true or false")
    return value


def get_choice(arguments: dict[str, Any], key: str, choices: Sequence[str]) -> str:
    """The required argument ``key``, which must be one of ``choices``."""
    value = get_str(arguments, key, required=True)
    if value not in choices:
        raise ArgumentError(f"argument '{key}' must be one of {', '.join(choices)} (got {value!r})")
    assert value is not None
    return value


def get_str_list(arguments: dict[str, Any], key: str) -> list[str]:
    """The list-of-strings argument ``key``, empty when absent."""
    value = arguments.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ArgumentError(f"argument '{key}' must be a list of strings")
    return list(value)
