"""Thresholds chosen on a calibration split: a binary margin cut-off, and when a cascade calls the model.

Both pick the candidate that maximises calibration accuracy, with a fixed tie-break (``MARGIN_TIE_BREAK``,
``CASCADE_TIE_BREAK``), and are then applied unchanged to the test split; a ``Cut`` says how many candidates
tied at that accuracy. Candidates are minus infinity, the midpoints between consecutive distinct
values, and plus infinity, so every distinct partition of the calibration items is tried once; a margin cut-off's
candidates put the untuned cut-off 0 in place of the candidate that splits the items as 0 does, so the untuned rule
is itself a candidate and wins every tie it is in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def candidate_cuts(values: Sequence[float]) -> list[float]:
    """``-inf``, the midpoints between consecutive distinct ``values``, ``+inf``."""
    v = sorted(set(values))
    return [-math.inf, *((a + b) / 2 for a, b in zip(v, v[1:], strict=False)), math.inf]


def margin_cuts(margins: Sequence[float]) -> list[float]:
    """``candidate_cuts`` with 0 (the untuned rule: the higher-scoring label) in place of the candidate whose
    partition of ``margins`` under "positive iff margin >= t" is the same as 0's, ascending."""
    below = sum(m < 0 for m in margins)
    cuts = candidate_cuts(margins)
    return sorted(0.0 if sum(m < t for m in margins) == below else t for t in cuts)


MARGIN_TIE_BREAK = "ties go to the cut-off closest to 0 (the untuned rule), then to the lower cut-off"
CASCADE_TIE_BREAK = (
    "ties go to the threshold that sends fewer items to the model, then to the lower threshold"
)


@dataclass(frozen=True)
class Cut:
    """A chosen threshold, how many calibration items it gets right out of how many, and how many candidate
    thresholds (the chosen one included) get that many right: above 1 the tie-break chose."""

    threshold: float
    k: int
    n: int
    tied: int = 1


def tune_margin(margins: Sequence[float], positive: Sequence[bool]) -> Cut:
    """The cut ``t`` for "positive iff margin >= t" with the most correct calibration items.

    The candidates are ``margin_cuts``: 0 itself, where it ties, is the cut closest to 0. Ties go to the cut
    closest to 0 (the untuned rule: the higher-scoring label), then to the lower cut (``MARGIN_TIE_BREAK``). With no
    items the cut is 0.
    """
    if len(margins) != len(positive):
        raise ValueError("margins and labels differ in length")
    if not margins:
        return Cut(0.0, 0, 0)
    keys = [
        (-sum((m >= t) == y for m, y in zip(margins, positive, strict=True)), abs(t), t)
        for t in margin_cuts(margins)
    ]
    best = min(keys)
    return Cut(best[2], -best[0], len(margins), sum(key[0] == best[0] for key in keys))


def tied_margins(margins: Sequence[float], positive: Sequence[bool]) -> list[float]:
    """Every candidate cut with the best calibration accuracy (``tune_margin`` chose one of them), ascending."""
    scored = [
        (sum((m >= t) == y for m, y in zip(margins, positive, strict=True)), t) for t in margin_cuts(margins)
    ]
    best = max((k for k, _ in scored), default=0)
    return [t for k, t in scored if k == best] if margins else [0.0]


def apply_margin(margins: Sequence[float], positive: Sequence[bool], threshold: float) -> int:
    """Items right under "positive iff margin >= threshold"."""
    return sum((m >= threshold) == y for m, y in zip(margins, positive, strict=True))


def cascade_choice(bm25_margin: Sequence[float], threshold: float) -> list[bool]:
    """Per item, whether the cascade calls the model: BM25's top-1 minus top-2 score is below ``threshold``."""
    return [m < threshold for m in bm25_margin]


def tune_cascade(
    bm25_margin: Sequence[float], bm25_correct: Sequence[bool], model_correct: Sequence[bool]
) -> Cut:
    """The cascade threshold with the most correct calibration items; ties go to fewer model calls, then to the
    lower threshold (``CASCADE_TIE_BREAK``).

    ``-inf`` never calls the model (BM25 alone), ``+inf`` always does (the model alone).
    """
    if not (len(bm25_margin) == len(bm25_correct) == len(model_correct)):
        raise ValueError("inputs differ in length")
    if not bm25_margin:
        return Cut(-math.inf, 0, 0)
    keys = []
    for t in candidate_cuts(bm25_margin):
        calls = cascade_choice(bm25_margin, t)
        k = sum(mc if c else bc for c, bc, mc in zip(calls, bm25_correct, model_correct, strict=True))
        keys.append((-k, sum(calls), t))
    best = min(keys)
    return Cut(best[2], -best[0], len(bm25_margin), sum(key[0] == best[0] for key in keys))


def reciprocal_rank(ranking: Sequence[str], gold: str) -> float:
    """``1 / position`` of ``gold`` in ``ranking`` (best first); 0 when absent."""
    return 1.0 / (list(ranking).index(gold) + 1) if gold in ranking else 0.0
