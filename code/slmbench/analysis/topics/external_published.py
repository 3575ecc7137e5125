"""The published study's own analysis of its capability run, regenerated as it was published (keys ``ext.pub.*``).

Each model is tested against the top model (the highest accuracy; of models tied there, the first by name: the
p-values do not depend on which tied model it is) with a two-sided Fisher exact test, Benjamini-Hochberg over
those comparisons, and Cohen's h of the top model minus the model. Parameter counts (billions, not their log)
are correlated with accuracy and with the published composite reliability: Pearson's r with its t-test p and
the study's bootstrap interval (10,000 resamples of the models with seed 42, the models in the study's order:
accuracy descending, ties by name), and Spearman's rho with an exact permutation test.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_corr import bootstrap_pearson_interval, correlate, spearman_permutation_p
from slmbench.analysis.stats_rates import cohens_h
from slmbench.analysis.stats_tests import fisher_p
from slmbench.analysis.topics.common import SCORED, counts_by

PUBLISHED_BOOT_SEED = 42
PUBLISHED_BOOT_N = 10_000
"""The seed and resamples of the published study's bootstrap intervals of Pearson's r."""


def top_by_accuracy(counts: dict[str, tuple[int, int]]) -> tuple[str | None, int]:
    """The model with the highest accuracy (of those tied there, the first by name) and how many share it."""
    rates = {m: k / n for m, (k, n) in counts.items() if n > 0}
    if not rates:
        return None, 0
    best = max(rates.values())
    tied = sorted(m for m, r in rates.items() if r == best)
    return tied[0], len(tied)


def published_order(counts: dict[str, tuple[int, int]]) -> list[str]:
    """The models by accuracy descending, ties by name (the order of the study's own model list)."""
    return sorted(
        (m for m, (_, n) in counts.items() if n > 0), key=lambda m: (-counts[m][0] / counts[m][1], m)
    )


def published_block(
    cap: pd.DataFrame, summary: pd.DataFrame, selection: dict[str, Any], alpha: float
) -> list[Number]:
    """The ``ext.pub.*`` numbers of the capability trials ``cap`` (one study, T=0) and the published summary."""
    selection = {**selection, **SCORED}
    counts = counts_by(cap, "model") if len(cap) else {}
    top, n_tied = top_by_accuracy(counts)
    tprov = nb.provenance(top_by_accuracy, selection, "the model with the highest accuracy")
    out = [nb.text("ext.pub.top", top or "none", tprov), nb.count("ext.pub.top.n-tied", n_tied, tprov)]
    out += [nb.flag(f"ext.pub.top.{nb.slug(m)}", m == top, tprov) for m in sorted(counts)]
    if top is not None:
        out += _versus_top(counts, top, selection, alpha)
    order = published_order(counts)
    sizes = cap.groupby("model")["params_b"].first()
    acc = {m: counts[m][0] / counts[m][1] for m in order}
    comp = dict(zip(summary["model"], summary["composite_reliability"], strict=True)) if len(summary) else {}
    out += _correlations("params-acc", order, sizes, acc, selection, "accuracy", alpha)
    rel_sel = {**selection, "suite": "reliability"}
    rel_sel.pop("temperature", None)
    out += _correlations("params-rel", order, sizes, comp, rel_sel, "published composite reliability", alpha)
    out.append(nb.count("ext.pub.corr.n", len(order), nb.provenance("len", selection, "models correlated")))
    return out


def _versus_top(
    counts: dict[str, tuple[int, int]], top: str, selection: dict[str, Any], alpha: float
) -> list[Number]:
    others = sorted(m for m, (_, n) in counts.items() if m != top and n > 0)
    if not others:
        return []
    (k_top, n_top) = counts[top]
    ps = [fisher_p(k_top, n_top, *counts[m]) for m in others]
    from statsmodels.stats.multitest import multipletests  # imported on first use (start-up time)

    reject, padj, _, _ = multipletests(ps, alpha=alpha, method="fdr_bh")
    fn = fisher_p
    out: list[Number] = []
    for m, p, pa, r in zip(others, ps, padj, reject, strict=True):
        prov = nb.provenance(
            fn,
            {**selection, "model": [top, m]},
            f"Fisher exact test of {m} vs the top model {top}, BH over the {len(others)} comparisons with it",
            alpha=alpha,
        )
        s = nb.slug(m)
        out += [
            nb.pvalue(f"ext.pub.fisher.p.{s}", p, prov),
            nb.pvalue(f"ext.pub.fisher.padj.{s}", float(pa), prov),
            nb.flag(f"ext.pub.fisher.sig.{s}", bool(r), prov),
            nb.stat(f"ext.pub.cohenh.{s}", cohens_h(k_top / n_top, counts[m][0] / counts[m][1]), prov),
        ]
    prov = nb.provenance(
        fn, {**selection, "model": [top, *others]}, "comparisons with the top model; significant after BH"
    )
    return out + [
        nb.count("ext.pub.fisher.n-tests", len(others), prov),
        nb.count("ext.pub.fisher.n-sig", int(sum(reject)), prov),
    ]


def _correlations(
    name: str,
    order: list[str],
    sizes: pd.Series,
    scores: dict[str, float],
    selection: dict[str, Any],
    what: str,
    alpha: float,
) -> list[Number]:
    models = [m for m in order if m in scores and m in sizes.index and math.isfinite(float(sizes[m]))]
    x, y = [float(sizes[m]) for m in models], [float(scores[m]) for m in models]
    key = f"ext.pub.corr.{name}"
    pearson = correlate(x, y, "pearson", alpha)
    lo, hi, n_valid = bootstrap_pearson_interval(x, y, PUBLISHED_BOOT_N, PUBLISHED_BOOT_SEED, alpha)
    prov = nb.provenance(
        bootstrap_pearson_interval,
        {**selection, "model": models},
        f"Pearson r of parameter count (billions) vs {what}; percentile bootstrap interval, models resampled",
        bootstrap_seed=PUBLISHED_BOOT_SEED,
        n_resamples=PUBLISHED_BOOT_N,
        order=models,
    )
    out = [
        nb.stat(f"{key}.pearson.r", pearson.r, prov),
        nb.pvalue(f"{key}.pearson.p", pearson.p, prov),
        nb.stat(f"{key}.pearson.lo", lo, prov),
        nb.stat(f"{key}.pearson.hi", hi, prov),
        nb.count(f"{key}.pearson.n-valid", n_valid, prov),
    ]
    sprov = nb.provenance(
        spearman_permutation_p,
        {**selection, "model": models},
        f"Spearman rho of parameter count vs {what}; two-sided exact permutation test over all pairings",
    )
    return out + [
        nb.stat(f"{key}.spearman.rho", correlate(x, y, "spearman", alpha).r, sprov),
        nb.pvalue(f"{key}.spearman.p", spearman_permutation_p(x, y), sprov),
    ]
