"""The composite reliability (the mean of the four dimension pass rates) and its interval, from resampling tasks.

A dimension's rate is the mean over its tasks of each task's pass share (``analysis.units``: identical repeats
once, a task's rephrasings or fault kinds clustered into it). The interval resamples tasks within each dimension,
never runs, variants or models: a resample draws each dimension's tasks with replacement, and with them every
model's share on them, and recomputes the composite of one model or the mean composite of several. With fewer
than ``MIN_CLUSTERS`` tasks in a dimension there is no interval.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from slmbench.analysis import phrases
from slmbench.analysis.stats_bootstrap import MIN_CLUSTERS
from slmbench.vocab import DIMENSIONS


def task_tables(shares: dict[str, dict[str, pd.Series]], models: Sequence[str]) -> list[np.ndarray]:
    """Per dimension a tasks x ``models`` array of pass shares (nan where a model did not run the task), from
    ``shares[model][dimension]`` (a Series indexed by task)."""
    out = []
    for dim in DIMENSIONS:
        frame = pd.DataFrame({m: shares.get(m, {}).get(dim, pd.Series(dtype=float)) for m in models})
        out.append(frame.sort_index().to_numpy(dtype=float) if len(frame) else np.zeros((0, len(models))))
    return out


def _mean_composite(tables: list[np.ndarray], picks: list[np.ndarray] | None = None) -> np.ndarray:
    """The mean over models of each model's composite, per resample (``picks``: per dimension the drawn task
    rows, resamples x tasks) or for the data (one value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of no task: nan (a model without the task)
        rates = [np.nanmean(t[None] if picks is None else t[picks[i]], axis=1) for i, t in enumerate(tables)]
        return np.nanmean(np.mean(rates, axis=0), axis=1)  # resamples x models -> resamples


def composite_interval(
    tables: list[np.ndarray], n_boot: int, seed: int, alpha: float
) -> tuple[float, float, float, int]:
    """The mean composite of the models of ``tables`` (``task_tables``), its percentile interval from resampling
    each dimension's tasks (nan without one), and the fewest tasks of any dimension."""
    fewest = min((len(t) for t in tables), default=0)
    estimate = float(_mean_composite(tables)[0]) if fewest else math.nan
    if not math.isfinite(estimate) or fewest < MIN_CLUSTERS:
        return estimate, math.nan, math.nan, fewest
    rng = np.random.default_rng(seed)
    picks = [rng.integers(0, len(t), size=(n_boot, len(t))) for t in tables]
    drawn = _mean_composite(tables, picks)
    drawn = drawn[np.isfinite(drawn)]
    if not drawn.size:
        return estimate, math.nan, math.nan, fewest
    lo, hi = (float(v) for v in np.quantile(drawn, [alpha / 2, 1 - alpha / 2]))
    return estimate, lo, hi, fewest


def composite_interval_phrase(lo: float, hi: float, fewest: int) -> str:
    """The composite's interval as text, or why it has none (fewest: tasks in the smallest dimension)."""
    if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
        return f"{phrases.percent(lo)} to {phrases.percent(hi)}"
    if fewest < MIN_CLUSTERS:
        return f"no interval ({phrases.plural(fewest, 'task')} in a dimension, fewer than {MIN_CLUSTERS} to resample)"
    return "no interval (every resample gives one value)"
