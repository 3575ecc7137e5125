"""Lenient JSON, the argument repairs of the repaired parser mode, and the schema check with its reasons.

The five repairs follow a published database-agent study; each one that fires is recorded by name:
``name_recognition`` (applied by the parser: a call is recognised by its tool name in any wrapper),
``kind_from_content``, ``rename_field``, ``rename_flat_two_field`` and ``sibling_required_guard``.
``json_fix`` marks near-JSON (trailing commas, single quotes, Python literals) read after light fixes.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

# The repair names are the vocabulary's (the analysis counts them); re-exported beside the repairs.
from slmbench.vocab import CALL_OVER_ANSWER as CALL_OVER_ANSWER
from slmbench.vocab import JSON_FIX as JSON_FIX
from slmbench.vocab import KIND_FROM_CONTENT as KIND_FROM_CONTENT
from slmbench.vocab import NAME_RECOGNITION as NAME_RECOGNITION
from slmbench.vocab import RENAME_FIELD as RENAME_FIELD
from slmbench.vocab import RENAME_FLAT_TWO_FIELD as RENAME_FLAT_TWO_FIELD
from slmbench.vocab import SIBLING_REQUIRED_GUARD as SIBLING_REQUIRED_GUARD

logger = logging.getLogger(__name__)


ToolSchemas = Mapping[str, Mapping[str, Any]]

# ---------------------------------------------------------------- lenient JSON

_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CLOSERS = {"{": "}", "[": "]", "(": ")"}


class BracketIndex:
    """Where each bracket of a text closes (aware of double-quoted strings), computed lazily and shared.

    One scan from an opening bracket settles every bracket it meets outside strings: each closes where that
    scan pops it, or never if the scan ends (mismatch or end of text) with it still open. So scanning a text
    with many unclosed brackets stays linear instead of quadratic.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._ends: dict[int, int | None] = {}

    def end(self, start: int) -> int | None:
        """Index just past the bracket closing the one at ``start``, or None."""
        if start not in self._ends:
            self._scan(start)
        return self._ends.get(start)

    def _scan(self, start: int) -> None:
        text, ends = self.text, self._ends
        stack: list[tuple[int, str]] = []
        in_string = escape = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch in _CLOSERS:
                stack.append((i, _CLOSERS[ch]))
            elif ch in ")]}":
                if not stack or stack[-1][1] != ch:
                    break
                ends[stack.pop()[0]] = i + 1
                if not stack:
                    return
        for pos, _ in stack:
            ends[pos] = None


def balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket closing the one at ``start`` (aware of double-quoted strings), or None."""
    return BracketIndex(text).end(start)


def _single_quoted(text: str, i: int) -> tuple[str, int]:
    """The single-quoted string starting at ``i`` rewritten with double quotes, and the index after it."""
    buf: list[str] = []
    j = i + 1
    while j < len(text) and text[j] != "'":
        if text[j] == "\\" and j + 1 < len(text):
            buf.append("'" if text[j + 1] == "'" else text[j : j + 2])
            j += 2
        else:
            buf.append('\\"' if text[j] == '"' else text[j])
            j += 1
    return '"' + "".join(buf) + '"', j + 1


def fix_near_json(text: str) -> str:
    """Rewrite single quotes, Python ``True``/``False``/``None`` and trailing commas into JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif ch == "'":
            fixed, i = _single_quoted(text, i)
            out.append(fixed)
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append(_PY_LITERALS.get(text[i:j], text[i:j]))
            i = j
        elif ch == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if not (j < n and text[j] in "}]"):
                out.append(ch)
            i = j if j < n and text[j] in "}]" else i + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def loads_json(text: str, lenient: bool) -> tuple[Any, bool]:
    """Parse JSON; when ``lenient``, retry after :func:`fix_near_json`. Returns (value, fixed).

    Raises:
        ValueError: the text is not JSON (nor near-JSON when lenient).
    """
    try:
        return json.loads(text), False
    except (ValueError, RecursionError) as exc:
        if not lenient:
            raise ValueError(str(exc)) from None
    try:
        return json.loads(fix_near_json(text)), True
    except (ValueError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


# ---------------------------------------------------------------- call shapes inside JSON

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


# ---------------------------------------------------------------- argument repairs


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


@lru_cache(maxsize=512)
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A cached Draft 2020-12 validator for ``schema``."""
    return _validator(json.dumps(schema, sort_keys=True, default=str))


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


def _sibling_owned(tool: str, field: str, tools: ToolSchemas) -> bool:
    return any(field in (s.get("required") or []) for t, s in tools.items() if t != tool)


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
        blind_ok = not _sibling_owned(tool, surplus[0], tools) or _close_names(surplus[0], missing)
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
        if _fits(args[other], props[target]) and not _sibling_owned(tool, other, tools):
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


# ---------------------------------------------------------------- schema check and reasons


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
    owners = [t for t, s in tools.items() if t != tool and field in (s.get("required") or [])]
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
