"""Building blocks shared by topics: model accuracy with pairwise tests, size correlations, temperature."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import Selection, exclude
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap, finite_mean
from slmbench.analysis.stats_corr import correlate
from slmbench.analysis.stats_rates import is_eligible, newcombe_diff, wilson_interval
from slmbench.analysis.stats_tests import pairwise_fisher

PKG = "slmbench.analysis"
CONDITION_COLUMNS: tuple[str, ...] = ("protocol", "max_turns", "max_tokens")
"""Harness conditions a paired comparison holds fixed on both sides (beside scaffold, parser mode, n_ctx)."""


def primary_only(trials: pd.DataFrame) -> pd.DataFrame:
    """Rows of each study's primary condition (comparison shards left out).

    A table without the ``primary`` column (written before comparison shards existed) is all primary.
    """
    return trials[_primary_mask(trials)]


def _primary_mask(trials: pd.DataFrame) -> pd.Series:
    if "primary" not in trials.columns:
        return pd.Series(True, index=trials.index)
    return trials["primary"].fillna(True).astype(bool)


def primary_rows(trials: pd.DataFrame, study: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Trials of ``study`` in its primary condition and the selection that names them (one copy of the rows:
    each copy of a million rows costs a second)."""
    return trials[(trials["study"] == study) & _primary_mask(trials)], {"study": study, "primary": True}


def pairs_within(df: pd.DataFrame, columns: list[str]) -> int:
    """How many pairs of rows agree on every one of ``columns`` (a missing value agrees with a missing one)."""
    if df.empty:
        return 0
    n = df.groupby(columns, sort=False, observed=True, dropna=False).size().to_numpy()
    return int((n * (n - 1) // 2).sum())


def scored(df: pd.DataFrame) -> pd.DataFrame:
    """Rows that count toward a model's score (infra errors excluded)."""
    return df[df["outcome"] != "infra_error"]


SCORED: Selection = {"outcome": exclude("infra_error")}
"""The selection that ``scored`` applies: add it to the selection of rows before scoring them."""


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


def top_model(
    counts: dict[str, tuple[int, int]], exclude: set[str], min_gap: int = 2
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


def _acc(df: pd.DataFrame) -> float:
    s = scored(df)
    return float(s["passed"].astype(bool).mean()) if len(s) else math.nan


def _mean_model_acc(draw: Draw) -> float:
    """Mean of the drawn models' accuracies (column ``acc``)."""
    return finite_mean(draw["acc"])


def accuracy_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], params: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Per-model accuracy (Wilson), pairwise Fisher tests among non-base models (BH, Cohen's h), log-size correlations.

    Args:
        prefix: Key prefix (``ext`` or ``cap``).
        df: Trials of one study, suite and temperature.
        selection: The trials.parquet filter these rows came from.
        params: Topic parameters (``alpha``, ``bootstrap_seed``, ``n_boot``).
    """
    alpha, seed, n_boot = params["alpha"], params["bootstrap_seed"], params["n_boot"]
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    selection = {**selection, **SCORED}  # every number below counts scored trials
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
    instruct = {m: c for m, c in counts.items() if m not in base}
    comps = pairwise_fisher(instruct, alpha)
    fn = f"{PKG}.stats_tests.pairwise_fisher"
    for c in comps:
        sel = {**selection, "model": [c.first, c.second]}
        prov = nb.provenance(
            fn, sel, f"Fisher exact test of {c.first} vs {c.second}, BH over all pairs", alpha=alpha
        )
        key = f"{prefix}.pair.{nb.slug(c.first)}.{nb.slug(c.second)}"
        out += [
            nb.pvalue(f"{key}.p", c.p, prov),
            nb.pvalue(f"{key}.padj", c.p_adj, prov),
            nb.flag(f"{key}.sig", c.significant, prov),
            nb.stat(f"{key}.h", c.cohens_h, prov),
        ]
    prov = nb.provenance(
        fn, {**selection, "model": sorted(instruct)}, "pairs significant after BH", alpha=alpha
    )
    n_sig = sum(c.significant for c in comps)
    out += [
        nb.count(f"{prefix}.pairs.n-sig", n_sig, prov),
        nb.count(f"{prefix}.pairs.n-tests", len(comps), prov),
        nb.text(f"{prefix}.phrase.pairs", phrases.pairs_phrase(n_sig, len(comps)), prov),
    ]
    top, gap = top_model(counts, base)
    if top is not None and not all(c.significant for c in comps if top in (c.first, c.second)):
        top = None  # a lead that no test supports names no model
    tprov = nb.provenance(
        f"{PKG}.topics.common.top_model",
        selection,
        "a model ahead of all others by 2+ tasks, every test significant",
    )
    out += [
        nb.text(f"{prefix}.top", top or "none", tprov),
        nb.stat(f"{prefix}.top.gap", gap, tprov, digits=0),
        nb.text(f"{prefix}.phrase.top", phrases.top_phrase(top, gap, len(instruct)), tprov),
    ]
    acc = {m: c[0] / c[1] for m, c in instruct.items() if c[1] > 0}
    sizes = info["params_b"].astype(float).apply(math.log10)
    out += correlation_numbers(f"{prefix}.corr.logparams-acc", sizes, acc, selection, "accuracy", alpha)
    cprov = nb.provenance("len", {**selection, "model": sorted(acc)}, "instruction-tuned models correlated")
    out += [
        nb.count(f"{prefix}.corr.n", len(acc), cprov),
        nb.text(f"{prefix}.phrase.size", phrases.size_phrase(len(acc)), cprov),
    ]
    sc = scored(df[~df["model"].isin(base)])
    per_model = sc.groupby("model")["passed"].mean().rename("acc").reset_index()
    fb = f"{PKG}.stats_bootstrap.cluster_bootstrap"
    boot = cluster_bootstrap(per_model, _mean_model_acc, n_resamples=n_boot, seed=seed, alpha=alpha)
    prov = nb.provenance(
        fb, selection, "mean accuracy of instruction-tuned models, models resampled", bootstrap_seed=seed
    )
    out += [
        nb.rate(f"{prefix}.boot.acc.mean{sfx}", v, prov) for sfx, v in _est(boot.estimate, boot.lo, boot.hi)
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
    selection = {**selection, **SCORED}
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
    per_model = sc.groupby("model")["temperature"].unique() if len(sc) else pd.Series(dtype=object)
    swept = {str(m): sorted(float(t) for t in ts) for m, ts in per_model.items() if len(ts) > 1}
    lowest = min(temps) if temps else math.nan
    swept_tasks = sc[sc["model"].isin(list(swept)) & (sc["temperature"] != lowest)]["task_id"].nunique()
    sprov = nb.provenance(
        "len", {**selection, "model": sorted(swept)}, "models run at more than one temperature"
    )
    out += [
        nb.count(f"{prefix}.n.models", sc["model"].nunique() if len(sc) else 0, prov),
        nb.count(f"{prefix}.n.temperatures", len(temps), prov),
        nb.count(f"{prefix}.n.models-swept", len(swept), sprov),
        nb.count(f"{prefix}.n.tasks-swept", int(swept_tasks), sprov),
        nb.text(f"{prefix}.phrase.swept", phrases.sweep_phrase(swept), sprov),
    ]
    return out, rows


def floor_block(
    prefix: str,
    rows: list[dict[str, Any]],
    df: pd.DataFrame,
    selection: dict[str, Any],
    alpha: float,
    margin: float,
) -> list[Number]:
    """The base-model floor (the best base model's accuracy) and which instruction-tuned models clear it.

    A model clears the floor when the lower end of its Wilson interval beats the floor plus ``margin``
    (``is_eligible``); each row of ``rows`` (``accuracy_block``'s: model, k, n, is_base) gets ``eligible``.
    Keys: ``<prefix>.baseline.acc``, ``.eligible.margin``, ``.eligible.<model>``, ``.n.eligible``,
    ``.phrase.floor``.
    """
    sc = scored(df)
    base_models = sorted(str(r["model"]) for r in rows if r["is_base"])
    floor = (
        float(sc[sc["model"].isin(base_models)].groupby("model")["passed"].mean().max())
        if base_models
        else 0.0
    )
    if not math.isfinite(floor):
        floor = 0.0
    fprov = nb.provenance(
        "base-model floor", {**selection, "model": base_models}, "best accuracy of the base models"
    )
    out = [
        nb.rate(f"{prefix}.baseline.acc", floor, fprov),
        nb.rate(f"{prefix}.eligible.margin", margin, fprov),
    ]
    n_eligible = 0
    for row in rows:
        ok = is_eligible(row["k"], row["n"], floor, margin, alpha) and not row["is_base"]
        n_eligible += ok
        row["eligible"] = ok
        eprov = nb.provenance(
            f"{PKG}.stats_rates.is_eligible",
            {**selection, "model": row["model"]},
            "Wilson lower bound beats the base-model floor plus the margin",
            baseline=floor,
            margin=margin,
            alpha=alpha,
        )
        out.append(nb.flag(f"{prefix}.eligible.{nb.slug(row['model'])}", ok, eprov))
    out.append(nb.count(f"{prefix}.n.eligible", n_eligible, fprov))
    n_instruct = sum(not row["is_base"] for row in rows)
    phrase = (
        phrases.floor_phrase(n_eligible, n_instruct, floor, margin)
        if base_models
        else "no base model was run"
    )
    out.append(nb.text(f"{prefix}.phrase.floor", phrase, fprov))
    return out
