"""The ReAct text protocol: ``Action:`` / ``Action Input:`` pairs, ``Final Answer:`` and ``Observation:``.

Strict patterns match the exact lines the ReAct prompt asks for; lenient ones also take markdown emphasis,
other letter case and ``Action_Input``, and an input given as a fenced block or without its label.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from slmbench.harness.lenient_json import balanced_end, loads_json

_ACTION = {
    False: re.compile(r"^[ \t]*Action:[ \t]*(?P<value>.*)$", re.M),
    True: re.compile(r"^[ \t>#*_-]*Action[*_]*[ \t]*:[*_]*[ \t]*(?P<value>.*)$", re.M | re.I),
}
_INPUT = {
    False: re.compile(r"^[ \t]*Action Input:", re.M),
    True: re.compile(r"^[ \t>#*_-]*Action[ _]?Input[*_]*[ \t]*:[*_]*", re.M | re.I),
}
_FINAL = {
    False: re.compile(r"Final Answer:"),
    True: re.compile(r"[*_]*final[ _]answer[*_]*[ \t]*:[*_]*", re.I),
}
_OBSERVATION = {
    False: re.compile(r"^[ \t]*Observation:", re.M),
    True: re.compile(r"^[ \t>#*_-]*Observation[*_]*[ \t]*:", re.M | re.I),
}
_THOUGHT = re.compile(r"^[\s*_]*thought[*_]*\s*:[*_]*", re.I)
_TRAILING_FENCE = re.compile(r"```[^\n`]*\Z")
_FENCE = re.compile(r"```[^\n`]*\n?(?P<body>.*?)(?:```|\Z)", re.S)


@dataclass(frozen=True)
class ReactAction:
    """One ``Action:`` line and what followed it.

    ``input_error`` is set when an Action Input was present but not JSON; ``issue`` says how the pair departs
    from the exact shape the prompt asks for ("" when it is exact).
    """

    start: int
    end: int
    action: str
    has_input: bool
    input_value: Any = None
    input_error: str = ""
    json_fixed: bool = False
    issue: str = ""


def _parse_value(text: str, start: int, lenient: bool) -> tuple[Any, int, bool, str]:
    """JSON value at ``start``: (value, end, fixed, error); a non-bracket value runs to its line's end."""
    if start < len(text) and text[start] in "{[":
        end = balanced_end(text, start)
        if end is None:
            return None, len(text), False, "the JSON is not closed"
    elif start < len(text) and text[start] == '"':
        try:
            value, end = json.JSONDecoder().raw_decode(text, start)
            return value, end, False, ""
        except ValueError as exc:
            return None, len(text), False, str(exc)
    else:
        newline = text.find("\n", start)
        end = len(text) if newline < 0 else newline
    try:
        value, fixed = loads_json(text[start:end], lenient)
    except ValueError as exc:
        return None, end, False, str(exc) or "empty input"
    return value, end, fixed, ""


def _parse_input(text: str, pos: int, limit: int, lenient: bool) -> tuple[Any, int, bool, str, str]:
    """Parse an Action Input starting at ``pos``: (value, end, fixed, error, issue)."""
    start = pos
    while start < limit and text[start].isspace():
        start += 1
    fence = _FENCE.match(text, start) if text.startswith("```", start) else None
    if fence is not None:
        body = fence.group("body")
        inner = len(body) - len(body.lstrip())
        value, _, fixed, error = _parse_value(text[: fence.end("body")], fence.start("body") + inner, lenient)
        return value, fence.end(), fixed, error, "the Action Input is wrapped in a code fence"
    value, end, fixed, error = _parse_value(text, start, lenient)
    return value, min(end, len(text)), fixed, error, ""


def find_actions(text: str, lenient: bool) -> list[ReactAction]:
    """Every ``Action:`` line with its ``Action Input`` (if any), in order."""
    matches = list(_ACTION[lenient].finditer(text))
    actions = []
    for k, match in enumerate(matches):
        limit = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        value = match.group("value").strip()
        label = _INPUT[lenient].search(text, match.end(), limit)
        issue = ""
        if label is None and lenient:
            rest = text[match.end() : limit].lstrip()
            if rest.startswith(("{", "```")):
                label_end = limit - len(rest)
                issue = "the Action Input line is missing"
            else:
                actions.append(ReactAction(match.start(), match.end(), value, False))
                continue
        elif label is None:
            actions.append(ReactAction(match.start(), match.end(), value, False))
            continue
        else:
            label_end = label.end()
            if text[match.end() : label.start()].strip():
                issue = "there is text between the Action and Action Input lines"
        parsed, end, fixed, error, fence_issue = _parse_input(text, label_end, limit, lenient)
        issue = issue or fence_issue
        actions.append(ReactAction(match.start(), end, value, True, parsed, error, fixed, issue))
    return actions


def final_answer(text: str, lenient: bool) -> tuple[int, str] | None:
    """Position of the first ``Final Answer:`` marker and the text after it, or None."""
    match = _FINAL[lenient].search(text)
    return None if match is None else (match.start(), text[match.end() :].strip())


def cut_at_observation(text: str, lenient: bool) -> str:
    """The text before an ``Observation:`` line that follows an action (the model must not write those)."""
    action = _ACTION[lenient].search(text)
    if action is None:
        return text
    observation = _OBSERVATION[lenient].search(text, action.end())
    return text if observation is None else text[: observation.start()]


def clean_thought(text: str) -> str:
    """Reasoning text without a leading ``Thought:`` label or a trailing code-fence opener."""
    return _THOUGHT.sub("", _TRAILING_FENCE.sub("", text.strip()), count=1).strip()
