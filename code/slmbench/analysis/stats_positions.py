"""Position bias of a chooser that answers a position (a turn number): how often each position is answered and how
often it is right, the accuracy of always answering one position, accuracy corrected for chance agreement, and a
prediction re-decided from the recorded candidate scores with the chooser's position prior divided out.

* **chance-corrected accuracy** is Cohen's kappa of the answers against the gold positions:
  ``(p_o - p_e) / (1 - p_e)``, with ``p_o`` the accuracy and ``p_e = sum_p a_p g_p`` the accuracy expected if
  answers were drawn independently of the items with the same marginals (``a_p``: share of answers at ``p``;
  ``g_p``: share of gold positions at ``p``); 0 is what a position habit alone earns, 1 is every item right;
* **prior-debiased prediction**: each item's candidate scores (log-likelihoods) are normalised to probabilities
  over its own candidates; the chooser's prior of position ``p`` is the mean probability it gives ``p`` over the
  estimation items that offer ``p``; an item's debiased answer is the candidate with the highest
  ``log prob - log prior`` (ties to the earlier candidate). The prior is estimated on items other than those it is
  applied to (the calibration split), as contextual calibration does with a content-free input.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PositionCount:
    """One position: how often it was answered, how often it was the gold one, and how often both."""

    position: str
    answered: int
    gold: int
    correct: int


def _order(position: str) -> tuple[int, str]:
    return (int(position), position) if position.isdigit() else (10**9, position)


def position_counts(answers: Sequence[str], gold: Sequence[str]) -> list[PositionCount]:
    """Per position that was answered or gold (in numeric order): answered, gold and correct counts."""
    if len(answers) != len(gold):
        raise ValueError("answers and gold differ in length")
    a, g = Counter(answers), Counter(gold)
    right = Counter(x for x, y in zip(answers, gold, strict=True) if x == y)
    return [PositionCount(p, a[p], g[p], right[p]) for p in sorted(set(a) | set(g), key=_order)]


def mode_position(answers: Sequence[str]) -> str | None:
    """The most often answered position (ties to the lower position); None without answers."""
    if not answers:
        return None
    counts = Counter(answers)
    return min(counts, key=lambda p: (-counts[p], _order(p)))


def chance_corrected(answers: Sequence[str], gold: Sequence[str]) -> float:
    """Cohen's kappa of the answers against the gold positions (nan without items or when chance is 1)."""
    n = len(answers)
    if n == 0 or n != len(gold):
        return math.nan
    counts = position_counts(answers, gold)
    p_o = sum(c.correct for c in counts) / n
    p_e = sum(c.answered * c.gold for c in counts) / (n * n)
    return math.nan if p_e >= 1 else (p_o - p_e) / (1 - p_e)


def _probabilities(scores: Mapping[str, float]) -> dict[str, float]:
    top = max(scores.values())
    weights = {c: math.exp(s - top) for c, s in scores.items()}
    total = sum(weights.values())
    return {c: w / total for c, w in weights.items()}


def position_prior(items: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Position -> the mean probability the chooser gives it over the items that offer it."""
    sums: dict[str, float] = {}
    counts: Counter[str] = Counter()
    for scores in items:
        for c, p in _probabilities(scores).items():
            sums[c] = sums.get(c, 0.0) + p
            counts[c] += 1
    return {c: sums[c] / counts[c] for c in sums}


def debiased_answer(scores: Mapping[str, float], prior: Mapping[str, float]) -> str:
    """The candidate with the highest log-probability minus log-prior (candidates in numeric order; ties to the
    earlier; a position without a prior keeps its log-probability)."""
    probs = _probabilities(scores)

    def value(c: str) -> float:
        q = prior.get(c)
        logp = math.log(probs[c]) if probs[c] > 0 else -math.inf
        return logp - math.log(q) if q and q > 0 else logp

    ordered = sorted(scores, key=_order)
    return max(ordered, key=lambda c: (value(c), -ordered.index(c)))
