"""Paper numbers: the ``Number`` record, its formatting, and the ``numbers.tex`` macro file."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, get_args

from slmbench.analysis.stats_rates import Rate
from slmbench.records.atomic import stable_float

_KEY_RE = re.compile(r"^[a-z0-9.-]+$")


@dataclass
class Number:
    """One number of the paper, the text it prints as, and how it was computed."""

    key: str
    value: float | int | str
    text: str
    provenance: dict[str, Any]

    def __post_init__(self) -> None:
        if not _KEY_RE.match(self.key):
            raise ValueError(f"number key {self.key!r} must match [a-z0-9.-]+")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (shares the provenance mapping: a topic document is written, never changed)."""
        return {"key": self.key, "value": self.value, "text": self.text, "provenance": self.provenance}


@dataclass
class TopicResult:
    """What a topic computes: numbers for the paper, tables (lists of records) for figures, and the name to
    print for each row slug of its keys that is not one of the trials' models (the models' names are added
    from the trials)."""

    numbers: list[Number] = field(default_factory=list)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


def slug(name: object) -> str:
    """Sanitise a model, group or variant name for a key: ``qwen2.5:7b`` -> ``qwen2-5-7b``."""
    return re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-")


def temp_slug(t: float) -> str:
    """Temperature tag of a key: ``0.7`` -> ``t07``."""
    return f"t{round(t * 10):02d}"


Unit = Literal[
    "trials", "calls", "refusals", "pairs", "items", "label pairs", "solutions", "tasks", "replies"
]  # fmt: skip
"""What the ``n`` of a number counts. For ``trials`` the selection picks exactly the counted trials; for any other
unit it picks the trials the counted units come from (or none, when they come from elsewhere)."""
UNITS: tuple[Unit, ...] = get_args(Unit)


Computed = Callable[..., Any] | ModuleType | str
"""What a number was computed by: the function (or, for numbers of a whole topic, its module) as an object, whose
dotted name the record takes from it (``function_name``); or a plain operation word (``len``, ``share``)."""


def function_name(function: Computed) -> str:
    """The name a provenance record gives ``function``: ``<module>.<qualified name>`` of a function or method,
    a module's name, or an operation word as given.

    Raises:
        ValueError: A dotted name typed as text (it could name nothing: name the function by its object).
    """
    if isinstance(function, str):
        if "." in function:
            raise ValueError(f"provenance names {function!r} as text: pass the function itself")
        return function
    if isinstance(function, ModuleType):
        return function.__name__
    return f"{function.__module__}.{function.__qualname__}"


def provenance(
    function: Computed, selection: dict[str, Any], description: str, unit: Unit = "trials", **params: Any
) -> dict[str, Any]:
    """A provenance record: ``function`` is what computed the number (named by ``function_name``), ``selection``
    filters trials.parquet (the language of ``analysis.selection``), ``unit`` says what the number's ``n`` counts.

    Raises:
        ValueError: An unknown unit, or a function named as dotted text.
    """
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r} is not one of {', '.join(UNITS)}")
    return {
        "function": function_name(function),
        "params": params,
        "selection": selection,
        "unit": unit,
        "description": description,
    }


def _undefined(value: float) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def fmt_rate(value: float) -> str:
    """A rate as a percentage with one decimal: ``0.6774`` -> ``67.7\\%``. Like every printed value it is
    rounded from the value at ``FLOAT_DIGITS`` significant digits, so the last bit of a float, which can differ
    between CPUs, never decides a printed digit (``0.0375`` prints ``3.8\\%`` on every CPU)."""
    return "n/a" if _undefined(value) else f"{stable_float(100.0 * value):.1f}\\%"


def fmt_p(value: float) -> str:
    """A p-value with three significant digits, or ``<0.001``."""
    if _undefined(value):
        return "n/a"
    if value < 0.001:
        return "<0.001"
    return f"{stable_float(value):#.3g}"


def fmt_stat(value: float, digits: int = 2) -> str:
    """A coefficient with ``digits`` decimals."""
    return "n/a" if _undefined(value) else f"{stable_float(value):.{digits}f}"


def _clean(value: float | int | str) -> float | int | str:
    return "n/a" if isinstance(value, float) and not math.isfinite(value) else value


def rate(key: str, value: float, prov: dict[str, Any]) -> Number:
    """A rate number."""
    return Number(key, _clean(value), fmt_rate(value), prov)


def pvalue(key: str, value: float, prov: dict[str, Any]) -> Number:
    """A p-value number."""
    return Number(key, _clean(value), fmt_p(value), prov)


def count(key: str, value: int, prov: dict[str, Any]) -> Number:
    """A count."""
    return Number(key, int(value), str(int(value)), prov)


def stat(key: str, value: float, prov: dict[str, Any], digits: int = 2) -> Number:
    """A coefficient (correlation, effect size, pass@k)."""
    return Number(key, _clean(value), fmt_stat(value, digits), prov)


def size(key: str, value: float, prov: dict[str, Any]) -> Number:
    """A model size in billions of parameters, as few digits as it needs: ``0.135``, ``7``."""
    return Number(key, _clean(value), "n/a" if _undefined(value) else f"{value:g}", prov)


def text(key: str, value: str, prov: dict[str, Any]) -> Number:
    """A text value (a model name, yes/no), LaTeX-escaped."""
    return Number(key, value, latex_escape(value), prov)


def flag(key: str, value: bool, prov: dict[str, Any]) -> Number:
    """A yes/no flag."""
    return text(key, "yes" if value else "no", prov)


def rate_numbers(key: str, r: Rate, prov: dict[str, Any], counts: bool = True) -> list[Number]:
    """A rate with its Wilson interval (``.lo``/``.hi``) and optionally ``.k``/``.n``."""
    out = [rate(key, r.rate, prov), rate(f"{key}.lo", r.lo, prov), rate(f"{key}.hi", r.hi, prov)]
    if counts:
        out += [count(f"{key}.k", r.k, prov), count(f"{key}.n", r.n, prov)]
    return out


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(s: str) -> str:
    """Escape LaTeX special characters."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in s)


def macro_line(key: str, tex: str) -> str:
    """One line of ``numbers.tex``."""
    return f"\\expandafter\\def\\csname slmres@{key}\\endcsname{{{tex}}}"


def render_tex(numbers: list[dict[str, Any]]) -> str:
    """The whole ``numbers.tex`` for number records (sorted by key; duplicate keys are an error)."""
    seen: dict[str, str] = {}
    for n in numbers:
        if n["key"] in seen:
            raise ValueError(f"duplicate number key {n['key']!r}")
        seen[n["key"]] = n["text"]
    lines = ["% Generated by `slmbench macros`; do not edit."]
    lines += [macro_line(k, seen[k]) for k in sorted(seen)]
    return "\n".join(lines) + "\n"


_MACRO_RE = re.compile(r"^\\expandafter\\def\\csname slmres@([a-z0-9.-]+)\\endcsname\{(.*)\}$")


def parse_tex(content: str) -> dict[str, str]:
    """Read ``numbers.tex`` back into key -> text."""
    out: dict[str, str] = {}
    for line in content.splitlines():
        m = _MACRO_RE.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out
