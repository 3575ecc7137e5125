"""Tool calls from model output in every surface form, judged in strict or repaired mode.

``parse_output`` never raises. It finds candidate calls (backend-native calls, ``<tool_call>`` tags,
``<function=name>`` tags, ReAct ``Action`` pairs, fenced or bare JSON, ``name(...)`` function syntax), then
judges each: strict mode accepts only the exact shape the scaffold's prompt asks for (the scaffold object says
which, :mod:`slmbench.harness.scaffolds`); repaired mode accepts any recognisable call and applies the repairs of :mod:`slmbench.harness.repairs`. Every refusal carries a
stable code and a reason written to be shown to the model. Accepted calls carry the resolved tool name; the
arguments of ``ParsedCall`` are exactly as sent (native JSON-string arguments are decoded: their wire form).
"""

from __future__ import annotations

import ast
import bisect
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slmbench.harness import react
from slmbench.harness.repairs import (
    CALL_OVER_ANSWER,
    JSON_FIX,
    NAME_RECOGNITION,
    SIBLING_REQUIRED_GUARD,
    BracketIndex,
    check_arguments,
    find_calls,
    loads_json,
    repair_arguments,
)
from slmbench.harness.scaffolds import Scaffold, get_scaffold
from slmbench.vocab import ParserMode, RefusalCode, ScaffoldName, Surface

logger = logging.getLogger(__name__)

SURFACE_WORDS: dict[Surface, str] = {
    "native": "a native tool call",
    "tool_call_tag": "a <tool_call> tag",
    "fenced_json": "JSON in a ``` code fence",
    "bare_json": "bare JSON",
    "react": "Action / Action Input lines",
    "function_syntax": "function-call syntax",
}


@dataclass(frozen=True)
class ParsedCall:
    """A call as the model wrote it: tool name, arguments exactly as sent, source text and surface form."""

    name: str
    arguments: Any
    raw_span: str
    surface: str


@dataclass(frozen=True)
class AcceptedCall:
    """A call the harness will execute, with the arguments after repairs and the repairs applied."""

    call: ParsedCall
    arguments: dict[str, Any]
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refusal:
    """A call (or output) the harness refused; ``reason`` is shown to the model as the observation.

    ``repairs`` names repairs that shaped the refusal itself (``sibling_required_guard``).
    """

    code: RefusalCode
    reason: str
    name: str | None = None
    arguments: Any = None
    raw_span: str = ""
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParseOutcome:
    """Everything read from one model output: accepted calls, refusals, final answer and reasoning text."""

    accepted: list[AcceptedCall] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    final_answer: str | None = None
    thought: str = ""


def resolve_name(name: str, tools: Mapping[str, Any], lenient: bool) -> str | None:
    """The tool ``name`` refers to: exact, or (lenient) ignoring case, quotes, ``functions.`` and ``()``."""
    if name in tools:
        return name
    if not lenient:
        return None
    key = re.sub(r"^functions\.|\(\)$", "", name.strip().strip("`'\"*[] ")).lower().replace("-", "_")
    return next((t for t in tools if t.lower() == key), None)


@dataclass(frozen=True)
class Candidate:
    """A possible call found in the output, before judgement.

    ``issue`` (code, text) says how the shape departs from the exact one the prompt asks for; ``error``
    (code, text) is a defect that makes the call unusable in any mode (unparseable JSON, missing input).
    """

    start: int
    end: int
    surface: Surface
    raw_span: str
    name: str | None = None
    arguments: Any = None
    has_arguments: bool = True
    issue: tuple[RefusalCode, str] | None = None
    json_fixed: bool = False
    error: tuple[RefusalCode, str] | None = None


_TAG_OPEN = {False: re.compile(r"<tool_call>"), True: re.compile(r"<\s*tool_call\s*>", re.I)}
_TAG_CLOSE = {False: re.compile(r"</tool_call>"), True: re.compile(r"<\s*/\s*tool_call\s*>", re.I)}
_FUNCTION_TAG = re.compile(r"<function=(?P<name>[^>\s]+)>")
_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(?:```|\Z)", re.S)
_CALL_HINT = re.compile(r"""["'](?:name|tool|tool_name|function|action|arguments|parameters)["']\s*:""")


class _Finder:
    """Finds candidate calls in text; each detector claims its spans so later ones skip them."""

    def __init__(self, text: str, tools: Mapping[str, dict[str, Any]], lenient: bool) -> None:
        self.text, self.tools, self.lenient = text, tools, lenient
        self.claimed: list[tuple[int, int]] = []
        self.found: list[Candidate] = []
        self.brackets = BracketIndex(text)

    def is_tool(self, name: str) -> bool:
        return resolve_name(name, self.tools, self.lenient) is not None

    def free(self, start: int, end: int | None = None) -> bool:
        end = start + 1 if end is None else end
        return not any(s < end and start < e for s, e in self.claimed)

    def add(self, candidate: Candidate) -> None:
        self.found.append(candidate)
        self.claimed.append((candidate.start, candidate.end))

    def parse(self, start: int, stop: int) -> tuple[Any, int, bool, str]:
        """The JSON object or array at ``start`` (ending before ``stop``): (value, end, fixed, error)."""
        end = self.brackets.end(start)
        if end is None or end > stop:
            return None, stop, False, "the JSON is not closed"
        try:
            value, fixed = loads_json(self.text[start:end], self.lenient)
        except ValueError as exc:
            return None, end, False, str(exc)
        return value, end, fixed, ""

    def react_pairs(self, actions: list[react.ReactAction]) -> None:
        for a in actions:
            if a.has_input and self.free(a.start, a.end):
                error: tuple[RefusalCode, str] = (
                    "unparseable_json",
                    f"The Action Input is not valid JSON ({a.input_error}).",
                )
                self.add(
                    Candidate(
                        a.start,
                        a.end,
                        "react",
                        self.text[a.start : a.end],
                        a.action or None,
                        a.input_value,
                        issue=("wrong_wrapper", a.issue) if a.issue else None,
                        json_fixed=a.json_fixed,
                        error=error if a.input_error else None,
                    )
                )

    def tags(self) -> None:
        text, lenient = self.text, self.lenient
        for m in _TAG_OPEN[lenient].finditer(text):
            if not self.free(m.start()):
                continue
            reopen = _TAG_OPEN[lenient].search(text, m.end())
            limit = reopen.start() if reopen else len(text)
            body = text[m.end() : limit]
            first = m.end() + len(body) - len(body.lstrip())
            exact = text.startswith(("{", "["), first)
            first = first if exact else text.find("{", first, limit)
            value, end, fixed, error = (
                self.parse(first, len(text)) if first >= 0 else (None, limit, False, "")
            )
            close = _TAG_CLOSE[lenient].search(text, end if not error else m.end(), max(limit, end))
            closed = close is not None
            if close is not None and not error and text[end : close.start()].strip(" \t\r\n`"):
                exact = False
            span_end = close.end() if close is not None else (end if not error else limit)
            raw = text[m.start() : span_end]
            if first < 0 or error:
                why = f"is not valid ({error})" if error else "is missing"
                reason = f"The JSON object inside <tool_call> {why}."
                self.add(
                    Candidate(m.start(), span_end, "tool_call_tag", raw, error=("unparseable_json", reason))
                )
                continue
            issue: tuple[RefusalCode, str] | None = (
                None if closed else ("wrong_wrapper", "the <tool_call> tag is not closed with </tool_call>")
            )
            if not exact:
                issue = issue or ("wrong_wrapper", "the <tool_call> tag must hold only the JSON object")
            calls = find_calls(value, self.is_tool, any_name=True)
            if not calls:
                reason = 'The JSON inside <tool_call> has no "name" of a tool.'
                self.add(
                    Candidate(
                        m.start(), span_end, "tool_call_tag", raw, None, value, error=("missing_name", reason)
                    )
                )
            for call in calls:
                keys: tuple[RefusalCode, str] = (
                    "wrong_keys",
                    f"the JSON has keys {', '.join(call.keys)}; expected exactly name, arguments",
                )
                shape = issue or (None if call.canonical else keys)
                self.add(
                    Candidate(
                        m.start(),
                        span_end,
                        "tool_call_tag",
                        raw,
                        call.name,
                        call.arguments,
                        call.has_arguments,
                        shape,
                        fixed,
                    )
                )

    def function_tags(self) -> None:
        for m in _FUNCTION_TAG.finditer(self.text):
            first = len(self.text) - len(self.text[m.end() :].lstrip())
            if not self.free(m.start()) or not self.text.startswith("{", first):
                continue
            value, end, fixed, error = self.parse(first, len(self.text))
            close = self.text.find("</function>", end)
            end = close + len("</function>") if close >= 0 and not self.text[end:close].strip() else end
            raw = self.text[m.start() : end]
            err: tuple[RefusalCode, str] | None = (
                ("unparseable_json", f"The arguments are not valid JSON ({error}).") if error else None
            )
            self.add(
                Candidate(
                    m.start(),
                    end,
                    "function_syntax",
                    raw,
                    m.group("name"),
                    value,
                    json_fixed=fixed,
                    error=err,
                )
            )

    def json_objects(self) -> list[tuple[int, int, str]]:
        """Claim call-shaped JSON objects; return call-like regions that did not parse."""
        text = self.text
        fences = [(m.start(1), m.end(1)) for m in _FENCE.finditer(text)]
        quoted_names = "|".join(re.escape(f'"{t}"') for t in self.tools)
        hint_re = re.compile(f"{_CALL_HINT.pattern}|{quoted_names}" if quoted_names else _CALL_HINT.pattern)
        hints = [m.start() for m in hint_re.finditer(text)]
        failed: list[tuple[int, int, str]] = []
        i = text.find("{")
        while i >= 0:
            if not self.free(i):
                i = text.find("{", i + 1)
                continue
            value, end, fixed, error = self.parse(i, len(text))
            if error:
                k = bisect.bisect_left(hints, i)
                if k < len(hints) and hints[k] < end:
                    failed.append((i, end, error))
                i = text.find("{", i + 1)
                continue
            surface: Surface = "fenced_json" if any(s <= i < e for s, e in fences) else "bare_json"
            for call in find_calls(value, self.is_tool):
                self.add(
                    Candidate(
                        i,
                        end,
                        surface,
                        text[i:end],
                        call.name,
                        call.arguments,
                        call.has_arguments,
                        json_fixed=fixed,
                    )
                )
            i = text.find("{", end)
        return failed

    def function_calls(self) -> None:
        if not self.tools:
            return
        names = "|".join(re.escape(t) for t in sorted(self.tools, key=len, reverse=True))
        pattern = re.compile(rf"(?<![\w.])(?:functions\.)?({names})[ \t]*\(", re.I if self.lenient else 0)
        for m in pattern.finditer(self.text):
            end = self.brackets.end(m.end() - 1)
            if end is None or not self.free(m.start(), end):
                continue
            schema = self.tools[resolve_name(m.group(1), self.tools, True) or m.group(1)]
            parsed = _call_arguments(self.text[m.end() : end - 1].strip(), schema, self.lenient)
            if parsed is not None:
                raw = self.text[m.start() : end]
                self.add(
                    Candidate(
                        m.start(), end, "function_syntax", raw, m.group(1), parsed[0], json_fixed=parsed[1]
                    )
                )


def _call_arguments(inner: str, schema: Mapping[str, Any], lenient: bool) -> tuple[Any, bool] | None:
    """Arguments of ``name(...)``: a JSON object, or Python keyword/positional literals; None if neither."""
    if not inner:
        return {}, False
    if inner[0] in "{[":
        try:
            return loads_json(inner, lenient)
        except ValueError:
            return None
    try:
        node = ast.parse(f"f({inner})", mode="eval").body
        if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
            return None
        args: dict[str, Any] = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
        positional = [ast.literal_eval(a) for a in node.args]
    except Exception:  # arbitrary text: any failure means "not a call"
        return None
    names = [p for p in (schema.get("properties") or {}) if p not in args]
    if len(positional) > len(names):
        return None
    args.update(zip(names, positional, strict=False))
    return args, False


def text_candidates(
    text: str, tools: Mapping[str, dict[str, Any]], lenient: bool, scaffold: ScaffoldName | Scaffold
) -> list[Candidate]:
    """Every candidate call in ``text``, in order of position."""
    action_lines = get_scaffold(scaffold).action_lines
    finder = _Finder(text, tools, lenient)
    actions = react.find_actions(text, lenient)
    finder.react_pairs(actions)
    finder.tags()
    finder.function_tags()
    failed = finder.json_objects()
    finder.function_calls()
    for start, end, error in failed:
        if finder.free(start, end):
            reason = f"The tool call JSON is not valid ({error})."
            finder.add(
                Candidate(start, end, "bare_json", text[start:end], error=("unparseable_json", reason))
            )
    for a in actions:
        if not a.has_input and finder.free(a.start, a.end) and (action_lines or finder.is_tool(a.action)):
            reason = f"'Action: {a.action}' has no 'Action Input:' line with the arguments as a JSON object."
            finder.add(
                Candidate(
                    a.start,
                    a.end,
                    "react",
                    text[a.start : a.end],
                    a.action or None,
                    None,
                    False,
                    error=("missing_action_input", reason),
                )
            )
    return sorted(finder.found, key=lambda c: c.start)


def _native_candidates(native_calls: list[dict[str, Any]], lenient: bool) -> list[Candidate]:
    out = []
    for call in native_calls:
        raw = json.dumps(call, default=str)
        fn = call.get("function", call) if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            out.append(Candidate(-1, -1, "native", raw, error=("missing_name", "The tool call has no name.")))
            continue
        args, fixed = fn.get("arguments", {}), False
        if isinstance(args, str):
            try:
                args, fixed = loads_json(args, lenient) if args.strip() else ({}, False)
            except ValueError as exc:
                reason = f"The arguments of {fn['name']} are not valid JSON ({exc}). Send a JSON object."
                out.append(
                    Candidate(-1, -1, "native", raw, fn["name"], args, error=("unparseable_json", reason))
                )
                continue
        out.append(Candidate(-1, -1, "native", raw, fn["name"], args, json_fixed=fixed))
    return out


def _refuse(c: Candidate, code: RefusalCode, reason: str, repairs: tuple[str, ...] = ()) -> Refusal:
    return Refusal(code, reason, c.name, c.arguments, c.raw_span, repairs)


def _judge(
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


def parse_output(
    text: str,
    native_calls: list[dict[str, Any]],
    tools: dict[str, dict[str, Any]],
    mode: ParserMode,
    scaffold: ScaffoldName | Scaffold,
) -> ParseOutcome:
    """Read the tool calls, refusals and final answer from one model output.

    Args:
        text: the model's text content.
        native_calls: backend-native calls in OpenAI shape (may be empty).
        tools: tool name -> JSON Schema of its parameters.
        mode: ``strict`` or ``repaired``.
        scaffold: ``native`` (tool_call tags) or ``react`` (Action lines), or the scaffold object.

    Returns:
        At least one accepted call, one refusal, or a final answer.
    """
    strict = mode == "strict"
    sc = get_scaffold(scaffold)
    text = text if isinstance(text, str) else ""
    if not text.strip() and not native_calls:
        return ParseOutcome(refusals=[Refusal("empty_output", "The reply was empty. Call a tool or answer.")])
    body = sc.readable(text, not strict)
    found = _native_candidates(native_calls, not strict) + text_candidates(body, tools, not strict, sc)
    final = react.final_answer(body, not strict)
    starts = [c.start for c in found if c.start >= 0] + ([final[0]] if final else [])
    thought = react.clean_thought(body[: min(starts)]) if starts else ""
    if found and final is not None and strict:
        reason = "The reply holds both a tool call and 'Final Answer:'. Either call one tool or answer."
        first = found[0]
        mixed = Refusal("mixed_call_and_answer", reason, first.name, first.arguments, body)
        return ParseOutcome(refusals=[mixed], thought=thought)
    outcome = ParseOutcome(thought=thought)
    for candidate in found:
        judged = _judge(candidate, tools, strict, sc)
        if isinstance(judged, Refusal):
            outcome.refusals.append(judged)
        elif final is not None:
            outcome.accepted.append(
                AcceptedCall(judged.call, judged.arguments, (*judged.repairs, CALL_OVER_ANSWER))
            )
        else:
            outcome.accepted.append(judged)
    if found:
        return outcome
    if final is not None:
        return ParseOutcome(final_answer=final[1], thought=thought)
    missing = sc.missing_call(strict)
    if missing is not None:
        return ParseOutcome(refusals=[Refusal("no_action", missing, raw_span=body)])
    return ParseOutcome(final_answer=body.strip())
