"""Accepting or refusing one candidate call: strict mode takes only the exact shape the scaffold asks for,
repaired mode any recognisable call with its repairs; every refusal has a code and a reason for the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slmbench.harness.calls import AcceptedCall, Candidate, ParsedCall, Refusal, resolve_name
from slmbench.harness.lenient_json import loads_json
from slmbench.harness.repairs import repair_arguments
from slmbench.harness.scaffolds import Scaffold
from slmbench.harness.schema_check import check_arguments
from slmbench.vocab import JSON_FIX, NAME_RECOGNITION, SIBLING_REQUIRED_GUARD, RefusalCode, Surface

SURFACE_WORDS: dict[Surface, str] = {
    "native": "a native tool call",
    "tool_call_tag": "a <tool_call> tag",
    "fenced_json": "JSON in a ``` code fence",
    "bare_json": "bare JSON",
    "react": "Action / Action Input lines",
    "function_syntax": "function-call syntax",
}


def _refuse(c: Candidate, code: RefusalCode, reason: str, repairs: tuple[str, ...] = ()) -> Refusal:
    return Refusal(code, reason, c.name, c.arguments, c.raw_span, repairs)


def judge(
    c: Candidate, tools: Mapping[str, dict[str, Any]], strict: bool, scaffold: Scaffold
) -> AcceptedCall | Refusal:
    """Accept or refuse one candidate call."""
    expected = scaffold.expected_shape
    if c.error is not None:
        return _refuse(c, c.error[0], f"{c.error[1]} Expected: {expected}")
    if strict and c.surface not in scaffold.expected_surfaces:
        found = SURFACE_WORDS.get(c.surface, c.surface)
        return _refuse(
            c, "wrong_wrapper", f"Found a tool call written as {found}; write it exactly as {expected}"
        )
    if strict and c.issue is not None:
        return _refuse(c, c.issue[0], f"Malformed tool call: {c.issue[1]}. Write it exactly as {expected}")
    if c.name is None:
        return _refuse(c, "missing_name", f"The tool call has no tool name. Write it as {expected}")
    name = resolve_name(c.name, tools, lenient=not strict)
    if name is None:
        available = ", ".join(sorted(tools)) or "none"
        return _refuse(c, "unknown_tool", f"There is no tool named {c.name!r}. Available tools: {available}.")
    repairs: list[str] = []
    if not strict and (c.surface not in scaffold.expected_surfaces or c.issue or name != c.name):
        repairs.append(NAME_RECOGNITION)
    if c.json_fixed:
        repairs.append(JSON_FIX)
    args = c.arguments
    if not c.has_arguments:
        if strict:
            return _refuse(c, "wrong_keys", f"The call of {name} has no arguments. Write it as {expected}")
        args = {}
    if isinstance(args, str) and not strict and c.surface != "native":
        try:
            args, fixed = loads_json(args, lenient=True)
        except ValueError:
            pass
        else:
            repairs.extend(r for r in (NAME_RECOGNITION, JSON_FIX if fixed else "") if r and r not in repairs)
    if not isinstance(args, dict):
        kind = "a JSON string" if isinstance(c.arguments, str) else f"a JSON {type(c.arguments).__name__}"
        reason = (
            f"The arguments of {name} are {kind}, not a JSON object. Write them as a JSON object: {expected}"
        )
        return _refuse(c, "arguments_not_object", reason)
    if not strict:
        args, extra = repair_arguments(name, args, tools)
        repairs.extend(extra)
    problem = check_arguments(name, args, tools, guard=not strict)
    if problem is not None:
        return _refuse(c, "schema_invalid", problem[0], (SIBLING_REQUIRED_GUARD,) if problem[1] else ())
    return AcceptedCall(ParsedCall(name, c.arguments, c.raw_span, c.surface), args, tuple(repairs))
