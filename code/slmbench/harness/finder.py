"""Candidate calls in a model's text, in every surface form: ReAct ``Action`` pairs, ``<tool_call>`` tags,
``<function=name>`` tags, fenced or bare JSON and ``name(...)`` function syntax.

Each detector claims the spans it finds, so a later one skips them; a call-like JSON region that does not parse
becomes a candidate with an error, so the model is told why.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Mapping
from typing import Any

from slmbench.harness import react
from slmbench.harness.call_shapes import find_calls
from slmbench.harness.calls import Candidate, resolve_name
from slmbench.harness.lenient_json import BracketIndex, loads_json
from slmbench.harness.scaffolds import Scaffold, get_scaffold
from slmbench.vocab import RefusalCode, ScaffoldName, Surface

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
