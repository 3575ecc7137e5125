"""Per-model accuracy over tasks with paired pairwise tests, the top model, size correlations and a bootstrap of
the mean."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap, finite_mean
from slmbench.analysis.stats_corr import correlate
from slmbench.analysis.stats_equivalence import Equivalence, tost_paired_binary
from slmbench.analysis.stats_tests import pairwise_paired
from slmbench.analysis.topics.common.rows import (
    SCORED,
    estimate_parts,
    json_float,
    model_info,
    scored,
)
from slmbench.analysis.topics.common.units import unit_rate, unit_shares


def top_model(
    counts: dict[str, tuple[float, int]], exclude: set[str], min_gap: int = 2
) -> tuple[str | None, float]:
    """The model ahead of every other by at least ``min_gap`` tasks, or None; and the gap to the runner-up.

    The gap is the difference in accuracy times the smaller trial count (in tasks). A tie, or a lead of one
    task, names no top model: with tens of tasks per model a one-task lead is noise.
    """
    rates = sorted(
        ((k / n, n, m) for m, (k, n) in counts.items() if n > 0 and m not in exclude), reverse=True
    )
    if len(rates) < 2:
        return (rates[0][2] if rates else None), math.nan
    (r1, n1, first), (r2, n2, _) = rates[0], rates[1]
    gap = (r1 - r2) * min(n1, n2)
    return (first if gap >= min_gap - 1e-9 else None), gap


def _tied(counts: dict[str, tuple[float, int]], exclude: set[str]) -> tuple[int, float]:
    """How many models share the best accuracy, and that accuracy (models in ``exclude`` aside)."""
    rates = [k / n for m, (k, n) in counts.items() if n > 0 and m not in exclude]
    best = max(rates, default=math.nan)
    return sum(r == best for r in rates), best


def _mean_model_acc(draw: Draw) -> float:
    """Mean of the drawn models' accuracies (column ``acc``)."""
    return finite_mean(draw["acc"])


def pair_equivalence(first: pd.Series, second: pd.Series, margin: float, alpha: float) -> Equivalence | None:
    """TOST of two models' accuracy over their common units (second minus first) within ``margin``
    (``stats_equivalence``), where each unit has one outcome per model (shares 0 or 1: one run, or repeats that
    agree); None where a unit's repeats disagree (its outcome is not binary, and the score test does not apply)."""
    common = first.index.intersection(second.index)
    a, b = first.loc[common].to_numpy(dtype=float), second.loc[common].to_numpy(dtype=float)
    if not set(a.tolist()) | set(b.tolist()) <= {0.0, 1.0}:
        return None
    return tost_paired_binary(int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum()), len(common),
                              margin, alpha)  # fmt: skip


def accuracy_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], params: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Per-model accuracy with its Wilson interval over tasks, pairwise exact McNemar tests by task among non-base
    models (BH, Cohen's h), log-size correlations.

    The unit is a task in one variant (``units``): repeats of a task are not independent trials, so the interval
    counts tasks and two models are compared on the tasks both ran. ``.k``/``.n`` count trials.

    Args:
        prefix: Key prefix (``ext`` or ``cap``).
        df: Trials of one study, suite and temperature.
        selection: The trials.parquet filter these rows came from.
        params: Topic parameters (``alpha``, ``bootstrap_seed``, ``n_boot``, ``equivalence_margin``).
    """
    alpha, seed, n_boot = params["alpha"], params["bootstrap_seed"], params["n_boot"]
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    selection = {**selection, **SCORED}  # every number below counts scored trials
    info = model_info(df) if len(df) else pd.DataFrame(columns=["params_b", "is_base"])
    shares: dict[str, pd.Series] = (
        {str(m): unit_shares(part) for m, part in df.groupby("model", sort=True)} if len(df) else {}
    )
    for model in info.index:
        mine = df[df["model"] == model]
        r = unit_rate(mine, alpha)
        units = len(shares.get(model, ()))
        sel = {**selection, "model": model}
        prov = nb.provenance(
            unit_rate,
            sel,
            f"accuracy of {model}, interval over tasks",
            alpha=alpha,
        )
        out += nb.rate_numbers(f"{prefix}.acc.{nb.slug(model)}", r, prov)
        out.append(nb.count(f"{prefix}.acc.{nb.slug(model)}.units", units, prov))
        if info.loc[model, "is_base"]:
            out.append(nb.flag(f"{prefix}.base.{nb.slug(model)}", True, prov))
        rows.append(
            {
                "model": model,
                "params_b": json_float(info.loc[model, "params_b"]),
                "is_base": bool(info.loc[model, "is_base"]),
                "k": r.k,
                "n": r.n,
                "units": units,
                "unit_k": float(shares[model].sum()) if units else 0.0,
                "acc": json_float(r.rate),
                "lo": json_float(r.lo),
                "hi": json_float(r.hi),
            }
        )
    base = {m for m in info.index if info.loc[m, "is_base"]}
    instruct = {m: s for m, s in shares.items() if m not in base}
    comps = pairwise_paired(instruct, alpha)
    fn = pairwise_paired
    margin = float(params["equivalence_margin"])
    equivalent: list[bool] = []
    for c in comps:
        sel = {**selection, "model": [c.first, c.second]}
        what = f"exact McNemar test of {c.first} vs {c.second}, paired by task, BH over all pairs"
        prov = nb.provenance(fn, sel, what, alpha=alpha)
        key = f"{prefix}.pair.{nb.slug(c.first)}.{nb.slug(c.second)}"
        out += [
            nb.pvalue(f"{key}.p", c.p, prov),
            nb.pvalue(f"{key}.padj", c.p_adj, prov),
            nb.flag(f"{key}.sig", c.significant, prov),
            nb.stat(f"{key}.h", c.cohens_h, prov),
        ]
        eq = pair_equivalence(instruct[c.first], instruct[c.second], margin, alpha)
        if eq is not None:
            eprov = nb.provenance(
                tost_paired_binary, sel, f"TOST of {c.second} minus {c.first}, paired by task, within the margin",
                unit="tasks", margin=margin, alpha=alpha, level=1 - 2 * alpha,
            )  # fmt: skip
            out += [
                nb.rate(f"{key}.diff.lo", eq.lo, eprov),
                nb.rate(f"{key}.diff.hi", eq.hi, eprov),
                nb.pvalue(f"{key}.equiv.p", eq.p, eprov),
                nb.flag(f"{key}.equiv.shown", eq.equivalent, eprov),
            ]
            equivalent.append(eq.equivalent)
    prov = nb.provenance(
        fn, {**selection, "model": sorted(instruct)}, "pairs significant after BH", alpha=alpha
    )
    n_sig = sum(c.significant for c in comps)
    applies = bool(comps) and len(equivalent) == len(comps)  # TOST applies to every pair
    n_equiv = sum(equivalent) if applies else None
    out += [
        nb.count(f"{prefix}.pairs.n-sig", n_sig, prov),
        nb.count(f"{prefix}.pairs.n-tests", len(comps), prov),
        nb.text(f"{prefix}.phrase.pairs", phrases.pairs_phrase(n_sig, len(comps), n_equiv, margin), prov),
    ]
    if n_equiv is not None:
        eprov = nb.provenance(
            tost_paired_binary, {**selection, "model": sorted(instruct)}, "pairs TOST shows equivalent",
            unit="tasks", margin=margin, alpha=alpha,
        )  # fmt: skip
        out += [
            nb.count(f"{prefix}.pairs.n-equiv", n_equiv, eprov),
            nb.rate(f"{prefix}.pairs.equiv.margin", margin, eprov),
        ]
    counts = {m: (float(s.sum()), len(s)) for m, s in shares.items()}
    top, gap = top_model(counts, base)
    if top is not None and not all(c.significant for c in comps if top in (c.first, c.second)):
        top = None  # a lead that no test supports names no model
    tprov = nb.provenance(
        top_model,
        selection,
        "a model ahead of all others by 2+ tasks, every test significant",
    )
    out += [
        nb.text(f"{prefix}.top", top or "none", tprov),
        nb.stat(f"{prefix}.top.gap", gap, tprov, digits=0),
        nb.text(
            f"{prefix}.phrase.top", phrases.top_phrase(top, gap, len(instruct), *_tied(counts, base)), tprov
        ),
    ]
    acc = {m: float(s.mean()) for m, s in instruct.items() if len(s)}
    sizes = info["params_b"].astype(float).apply(math.log10)
    out += correlation_numbers(f"{prefix}.corr.logparams-acc", sizes, acc, selection, "accuracy", alpha)
    cprov = nb.provenance("len", {**selection, "model": sorted(acc)}, "instruction-tuned models correlated")
    out += [
        nb.count(f"{prefix}.corr.n", len(acc), cprov),
        nb.text(f"{prefix}.phrase.size", phrases.size_phrase(len(acc)), cprov),
    ]
    sc = scored(df[~df["model"].isin(base)])
    per_model = sc.groupby("model")["passed"].mean().rename("acc").reset_index()
    fb = cluster_bootstrap
    boot = cluster_bootstrap(per_model, _mean_model_acc, n_resamples=n_boot, seed=seed, alpha=alpha)
    prov = nb.provenance(
        fb, selection, "mean accuracy of instruction-tuned models, models resampled", bootstrap_seed=seed
    )
    out += [
        nb.rate(f"{prefix}.boot.acc.mean{sfx}", v, prov)
        for sfx, v in estimate_parts(boot.estimate, boot.lo, boot.hi)
    ]
    out += [
        nb.count(f"{prefix}.boot.n-clusters", boot.n_clusters, prov),
        nb.count(f"{prefix}.boot.n-valid", boot.n_valid, prov),
        nb.count(f"{prefix}.boot.n-resamples", boot.n_resamples, prov),
        nb.text(
            f"{prefix}.phrase.boot",
            phrases.bootstrap_phrase(boot.n_clusters, boot.n_valid, boot.n_resamples),
            prov,
        ),
    ]
    return out, rows


def correlation_numbers(
    key: str,
    sizes: pd.Series,
    scores: dict[str, float],
    selection: dict[str, Any],
    what: str,
    alpha: float,
) -> list[Number]:
    """Pearson and Spearman of parameter count vs a per-model score, with p and Fisher-z interval."""
    models = sorted(m for m in scores if m in sizes.index and pd.notna(sizes[m]))
    x = [float(sizes[m]) for m in models]
    y = [scores[m] for m in models]
    out: list[Number] = []
    for method, coef in (("pearson", "r"), ("spearman", "rho")):
        c = correlate(x, y, method, alpha)
        prov = nb.provenance(correlate, selection, f"{method} of parameter count vs {what}", method=method)
        out += [
            nb.stat(f"{key}.{method}.{coef}", c.r, prov),
            nb.pvalue(f"{key}.{method}.p", c.p, prov),
            nb.stat(f"{key}.{method}.lo", c.lo, prov),
            nb.stat(f"{key}.{method}.hi", c.hi, prov),
        ]
    return out
