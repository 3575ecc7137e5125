"""The smallest accuracy difference the design detects with 80 % power, per model and pooled, on the effective n
(identical repeats of a task count once; ``proto.power.…``)."""

from __future__ import annotations

import math

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.selection import Selected
from slmbench.analysis.topics.common import scored
from slmbench.analysis.topics.common.units import UNIT
from slmbench.analysis.topics.protocol.conditions import FULL, scored_rows

POWER = 0.8


def detectable_difference(n: int, baseline: float, alpha: float, power: float = POWER) -> float:
    """The smallest accuracy gain over ``baseline`` a two-sided test of two groups of ``n`` detects.

    Analytic, not simulated: the normal approximation of a two-sided test of two independent proportions of ``n``
    each on the arcsine scale (``statsmodels``' ``NormalIndPower``), which gives the smallest Cohen's h at level
    ``alpha`` and ``power``; that h is turned back into a rate above ``baseline``. The pairing of a McNemar test
    is ignored."""
    from statsmodels.stats.power import NormalIndPower  # here: importing it costs a second per process

    if n < 2:
        return math.nan
    h = float(NormalIndPower().solve_power(effect_size=None, nobs1=n, alpha=alpha, power=power, ratio=1.0))
    p2 = math.sin(math.asin(math.sqrt(baseline)) + h / 2) ** 2
    return min(1.0, p2) - baseline


def effective_n(df: pd.DataFrame) -> int:
    """Scored rows counted once per distinct transcript of their unit: identical repeats count once.

    Rows of several models (or temperatures, or protocols) count apart. A row without a transcript hash counts on
    its own.
    """
    rows = scored(df)
    if rows.empty:
        return 0
    sha = rows["transcript_sha256"] if "transcript_sha256" in rows else pd.Series(None, index=rows.index)
    hashed = rows[sha.notna()]
    apart = [c for c in ("model", "temperature", "protocol") if c in rows]
    key = [*apart, *UNIT, "transcript_sha256"]
    distinct = hashed.groupby(key, sort=False, dropna=False).ngroups if len(hashed) else 0
    return int(distinct + sha.isna().sum())


def power(res: TopicResult, trials: pd.DataFrame, alpha: float) -> None:
    """Smallest detectable difference (80 % power) per model and pooled, on the effective n: the trials counted
    once per distinct transcript of their task (at T=0 the repeats of a task are mostly identical, so k repeats of
    31 tasks are about 31 observations, not 31 k)."""
    full = scored_rows(trials, FULL)
    parts: list[tuple[str, Selected]] = [("pooled", full)]
    parts += [(nb.slug(model), part) for (model,), part in full.groups("model")]
    for label, part in parts:
        rows = part.rows
        n_eff = effective_n(rows)
        base = float(rows["passed"].mean()) if len(rows) else math.nan
        mdd = detectable_difference(n_eff, base, alpha) if len(rows) else math.nan
        prov = nb.provenance(
            detectable_difference,
            part.selection,
            "detectable gain over the observed rate",
            alpha=alpha,
            power=POWER,
        )
        res.numbers += [
            nb.count(f"proto.power.{label}.n", n_eff, prov),
            nb.count(f"proto.power.{label}.n-trials", len(rows), prov),
            nb.rate(f"proto.power.{label}.mdd", mdd, prov),
            nb.rate(f"proto.power.{label}.base", base, prov),
        ]
    prov = nb.provenance(
        detectable_difference,
        full.selection,
        "level and power of the detectable-gain computation",
        alpha=alpha,
    )
    res.numbers += [nb.stat("proto.power.alpha", alpha, prov), nb.rate("proto.power.power", POWER, prov)]
