"""The schema check of a call's arguments (JSON Schema Draft 2020-12) and the reasons shown to the model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

ToolSchemas = Mapping[str, Mapping[str, Any]]
"""Tool name -> JSON Schema of its parameters."""


@lru_cache(maxsize=512)
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A cached Draft 2020-12 validator for ``schema``."""
    return _validator(json.dumps(schema, sort_keys=True, default=str))


def required_elsewhere(tool: str, field: str, tools: ToolSchemas) -> list[str]:
    """The other tools that require ``field``: a call of ``tool`` naming it may have meant one of them."""
    return [t for t, s in tools.items() if t != tool and field in (s.get("required") or [])]


def describe_parameters(schema: Mapping[str, Any]) -> str:
    """Short human text for a tool's parameters, e.g. ``query (string, required), limit (integer)``."""
    props: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    parts = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        kind = (
            "one of " + "|".join(map(str, prop["enum"])) if "enum" in prop else str(prop.get("type", "any"))
        )
        parts.append(f"{name} ({kind}{', required' if name in required else ''})")
    return ", ".join(parts) or "none"


def _surplus_hint(tool: str, field: str, tools: ToolSchemas, guard: bool) -> tuple[str, bool]:
    owners = required_elsewhere(tool, field, tools)
    if guard and owners:
        return (
            f"'{field}' is not a field of {tool}; it belongs to tool {owners[0]}. "
            f"If you meant {owners[0]}, call {owners[0]} instead",
            True,
        )
    return f"remove '{field}'", False


def check_arguments(tool: str, arguments: Any, tools: ToolSchemas, guard: bool) -> tuple[str, bool] | None:
    """Validate arguments against the tool's schema (Draft 2020-12).

    Returns:
        None when valid; else the reason shown to the model and whether ``sibling_required_guard`` changed it.
    """
    schema = tools[tool]
    props: Mapping[str, Any] = schema.get("properties") or {}
    messages: list[str] = []
    guarded = False
    errors = sorted(validator_for(schema).iter_errors(arguments), key=lambda e: [str(p) for p in e.path])
    for error in errors[:5]:
        where = "/".join(str(p) for p in error.path)
        message = f"{where}: {error.message}" if where else error.message
        if error.validator == "additionalProperties" and not error.path and isinstance(arguments, dict):
            hints = [_surplus_hint(tool, f, tools, guard) for f in arguments if f not in props]
            guarded = guarded or any(g for _, g in hints)
            message += " - " + "; ".join(h for h, _ in hints)
        messages.append(message if len(message) <= 300 else message[:297] + "...")
    if not messages:
        return None
    reason = (
        f"Invalid arguments for tool {tool}: {'; '.join(messages)}. "
        f"Expected arguments: {describe_parameters(schema)}."
    )
    return reason, guarded
