"""The study's result keys as the paper reads them: every number is written as ``\\res{key}``, and a key that is
missing or whose value is undefined stops the render instead of printing a placeholder in a sentence."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

UNDEFINED_TEXTS = frozenset({"", "n/a", "nan", "NaN", "inf", "-inf"})
"""Values a result prints when it is not defined (too few models, an empty cell)."""
_MACRO = re.compile(r"^\\expandafter\\def\\csname slmres@(?P<key>[^\\]+)\\endcsname\{(?P<value>.*)\}$")


class UndefinedResultError(KeyError):
    """A sentence asked for a result that the study has not got (or whose value is undefined)."""

    def __str__(self) -> str:
        key, why = self.args
        return f"result {key!r} {why}: write the sentence only where the study has it (defined(...))"


@dataclass(frozen=True)
class Results:
    """The values of the result keys (``paper/generated/numbers.tex``), by key."""

    values: Mapping[str, str]

    @classmethod
    def from_macros(cls, path: Path) -> Results:
        """Read the macros file that ``slmbench macros`` writes."""
        values: dict[str, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            match = _MACRO.match(line.strip())
            if match:
                values[match["key"]] = match["value"]
        return cls(values)

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def defined(self, key: str) -> bool:
        """Whether ``key`` exists and has a defined value."""
        return key in self.values and self.values[key].strip() not in UNDEFINED_TEXTS

    def value(self, key: str) -> str:
        """The printed value of ``key``.

        Raises:
            UndefinedResultError: the key is missing or undefined.
        """
        if key not in self.values:
            raise UndefinedResultError(key, "does not exist")
        if not self.defined(key):
            raise UndefinedResultError(key, f"is undefined ({self.values[key]!r})")
        return self.values[key]

    def res(self, key: str) -> str:
        """``\\res{key}`` for a defined key (the PDF prints the value and links it to its audit page)."""
        self.value(key)
        return f"\\res{{{key}}}"

    def number(self, key: str) -> float:
        """The value of ``key`` as a number, for a template's decisions (``12.5\\%`` -> 12.5, ``2,046`` -> 2046).

        Raises:
            UndefinedResultError: the key is missing, undefined or not a number.
        """
        text = self.value(key).replace("\\%", "").replace(",", "").replace("<", "").strip()
        try:
            out = float(text)
        except ValueError:
            raise UndefinedResultError(key, f"is not a number ({text!r})") from None
        if not math.isfinite(out):
            raise UndefinedResultError(key, "is not finite")
        return out
