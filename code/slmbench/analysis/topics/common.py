"""Building blocks shared by topics: model accuracy with leader tests, size correlations, temperature."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_bootstrap import cluster_bootstrap
from slmbench.analysis.stats_corr import correlate
from slmbench.analysis.stats_rates import newcombe_diff, wilson_interval
from slmbench.analysis.stats_tests import compare_to_leader

PKG = "slmbench.analysis"
CONDITION_COLUMNS: tuple[str, ...] = ("protocol", "max_turns", "max_tokens")
"""Harness conditions a paired comparison holds fixed on both sides (beside scaffold, parser mode, n_ctx)."""


def primary_only(trials: pd.DataFrame) -> pd.DataFrame:
    """Rows of each study's primary condition (comparison shards left out).

    A table without the ``primary`` column (written before comparison shards existed) is all primary.
    """
    if "primary" not in trials.columns:
        return trials
    return trials[trials["primary"].fillna(True).astype(bool)]


def primary_rows(trials: pd.DataFrame, study: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Trials of ``study`` in its primary condition and the selection that names them."""
    return primary_only(trials[trials["study"] == study]), {"study": study, "primary": True}


def scored(df: pd.DataFrame) -> pd.DataFrame:
    """Rows that count toward a model's score (infra errors excluded)."""
    return df[df["outcome"] != "infra_error"]


def counts_by(df: pd.DataFrame, *cols: str) -> dict[Any, tuple[int, int]]:
    """``(successes, trials)`` per value of ``cols`` over scored rows."""
    out: dict[Any, tuple[int, int]] = {}
    for key, part in scored(df).groupby(list(cols), sort=True):
        k = key[0] if len(cols) == 1 else key
        out[k] = (int(part["passed"].astype(bool).sum()), len(part))
    return out


def model_info(df: pd.DataFrame) -> pd.DataFrame:
    """One row per model: ``params_b`` and ``is_base``."""
    info = df.groupby("model", sort=True).agg(params_b=("params_b", "first"), is_base=("is_base", "first"))
    info["is_base"] = info["is_base"].fillna(False).astype(bool)
    return info


def pick_leader(counts: dict[str, tuple[int, int]], exclude: set[str]) -> tuple[str | None, int]:
    """The model with the highest rate (ties broken by name) and how many share that rate."""
    rates = {m: k / n for m, (k, n) in counts.items() if n > 0 and m not in exclude}
    if not rates:
        return None, 0
    top = max(rates.values())
    tied = sorted(m for m, r in rates.items() if math.isclose(r, top))
    return tied[0], len(tied)


def _acc(df: pd.DataFrame) -> float:
    s = scored(df)
    return float(s["passed"].astype(bool).mean()) if len(s) else math.nan


def _size_r(df: pd.DataFrame) -> float:
    s = scored(df)
    per = s.groupby("model").agg(acc=("passed", "mean"), params=("params_b", "first"))
    return correlate(per["params"], per["acc"]).r


def _mean_model_acc(df: pd.DataFrame) -> float:
    s = scored(df)
    return float(s.groupby("model")["passed"].mean().mean()) if len(s) else math.nan


def accuracy_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], params: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Per-model accuracy with Wilson intervals, Fisher vs leader with BH and Cohen's h, size correlations.

    Args:
        prefix: Key prefix (``ext`` or ``cap``).
        df: Trials of one study, suite and temperature.
        selection: The trials.parquet filter these rows came from.
        params: Topic parameters (``alpha``, ``seed``, ``n_boot``).
    """
    alpha, seed, n_boot = params["alpha"], params["seed"], params["n_boot"]
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    info = model_info(df) if len(df) else pd.DataFrame(columns=["params_b", "is_base"])
    counts = counts_by(df, "model") if len(df) else {}
    for model in info.index:
        k, n = counts.get(model, (0, 0))
        r = wilson_interval(k, n, alpha)
        sel = {**selection, "model": model}
        prov = nb.provenance(f"{PKG}.stats_rates.wilson_interval", sel, f"accuracy of {model}", alpha=alpha)
        out += nb.rate_numbers(f"{prefix}.acc.{nb.slug(model)}", r, prov)
        if info.loc[model, "is_base"]:
            out.append(nb.flag(f"{prefix}.base.{nb.slug(model)}", True, prov))
        rows.append(
            {
                "model": model,
                "params_b": _float(info.loc[model, "params_b"]),
                "is_base": bool(info.loc[model, "is_base"]),
                "k": r.k,
                "n": r.n,
                "acc": _float(r.rate),
                "lo": _float(r.lo),
                "hi": _float(r.hi),
            }
        )
    base = {m for m in info.index if info.loc[m, "is_base"]}
    leader, n_tied = pick_leader(counts, base)
    lprov = nb.provenance(f"{PKG}.topics.common.pick_leader", selection, "model with the top accuracy")
    out += [
        nb.text(f"{prefix}.leader", leader or "n/a", lprov),
        nb.count(f"{prefix}.leader.n-tied", n_tied, lprov),
    ]
    lead_rate = counts[leader][0] / counts[leader][1] if leader else math.nan
    out.append(nb.rate(f"{prefix}.leader.acc", lead_rate, lprov))
    comps = compare_to_leader(counts, leader, alpha) if leader else []
    fn = f"{PKG}.stats_tests.compare_to_leader"
    for c in comps:
        sel = {**selection, "model": [leader, c.model]}
        prov = nb.provenance(fn, sel, f"Fisher exact test of {c.model} vs {leader}, BH-adjusted", alpha=alpha)
        s = nb.slug(c.model)
        out += [
            nb.pvalue(f"{prefix}.fisher.p.{s}", c.p, prov),
            nb.pvalue(f"{prefix}.fisher.padj.{s}", c.p_adj, prov),
            nb.flag(f"{prefix}.fisher.sig.{s}", c.significant, prov),
            nb.stat(f"{prefix}.cohenh.{s}", c.cohens_h, prov),
        ]
        for row in rows:
            if row["model"] == c.model:
                row.update(p=c.p, p_adj=c.p_adj, significant=c.significant, cohens_h=c.cohens_h)
    prov = nb.provenance(fn, selection, "comparisons with the leader significant after BH", alpha=alpha)
    out += [
        nb.count(f"{prefix}.fisher.n-sig", sum(c.significant for c in comps), prov),
        nb.count(f"{prefix}.fisher.n-tests", len(comps), prov),
    ]
    acc = {m: counts[m][0] / counts[m][1] for m in counts if counts[m][1] > 0}
    out += correlation_numbers(
        f"{prefix}.corr.params-acc", info["params_b"], acc, selection, "accuracy", alpha
    )
    out.append(nb.count(f"{prefix}.corr.n", len(acc), nb.provenance("len", selection, "models correlated")))
    sc = scored(df)
    fb = f"{PKG}.stats_bootstrap.cluster_bootstrap"
    r_full = _size_r(sc) if len(sc) else math.nan
    boot = cluster_bootstrap(
        sc,
        _size_r,
        finding=lambda v: math.copysign(1, v) == math.copysign(1, r_full),
        n_resamples=n_boot,
        seed=seed,
    )
    prov = nb.provenance(
        fb, selection, "share of model resamples where size-accuracy r keeps its sign", seed=seed
    )
    out.append(
        nb.rate(f"{prefix}.boot.corr-acc.kept", boot.kept if math.isfinite(r_full) else math.nan, prov)
    )
    boot = cluster_bootstrap(sc, _mean_model_acc, n_resamples=n_boot, seed=seed, alpha=alpha)
    prov = nb.provenance(fb, selection, "mean accuracy over models, models resampled", seed=seed)
    out += [
        nb.rate(f"{prefix}.boot.acc.mean{sfx}", v, prov) for sfx, v in _est(boot.estimate, boot.lo, boot.hi)
    ]
    if leader:

        def leader_top(part: pd.DataFrame) -> float:
            """1 when the leader is strictly above every other non-base model (a tie does not keep it)."""
            per = part.groupby("model")["passed"].mean()
            others = per.drop([leader, *base], errors="ignore")
            if others.empty:
                return math.nan
            return float(per.get(leader, -1.0) > others.max())

        boot = cluster_bootstrap(
            sc, leader_top, cluster="task_id", finding=lambda v: v == 1.0, n_resamples=n_boot, seed=seed
        )
        kept = boot.kept
    else:
        kept = math.nan
    prov = nb.provenance(
        fb, selection, "share of task resamples where the leader stays strictly on top", seed=seed
    )
    out.append(nb.rate(f"{prefix}.boot.leader.kept", kept, prov))
    return out, rows


def _float(v: Any) -> float | None:
    """A JSON-safe float (``None`` for missing or non-finite)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _est(estimate: float, lo: float, hi: float) -> list[tuple[str, float]]:
    return [("", estimate), (".lo", lo), (".hi", hi)]


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
        prov = nb.provenance(
            f"{PKG}.stats_corr.correlate", selection, f"{method} of parameter count vs {what}", method=method
        )
        out += [
            nb.stat(f"{key}.{method}.{coef}", c.r, prov),
            nb.pvalue(f"{key}.{method}.p", c.p, prov),
            nb.stat(f"{key}.{method}.lo", c.lo, prov),
            nb.stat(f"{key}.{method}.hi", c.hi, prov),
        ]
    return out


def temperature_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Accuracy per model and temperature, and differences from the lowest temperature on shared tasks.

    Differences use only the tasks run at both temperatures, with Newcombe's interval.
    """
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    sc = scored(df)
    temps = sorted(sc["temperature"].dropna().unique()) if len(sc) else []
    for model, part in sc.groupby("model", sort=True):
        mtemps = sorted(part["temperature"].unique())
        base_t = mtemps[0]
        for t in mtemps:
            sub = part[part["temperature"] == t]
            r = wilson_interval(int(sub["passed"].sum()), len(sub), alpha)
            sel = {**selection, "model": model, "temperature": float(t)}
            prov = nb.provenance(f"{PKG}.stats_rates.wilson_interval", sel, f"accuracy of {model} at T={t}")
            key = f"{prefix}.acc.{nb.slug(model)}.{nb.temp_slug(t)}"
            out += nb.rate_numbers(key, r, prov)
            row: dict[str, Any] = {"model": model, "temperature": float(t), "k": r.k, "n": r.n}
            row.update(acc=_float(r.rate), lo=_float(r.lo), hi=_float(r.hi))
            if t != base_t:
                base = part[part["temperature"] == base_t]
                shared = sorted(set(sub["task_id"]) & set(base["task_id"]))
                a, b = sub[sub["task_id"].isin(shared)], base[base["task_id"].isin(shared)]
                d, lo, hi = newcombe_diff(
                    int(a["passed"].sum()), len(a), int(b["passed"].sum()), len(b), alpha
                )
                sel = {
                    **selection,
                    "model": model,
                    "temperature": [float(base_t), float(t)],
                    "task_id": shared,
                }
                prov = nb.provenance(
                    f"{PKG}.stats_rates.newcombe_diff",
                    sel,
                    f"accuracy of {model} at T={t} minus T={base_t} on shared tasks",
                    alpha=alpha,
                )
                key = f"{prefix}.diff.{nb.slug(model)}.{nb.temp_slug(t)}"
                out += [nb.rate(f"{key}{sfx}", v, prov) for sfx, v in _est(d, lo, hi)]
                out.append(nb.count(f"{key}.n-tasks", len(shared), prov))
                row.update(diff=_float(d), diff_lo=_float(lo), diff_hi=_float(hi), n_shared=len(shared))
            rows.append(row)
    prov = nb.provenance("len", selection, "temperature sweep size")
    out += [
        nb.count(f"{prefix}.n.models", sc["model"].nunique() if len(sc) else 0, prov),
        nb.count(f"{prefix}.n.temperatures", len(temps), prov),
    ]
    return out, rows
