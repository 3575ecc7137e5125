"""The argument repairs of the repaired parser mode.

The five repairs follow a published database-agent study; each one that fires is recorded by name:
``name_recognition`` (applied by the parser: a call is recognised by its tool name in any wrapper),
``kind_from_content``, ``rename_field``, ``rename_flat_two_field`` (here) and ``sibling_required_guard`` (the
schema check's reason, :mod:`slmbench.harness.schema_check`). ``json_fix`` marks near-JSON read after light
fixes (:mod:`slmbench.harness.lenient_json`).
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from slmbench.harness.schema_check import ToolSchemas, required_elsewhere, validator_for
from slmbench.vocab import KIND_FROM_CONTENT, RENAME_FIELD, RENAME_FLAT_TWO_FIELD

logger = logging.getLogger(__name__)


def sql_kind(sql: Any) -> str | None:
    """The statement kind of SQL from its first keyword (``WITH ... SELECT`` is a select), or None."""
    if not isinstance(sql, str):
        return None
    text = re.sub(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'", " ", sql, flags=re.S).lower()
    words = re.finditer(r"[()]|[a-z_]+", text)
    depth, seen_with = 0, False
    for match in words:
        token = match.group()
        if token in "()":
            depth += 1 if token == "(" else -1
            continue
        if depth > 0:
            continue
        if token == "with" and not seen_with:
            seen_with = True
            continue
        if token in ("select", "insert", "update", "delete"):
            return token
        if not seen_with:
            return None
    return None


@dataclass(frozen=True)
class ContentRule:
    """An enum field whose value can be read from another field's content."""

    enum_field: str
    source_field: str
    extract: Callable[[Any], str | None]


CONTENT_RULES: dict[str, ContentRule] = {"data_query": ContentRule("kind", "sql", sql_kind)}
"""tool name -> rule for ``kind_from_content``; add a line per tool with a redundant enum field."""

SYNONYMS: dict[str, frozenset[str]] = {
    "message": frozenset({"msg", "text", "body", "content", "note"}),
    "recipient": frozenset({"to", "recipient_name", "user", "target", "person", "receiver"}),
    "query": frozenset({"q", "search", "search_query", "question", "term", "keywords"}),
    "sql": frozenset({"query", "statement", "sql_query"}),
    "path": frozenset({"file", "filename", "file_path", "filepath"}),
    "content": frozenset({"text", "body", "data"}),
    "expression": frozenset({"expr", "formula", "calculation", "input"}),
}
"""property name -> names a model commonly uses for it (read by ``rename_field``)."""


def _fits(value: Any, prop_schema: Any) -> bool:
    if not isinstance(prop_schema, dict):
        return True
    try:
        return bool(validator_for(prop_schema).is_valid(value))
    except Exception:  # an unusual sub-schema must not break parsing
        logger.debug("could not check a value against %r", prop_schema, exc_info=True)
        return False


def _close_names(field: str, candidates: list[str]) -> list[str]:
    key = field.lower().replace("-", "_")
    hits = [c for c in candidates if key == c.lower() or key in SYNONYMS.get(c, frozenset())]
    return hits or difflib.get_close_matches(key, candidates, n=2, cutoff=0.8)


def _apply_content_rule(tool: str, args: dict[str, Any], schema: Mapping[str, Any]) -> bool:
    rule = CONTENT_RULES.get(tool)
    enum = (schema.get("properties") or {}).get(rule.enum_field, {}).get("enum") if rule else None
    if rule is None or not isinstance(enum, list) or rule.source_field not in args:
        return False
    found = rule.extract(args[rule.source_field])
    value = next((v for v in enum if isinstance(v, str) and found and v.lower() == found), None)
    if value is None or args.get(rule.enum_field) == value:
        return False
    args[rule.enum_field] = value
    return True


def _is_flat_two(props: Mapping[str, Any]) -> bool:
    return len(props) == 2 and all(isinstance(p, dict) and p.get("type") == "string" for p in props.values())


def _renames(tool: str, args: dict[str, Any], tools: ToolSchemas) -> tuple[dict[str, str], bool]:
    """Unambiguous renames surplus -> property, and whether the flat two-field rule made them.

    A blind rename (by elimination, not by name) never takes a field another tool requires: such a field
    says the model may have meant that other tool.
    """
    schema = tools[tool]
    props: Mapping[str, Any] = schema.get("properties") or {}
    rule = CONTENT_RULES.get(tool)
    derivable = {rule.enum_field} if rule and rule.source_field in props else set()
    surplus = [k for k in args if k not in props]
    missing = [k for k in schema.get("required") or [] if k in props and k not in args and k not in derivable]
    absent = [k for k in props if k not in args]
    if not surplus:
        return {}, False
    if len(surplus) == 1 and len(missing) == 1:
        blind_ok = not required_elsewhere(tool, surplus[0], tools) or _close_names(surplus[0], missing)
        ok = blind_ok and _fits(args[surplus[0]], props[missing[0]])
        return ({surplus[0]: missing[0]} if ok else {}), False
    renames: dict[str, str] = {}
    for field in surplus:
        free = [a for a in absent if a not in renames.values()]
        hits = _close_names(field, free)
        if len(hits) == 1 and _fits(args[field], props[hits[0]]):
            renames[field] = hits[0]
    flat = _is_flat_two(props) and len(args) == 2 and len(surplus) == 2
    if flat and len(renames) == 1:
        (other,) = [f for f in surplus if f not in renames]
        (target,) = [a for a in absent if a not in renames.values()]
        if _fits(args[other], props[target]) and not required_elsewhere(tool, other, tools):
            renames[other] = target
    return renames, flat and len(renames) == 2


def repair_arguments(
    tool: str, arguments: dict[str, Any], tools: ToolSchemas
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Apply ``kind_from_content``, ``rename_field``, ``rename_flat_two_field``; return args and repairs."""
    schema = tools[tool]
    args = dict(arguments)
    repairs: list[str] = []
    if _apply_content_rule(tool, args, schema):
        repairs.append(KIND_FROM_CONTENT)
    renames, flat = _renames(tool, args, tools)
    if renames:
        for old, new in renames.items():
            args[new] = args.pop(old)
        repairs.append(RENAME_FLAT_TWO_FIELD if flat else RENAME_FIELD)
    if _apply_content_rule(tool, args, schema) and KIND_FROM_CONTENT not in repairs:
        repairs.append(KIND_FROM_CONTENT)
    return args, tuple(repairs)
