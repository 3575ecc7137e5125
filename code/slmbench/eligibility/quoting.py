"""Which items a task's labelling rubric quotes: verbatim, in part, or not at all.

The rubrics (``data/eligibility/<task>/rubric.md``) were written with worked examples, and some examples are
items of the data set. An item is judged by its **text units**, the strings it consists of (command approval:
the command; memory write: each turn's content; tool selection: the request; reranking: the query and each
turn). Text is compared after collapsing whitespace, folding case and writing typographic quotes as ASCII.

* **verbatim**: a text unit occurs in the rubric's text, not preceded or followed by a character that could
  continue a word, path or option (a letter, digit, ``_``, ``/``, ``-``, or ``.``: before the unit always, after it
  only when a word or path character follows, so a full stop ends a sentence), so ``env`` is not found in
  ``environment`` and ``rm -rf /`` not in ``rm -rf /tmp``;
* **part**: not verbatim, and a text unit contains a fragment the rubric quotes (between backticks or double
  quotes, split at ellipses and at `` / ``) of at least ``MIN_PART_WORDS`` words, bounded the same way;
* **none**: neither (the item is *unquoted*).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from slmbench.eligibility.datasets import ApprovalItem, Item, MemoryItem, RerankItem, ToolItem

Quoted = Literal["verbatim", "part", "none"]
QUOTED_LEVELS: tuple[Quoted, ...] = ("verbatim", "part", "none")
MIN_PART_WORDS = 3
"""The fewest words a quoted fragment needs to make an item quoted in part."""
_BEFORE = r"(?<![\w./-])"
_AFTER = r"(?![\w/-]|\.[\w./-])"
_QUOTE = re.compile(r"``\s?(.+?)\s?``|`([^`\n]+)`|\"([^\"\n]+)\"")
_FRAGMENT_SPLIT = re.compile(r"\s*(?:\u2026|\.\.\.| / )\s*")
_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalise(text: str) -> str:
    """Whitespace collapsed, case folded, typographic quotes as ASCII."""
    return re.sub(r"\s+", " ", text.translate(_TYPOGRAPHIC)).strip().casefold()


def contains(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` bounded by characters that cannot continue a word or path."""
    if not needle:
        return False
    return re.search(_BEFORE + re.escape(needle) + _AFTER, haystack) is not None


def text_units(item: Item) -> list[str]:
    """The strings an item consists of (see the module docstring)."""
    if isinstance(item, ApprovalItem):
        return [item.command]
    if isinstance(item, MemoryItem):
        return [t.content for t in item.turns]
    if isinstance(item, ToolItem):
        return [item.request]
    if isinstance(item, RerankItem):
        return [item.query, *item.turns]
    raise TypeError(f"not an eligibility item: {type(item).__name__}")


@lru_cache(maxsize=16)
def rubric_fragments(rubric: str) -> tuple[str, ...]:
    """The fragments the rubric quotes (backticks or double quotes; split at ellipses and `` / ``), normalised,
    of at least ``MIN_PART_WORDS`` words."""
    out: list[str] = []
    for match in _QUOTE.finditer(rubric.translate(_TYPOGRAPHIC)):
        quote = next(g for g in match.groups() if g)
        for fragment in _FRAGMENT_SPLIT.split(quote):
            norm = normalise(fragment).strip(" ,;:")
            if len(norm.split()) >= MIN_PART_WORDS:
                out.append(norm)
    return tuple(dict.fromkeys(out))


def quoted(item: Item, rubric: str) -> Quoted:
    """How the rubric quotes ``item``: ``verbatim``, ``part`` or ``none``."""
    units = [normalise(u) for u in text_units(item)]
    text = normalise(rubric)
    if any(contains(text, u) for u in units):
        return "verbatim"
    fragments = rubric_fragments(rubric)
    if any(contains(u, f) for u in units for f in fragments):
        return "part"
    return "none"


def quoted_items(items: Sequence[Item], rubric: str) -> dict[str, Quoted]:
    """Item id -> how the rubric quotes it."""
    return {item.id: quoted(item, rubric) for item in items}
