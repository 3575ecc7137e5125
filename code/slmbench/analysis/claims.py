"""Rules that test a published claim against data: each gives a verdict and the statistics behind it.

Each claim is read two ways. Under the published method a rule is applied to point estimates (or to a p-value,
as the study read it). Under ours it is applied to intervals: a claim is supported only if it holds across the
whole 95 % interval, not supported if it fails across the whole interval (or a test rejects it), and not
testable if the interval admits both or the data are missing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd

from slmbench.analysis.stats_bimodality import BIMODAL_THRESHOLD, bimodality_coefficient
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap
from slmbench.analysis.stats_corr import correlate
from slmbench.analysis.stats_rates import newcombe_diff, wilson_interval
from slmbench.analysis.stats_tests import fisher_p, flip_binomial_p

Verdict = Literal["supported", "not supported", "not testable"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
TermKind = Literal["rate", "points", "p", "stat", "count", "text"]
Counts = Mapping[str, tuple[int, int]]


@dataclass(frozen=True)
class Term:
    """One statistic behind a verdict: its key suffix, the words printed before and after it, its value and kind
    (``points``: a difference of rates, printed in percentage points)."""

    name: str
    label: str
    value: float | int | str
    kind: TermKind
    after: str = ""


@dataclass(frozen=True)
class Finding:
    """A verdict on a claim and the statistics it rests on."""

    verdict: Verdict
    terms: tuple[Term, ...]


def _bh(ps: Sequence[float], alpha: float) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (an undefined p counts as 1)."""
    from statsmodels.stats.multitest import multipletests  # imported on first use (start-up time)

    if not ps:
        return []
    clean = [p if math.isfinite(p) else 1.0 for p in ps]
    return [float(v) for v in multipletests(clean, alpha=alpha, method="fdr_bh")[1]]


def no_correlation_published(x: Sequence[float], y: Sequence[float], alpha: float) -> Finding:
    """Supported when Pearson's r of ``x`` and ``y`` is not significant (``p >= alpha``), as the study read it."""
    c = correlate(x, y, "pearson", alpha)
    terms = (Term("r", "r =", c.r, "stat"), Term("p", "p =", c.p, "p"))
    if not math.isfinite(c.p):
        return Finding("not testable", terms)
    return Finding("supported" if c.p >= alpha else "not supported", terms)


def no_correlation_ours(x: Sequence[float], y: Sequence[float], alpha: float, margin: float) -> Finding:
    """Supported when the Fisher-z interval of Pearson's r lies inside ``(-margin, margin)`` (a correlation that
    large is ruled out); not supported when it excludes 0; otherwise not testable."""
    c = correlate(x, y, "pearson", alpha)
    terms = (Term("r", "r =", c.r, "stat"), Term("lo", "CI", c.lo, "stat"), Term("hi", "to", c.hi, "stat"))
    if not (math.isfinite(c.lo) and math.isfinite(c.hi)):
        return Finding("not testable", terms)
    if -margin < c.lo and c.hi < margin:
        return Finding("supported", terms)
    return Finding("not supported" if c.lo > 0 or c.hi < 0 else "not testable", terms)


def dominates_published(scores: pd.DataFrame, model: str, overall: str) -> Finding:
    """Supported when ``model`` has the highest ``overall`` score, strictly, and on every other column of
    ``scores`` (one row per model, indexed by model) a score no other model beats."""
    others = scores.drop(index=model, errors="ignore")
    if model not in scores.index or others.empty:
        return Finding("not testable", ())
    own = {str(c): float(v) for c, v in scores.astype(float).to_dict("index")[model].items()}
    dims = [str(c) for c in scores.columns if c != overall]
    top_dims = sum(bool(own[d] >= others[d].astype(float).max()) for d in dims)
    runner_up = float(others[overall].astype(float).max())
    terms = (
        Term("score", overall, own[overall], "rate"),
        Term("next", "next", runner_up, "rate"),
        Term("n-top", "top on", top_dims, "count"),
        Term("n-dims", "of", len(dims), "count", "dimensions"),
    )
    ok = own[overall] > runner_up and top_dims == len(dims)
    return Finding("supported" if ok else "not supported", terms)


def dominates_ours(counts: Counts, model: str, alpha: float) -> Finding:
    """Fisher exact test of ``model``'s passes against each other model's, Benjamini-Hochberg over them:
    supported when it is significantly above every one; not supported when one is significantly above it."""
    others = sorted(m for m, (_, n) in counts.items() if m != model and n > 0)
    if model not in counts or counts[model][1] == 0 or not others:
        return Finding("not testable", ())
    k, n = counts[model]
    padj = _bh([fisher_p(k, n, *counts[m]) for m in others], alpha)
    rate = {m: counts[m][0] / counts[m][1] for m in others}
    below = sum(rate[m] < k / n and p < alpha for m, p in zip(others, padj, strict=True))
    above = sum(rate[m] > k / n and p < alpha for m, p in zip(others, padj, strict=True))
    terms = (
        Term("rate", "pass rate", k / n, "rate"),
        Term("n-sig", "significantly above", below, "count"),
        Term("n-tests", "of", len(others), "count", "models"),
        Term("padj-max", "largest BH p", max(padj), "p"),
    )
    if below == len(others):
        return Finding("supported", terms)
    return Finding("not supported" if above else "not testable", terms)


def at_most_published(scores: Mapping[str, float], limit: float) -> Finding:
    """Supported when no model's score exceeds ``limit``."""
    if not scores:
        return Finding("not testable", ())
    top = max(sorted(scores), key=lambda m: scores[m])
    terms = (Term("max", "highest", scores[top], "rate"), Term("max-model", "for", top, "text"))
    return Finding("supported" if scores[top] <= limit else "not supported", terms)


def at_most_ours(counts: Counts, limit: float, alpha: float) -> Finding:
    """Wilson interval of each model's pass rate: supported when every upper bound is at most ``limit``; not
    supported when some lower bound exceeds it."""
    rates = {m: wilson_interval(k, n, alpha) for m, (k, n) in sorted(counts.items()) if n > 0}
    if not rates:
        return Finding("not testable", ())
    top = max(sorted(rates), key=lambda m: rates[m].hi)
    highest_lo = max(r.lo for r in rates.values())
    terms = (
        Term("hi-max", "highest upper bound", rates[top].hi, "rate"),
        Term("hi-max-model", "for", top, "text"),
        Term("lo-max", "highest lower bound", highest_lo, "rate"),
    )
    if rates[top].hi <= limit:
        return Finding("supported", terms)
    return Finding("not supported" if highest_lo > limit else "not testable", terms)


def lowest_published(scores: pd.DataFrame, column: str) -> Finding:
    """Supported when ``column`` has the lowest mean over models (rows) of all columns, strictly."""
    means = scores.mean(axis=0, skipna=True).dropna()
    if column not in means.index or len(means) < 2:
        return Finding("not testable", ())
    lowest = str(means.drop(index=column).idxmin())
    terms = (
        Term("mean", f"{column} mean", float(means[column]), "rate"),
        Term("lowest", "lowest other:", lowest, "text"),
        Term("lowest-mean", "at", float(means[lowest]), "rate"),
    )
    return Finding("supported" if means[column] < means[lowest] else "not supported", terms)


def lowest_ours(scores: pd.DataFrame, column: str, alpha: float) -> Finding:
    """An exact sign test over models (rows with every column) of ``column`` against each other column,
    Benjamini-Hochberg over them: supported when ``column`` is significantly below every other column; not
    supported when some column is significantly below it."""
    full = scores.dropna()
    others = [c for c in full.columns if c != column]
    if column not in full.columns or len(full) < 2 or not others:
        return Finding("not testable", ())
    below = [int((full[column] < full[c]).sum()) for c in others]
    above = [int((full[column] > full[c]).sum()) for c in others]
    padj = _bh([flip_binomial_p(b, a) for b, a in zip(below, above, strict=True)], alpha)
    n_below = sum(b > a and p < alpha for b, a, p in zip(below, above, padj, strict=True))
    n_above = sum(a > b and p < alpha for b, a, p in zip(below, above, padj, strict=True))
    terms = (
        Term("n-models", "", len(full), "count", "models"),
        Term("n-below", "significantly below", n_below, "count"),
        Term("n-above", "and above", n_above, "count"),
        Term("n-others", "of", len(others), "count", "other dimensions"),
    )
    if n_below == len(others):
        return Finding("supported", terms)
    return Finding("not supported" if n_above else "not testable", terms)


def bimodal_published(values: Sequence[float]) -> Finding:
    """Supported when the bimodality coefficient of ``values`` exceeds 5/9."""
    b = bimodality_coefficient(values)
    terms = (Term("b", "b =", b, "stat"), Term("n-models", "over", len(values), "count", "models"))
    if not math.isfinite(b):
        return Finding("not testable", terms)
    return Finding("supported" if b > BIMODAL_THRESHOLD else "not supported", terms)


def bimodal_ours(cells: pd.DataFrame, cluster: str, n_boot: int, seed: int, alpha: float) -> Finding:
    """The bimodality coefficient of ``cells["value"]`` with a bootstrap interval resampling ``cluster``: supported
    when the interval lies above 5/9, not supported when below it."""
    per = cells.groupby(cluster, sort=True)["value"].apply(lambda v: v.to_numpy(dtype=float)).reset_index()

    def coefficient(draw: Draw) -> float:
        return bimodality_coefficient(np.concatenate(list(draw["value"]))) if len(draw["value"]) else math.nan

    boot = cluster_bootstrap(per, coefficient, cluster=cluster, n_resamples=n_boot, seed=seed, alpha=alpha)
    terms = (
        Term("b", "b =", boot.estimate, "stat"),
        Term("lo", "CI", boot.lo, "stat"),
        Term("hi", "to", boot.hi, "stat"),
        Term("n-cells", "over", len(cells), "count", "model-task cells"),
    )
    if not (math.isfinite(boot.lo) and math.isfinite(boot.hi)):
        return Finding("not testable", terms)
    if boot.lo > BIMODAL_THRESHOLD:
        return Finding("supported", terms)
    return Finding("not supported" if boot.hi < BIMODAL_THRESHOLD else "not testable", terms)


@dataclass(frozen=True)
class _Sweep:
    """Per swept model, its ``(k, n)`` at the lowest temperature and at the temperature of its largest drop; and
    each pair that swaps places: (the model ahead at the lowest temperature, the one behind, the temperature at
    which the second is ahead)."""

    largest: dict[str, tuple[tuple[int, int], tuple[int, int]]]
    reversals: list[tuple[str, str, float]]


def _level_counts(levels: pd.DataFrame) -> dict[tuple[str, float], tuple[int, int]]:
    """``(k, n)`` per (model, temperature) of ``levels`` (columns model, temperature, k, n), rows with trials."""
    rows = zip(levels["model"], levels["temperature"], levels["k"], levels["n"], strict=True)
    return {(str(m), float(t)): (int(k), int(n)) for m, t, k, n in rows if int(n) > 0}


def _sweep(levels: pd.DataFrame) -> _Sweep:
    """Largest drops and rank reversals of ``levels`` (columns model, temperature, k, n; one row per pair)."""
    counts = _level_counts(levels)
    if not counts:
        return _Sweep({}, [])
    base = min(t for _, t in counts)
    rate = {key: k / n for key, (k, n) in counts.items()}
    swept = sorted({m for m, t in counts if t > base and (m, base) in counts})
    largest: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}
    for m in swept:
        temps = sorted(t for mm, t in counts if mm == m and t > base)
        worst = max(temps, key=lambda t: rate[(m, base)] - rate[(m, t)])
        largest[m] = (counts[(m, base)], counts[(m, worst)])
    reversals = [
        (a, b, t)
        for a in swept
        for b in swept
        if rate[(a, base)] > rate[(b, base)]
        for t in sorted({t for _, t in counts if t > base})
        if (a, t) in rate and (b, t) in rate and rate[(a, t)] < rate[(b, t)]
    ]
    return _Sweep(largest, reversals)


def _drop(base: tuple[int, int], other: tuple[int, int]) -> float:
    return base[0] / base[1] - other[0] / other[1]


def temperature_cost_published(levels: pd.DataFrame, low: float, high: float) -> Finding:
    """Supported when every swept model's largest drop from the lowest temperature lies in ``[low, high]`` and no
    two models ordered at the lowest temperature swap places at another (at least two swept models)."""
    sweep = _sweep(levels)
    if len(sweep.largest) < 2:
        return Finding("not testable", ())
    drops = [_drop(b, o) for b, o in sweep.largest.values()]
    terms = (
        Term("drop-min", "largest drops", min(drops), "points"),
        Term("drop-max", "to", max(drops), "points"),
        Term("n-reversals", "", len(sweep.reversals), "count", "swaps"),
    )
    ok = all(low <= d <= high for d in drops) and not sweep.reversals
    return Finding("supported" if ok else "not supported", terms)


def temperature_cost_ours(levels: pd.DataFrame, low: float, high: float, alpha: float) -> Finding:
    """Newcombe interval of each swept model's largest drop: supported when every interval lies in ``[low, high]``
    and no pair swaps places; not supported when some interval lies outside ``[low, high]`` or a swap is
    significant (Fisher exact at that temperature); otherwise not testable."""
    sweep = _sweep(levels)
    if len(sweep.largest) < 2:
        return Finding("not testable", ())
    intervals = [newcombe_diff(*b, *o, alpha) for b, o in sweep.largest.values()]
    counts = _level_counts(levels)
    significant = [
        (a, b, t) for a, b, t in sweep.reversals if fisher_p(*counts[(a, t)], *counts[(b, t)]) < alpha
    ]
    outside = sum(hi < low or lo > high for _, lo, hi in intervals)
    inside = all(low <= lo and hi <= high for _, lo, hi in intervals)
    terms = (
        Term("drop-min", "largest drops", min(d for d, _, _ in intervals), "points"),
        Term("drop-max", "to", max(d for d, _, _ in intervals), "points"),
        Term("n-outside", "", outside, "count", "intervals outside the range"),
        Term("n-reversals", "", len(significant), "count", "significant swaps"),
    )
    if inside and not sweep.reversals:
        return Finding("supported", terms)
    return Finding("not supported" if outside or significant else "not testable", terms)
