"""The unit a model's accuracy and its comparisons count: a task (and variant), not a trial.

With k repeats of each task the trials are not independent: at T=0 the repeats of a task are most often
byte-identical, so k repeats carry the information of one. A model's accuracy is therefore the mean over its
tasks of each task's pass share, its interval counts tasks, and two models are compared task by task (paired).
"""

from __future__ import annotations

import pandas as pd

from slmbench.analysis.stats_rates import Rate, wilson_share_interval
from slmbench.analysis.topics.common.rows import scored

UNIT: list[str] = ["task_id", "variant"]
"""The columns that name one unit: a task in one of its variants (a rephrasing, a fault)."""


def unit_shares(df: pd.DataFrame) -> pd.Series:
    """Each unit's share of passed repeats over the scored rows of one model (index: ``UNIT``)."""
    rows = scored(df)
    if rows.empty:
        return pd.Series(dtype=float)
    return rows.assign(ok=rows["passed"].astype(bool)).groupby(UNIT, sort=True)["ok"].mean()


def unit_rate(df: pd.DataFrame, alpha: float) -> Rate:
    """Accuracy of one model's rows with its Wilson interval over units (``k``/``n``: passes and trials)."""
    rows = scored(df)
    shares = unit_shares(rows)
    lo, hi = wilson_share_interval(float(shares.sum()), len(shares), alpha)
    k, n = int(rows["passed"].astype(bool).sum()), len(rows)
    rate = float(shares.mean()) if len(shares) else float("nan")
    return Rate(k=k, n=n, rate=rate, lo=lo, hi=hi)
