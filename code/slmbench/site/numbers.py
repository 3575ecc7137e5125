"""The paper's numbers for the site: each number's trials, selected exactly as ``slmbench audit`` selects them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from slmbench.analysis.selection import ignored, select_trials
from slmbench.site.encode import KEY_RE, ranges


class NumberKeyError(ValueError):
    """A number's key cannot name a page (only letters, digits, dots, dashes and underscores)."""


@dataclass(frozen=True)
class NumberTrials:
    """The trials behind one number: their rows in the trial table and what the page says about them."""

    positions: list[int]
    ranges: list[list[int]]
    outcomes: dict[str, int]
    sources: dict[str, int]
    ignored: list[str]
    """Selection columns the trials table lacks (``select_trials`` skips them, as ``audit`` does)."""


def number_trials(trials: pd.DataFrame, number: dict[str, Any]) -> NumberTrials:
    """Rows of ``trials`` (0-based positions, as in the trial index) behind ``number``'s provenance."""
    selection = number.get("provenance", {}).get("selection", {}) or {}
    rows = select_trials(trials, selection)
    positions = [int(p) for p in trials.index.get_indexer(rows.index)]
    outcomes = Counter(rows["outcome"].astype(str).tolist()) if "outcome" in rows else Counter()
    sources = (
        Counter(rows["source_file"].dropna().astype(str).tolist()) if "source_file" in rows else Counter()
    )
    return NumberTrials(
        positions=positions,
        ranges=ranges(positions),
        outcomes=dict(sorted(outcomes.items())),
        sources=dict(sorted(sources.items())),
        ignored=ignored(trials, selection),
    )


def check_keys(numbers: list[dict[str, Any]]) -> None:
    """Every key is a safe, distinct file name.

    Raises:
        NumberKeyError: a key holds other characters, or two numbers share a key.
    """
    seen: set[str] = set()
    for number in numbers:
        key = str(number.get("key", ""))
        if not KEY_RE.match(key):
            raise NumberKeyError(f"number key {key!r} holds characters outside [A-Za-z0-9._-]")
        if key in seen:
            raise NumberKeyError(f"number key {key!r} appears twice in the provenance")
        seen.add(key)


def tex_text(text: str) -> str:
    """How a macro's LaTeX text reads in print (``67.7\\%`` -> ``67.7%``, ``--`` -> an en dash)."""
    out = text.replace("\\%", "%").replace("\\,", "\u2009").replace("~", "\u00a0").replace("--", "\u2013")
    out = out.replace("$", "").replace("\\times", "\u00d7").replace("\\pm", "\u00b1").replace("{", "")
    return out.replace("}", "").replace("\\", "")
