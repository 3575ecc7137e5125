"""Lenient JSON: where brackets close, and near-JSON (single quotes, Python literals, trailing commas) read.

A call read only after these fixes is marked ``json_fix`` by the parser.
"""

from __future__ import annotations

import json
from typing import Any

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
