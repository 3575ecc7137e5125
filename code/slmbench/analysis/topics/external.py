"""Topic ``external``: the reproduced published study (Karmacharya, 2026)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.selection import exclude
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap, finite_mean
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.stats_tests import flip_binomial_p
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.breakdowns import (
    group_block,
    model_table,
    per_model_summary,
    safety_block,
    variant_block,
)
from slmbench.analysis.topics.common import (
    SCORED,
    accuracy_block,
    correlation_numbers,
    scored,
    temperature_block,
)
from slmbench.analysis.topics.external_claims import claims_block
from slmbench.analysis.topics.external_published import published_block
from slmbench.vocab import DIMENSIONS, VARIANT_DIMENSIONS

STUDY = "karmacharya2026"
DIMS = DIMENSIONS
TOKENS = ("prompt_tokens", "completion_tokens")


@topic(reads=("trials", "summary"), part="published_studies")
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Capability accuracy, pairwise tests, size correlations, reliability and temperature of the study; its own
    analysis regenerated as published (``ext.pub.*``) and its claims tested (``ext.claims.*``).

    ``params["summary"]`` (records of ``external_summary.parquet``) supplies the published scores.
    """
    p = with_defaults(params)
    alpha = p["alpha"]
    df = trials[trials["study"] == STUDY]
    sel = {"study": STUDY}
    res = TopicResult()
    prov = nb.provenance("len", sel, "trials of the study")
    res.numbers += [
        nb.count("ext.n.models", df["model"].nunique(), prov),
        nb.count("ext.n.trials", len(df), prov),
    ]
    cap_sel = {**sel, "suite": "capability", "temperature": 0.0}
    cap = df[(df["suite"] == "capability") & (df["temperature"] == 0.0)]
    prov = nb.provenance("len", cap_sel, "capability trials at T=0")
    per_model = cap.groupby("model")["task_id"].nunique()
    res.numbers += [
        nb.count("ext.n.cap-trials", len(cap), prov),
        nb.count("ext.n.tasks", int(per_model.max()) if len(per_model) else 0, prov),
    ]
    nums, rows = accuracy_block("ext", cap, cap_sel, p)
    res.numbers += nums
    res.tables["accuracy"] = rows
    res.numbers += _breakdowns(res, df, cap, sel, cap_sel, alpha)
    rel = df[df["suite"] == "reliability"]
    nums, rel_rows = _reliability(rel, {**sel, "suite": "reliability"}, alpha)
    res.numbers += nums
    res.tables["reliability"] = rel_rows
    summary = pd.DataFrame(p.get("summary") or [])
    res.numbers += _composite(summary, cap, rows, sel, p)
    res.tables["summary"] = [{str(k): v for k, v in r.items()} for r in summary.to_dict("records")]
    sweep = df[df["suite"] == "capability"]
    nums, trows = temperature_block("ext.temp", sweep, {**sel, "suite": "capability"}, alpha)
    res.numbers += nums
    res.tables["temperature"] = trows
    res.numbers += published_block(cap, summary, cap_sel, alpha)
    nums, labels = claims_block(df, rel_rows, summary, sel, p)
    res.numbers += nums
    res.labels.update(labels)
    return res


def _breakdowns(
    res: TopicResult,
    df: pd.DataFrame,
    cap: pd.DataFrame,
    sel: dict[str, Any],
    cap_sel: dict[str, Any],
    alpha: float,
) -> list[Number]:
    """What the figures draw beside the paper's numbers: model sizes, accuracy per group, median wall time of
    the capability trials at T=0, and per reliability variant, safety outcome and mean tokens per trial."""
    rel = df[df["suite"] == "reliability"]
    rel_sel = {**sel, "suite": "reliability"}
    wall = per_model_summary(
        "ext.wall-s.median", cap, ("wall_s",), "median", cap_sel, "wall time per trial (s)", 1
    )
    tokens = per_model_summary("ext.rel.tokens.mean", rel, TOKENS, "mean", rel_sel, "tokens per trial", 0)
    blocks = [
        ("models", model_table("ext", df, sel)),
        ("groups", group_block("ext", cap, cap_sel, alpha)),
        ("wall_s", wall),
        ("variants", variant_block("ext.rel", rel, rel_sel, VARIANT_DIMENSIONS, alpha)),
        ("safety", safety_block("ext.rel", rel, rel_sel)),
        ("tokens", tokens),
    ]
    out: list[Number] = []
    for table, (nums, rows) in blocks:
        out += nums
        res.tables[table] = rows
    return out


def _reliability(
    rel: pd.DataFrame, sel: dict[str, Any], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    fn = wilson_interval
    sc = scored(rel)
    models = sorted(sc["model"].unique())
    missing = 0
    for model in models:
        m = sc[sc["model"] == model]
        row: dict[str, Any] = {"model": model}
        dims_present = 0
        for dim in DIMS:
            d = m[m["dimension"] == dim]
            dsel = {**sel, **SCORED, "model": model, "dimension": dim}
            if dim == "robustness":
                d = d[d["variant"] != "original"]
                dsel["variant"] = exclude("original")
            dims_present += len(d) > 0
            r = wilson_interval(int(d["passed"].sum()), len(d), alpha)
            prov = nb.provenance(fn, dsel, f"{dim} pass rate of {model}", alpha=alpha)
            out += nb.rate_numbers(f"ext.rel.{nb.slug(dim)}.{nb.slug(model)}", r, prov)
            row[dim] = r.rate if r.n else None
        missing += dims_present < len(DIMS)
        r = wilson_interval(int(m["passed"].sum()), len(m), alpha)
        prov = nb.provenance(
            fn, {**sel, **SCORED, "model": model}, f"pooled reliability rows of {model}", alpha=alpha
        )
        out += nb.rate_numbers(f"ext.rel.pooled.{nb.slug(model)}", r, prov, counts=False)
        rows.append(row)
        out += _flips(
            m[m["dimension"] == "robustness"], f"ext.rob.{{}}.{nb.slug(model)}", {**sel, "model": model}
        )
    out += _flips(sc[sc["dimension"] == "robustness"], "ext.rob.{}", sel)
    out.append(
        nb.count("ext.rel.n-missing", missing, nb.provenance("len", sel, "models lacking a dimension"))
    )
    return out, rows


def _flips(rob: pd.DataFrame, pattern: str, sel: dict[str, Any]) -> list[Number]:
    """Pass->fail and fail->pass flips of perturbed runs against their baseline, exact binomial test."""
    keys = ["model", "task_id"]
    base = rob[rob["variant"] == "original"][[*keys, "passed"]].drop_duplicates(keys)
    pert = rob[rob["variant"] != "original"].merge(base, on=keys, suffixes=("", "_base"))
    down = int((pert["passed_base"] & ~pert["passed"]).sum())
    up = int((~pert["passed_base"] & pert["passed"]).sum())
    prov = nb.provenance(
        flip_binomial_p,
        {**sel, **SCORED, "dimension": "robustness"},
        "flips against the baseline",
        unit="pairs",
    )
    return [
        nb.count(pattern.format("flips-down"), down, prov),
        nb.count(pattern.format("flips-up"), up, prov),
        nb.pvalue(pattern.format("binom.p"), flip_binomial_p(down, up), prov),
    ]


def _composite(
    summary: pd.DataFrame,
    cap: pd.DataFrame,
    acc_rows: list[dict[str, Any]],
    sel: dict[str, Any],
    p: dict[str, Any],
) -> list[Number]:
    if summary.empty:
        return []
    out: list[Number] = []
    rsel = {**sel, "suite": "reliability"}
    dims = ["consistency_score", "robustness_score", "fault_tolerance_score", "safety_score"]
    for rec in summary.sort_values("model").to_dict("records"):
        s = nb.slug(rec["model"])
        prov = nb.provenance("published", {**rsel, "model": rec["model"]}, "published composite reliability")
        out.append(nb.rate(f"ext.rel.composite.{s}", rec["composite_reliability"], prov))
        mean4 = sum(rec[d] for d in dims) / 4
        out.append(
            nb.flag(f"ext.rel.composite-check.{s}", math.isclose(mean4, rec["composite_reliability"]), prov)
        )
    sizes = cap.groupby("model")["params_b"].first()
    comp = dict(zip(summary["model"], summary["composite_reliability"], strict=True))
    out += correlation_numbers("ext.corr.params-rel", sizes, comp, rsel, "composite reliability", p["alpha"])
    acc = {r["model"]: r["acc"] for r in acc_rows if r["acc"] is not None}
    frame = summary.assign(acc=summary["model"].map(acc))

    def mean_comp(draw: Draw) -> float:
        return finite_mean(draw["composite_reliability"])

    def gap(draw: Draw) -> float:
        return finite_mean(draw["acc"]) - finite_mean(draw["composite_reliability"])

    fb = cluster_bootstrap
    b = cluster_bootstrap(
        frame, mean_comp, n_resamples=p["n_boot"], seed=p["bootstrap_seed"], alpha=p["alpha"]
    )
    prov = nb.provenance(
        fb, rsel, "mean published composite over models, models resampled", bootstrap_seed=p["bootstrap_seed"]
    )
    out += [
        nb.rate(f"ext.rel.composite.mean{k}", v, prov)
        for k, v in (("", b.estimate), (".lo", b.lo), (".hi", b.hi))
    ]
    b = cluster_bootstrap(
        frame, gap, finding=lambda v: v > 0, n_resamples=p["n_boot"], seed=p["bootstrap_seed"]
    )
    prov = nb.provenance(
        fb,
        sel,
        "share of model resamples with mean composite below mean accuracy",
        bootstrap_seed=p["bootstrap_seed"],
    )
    out.append(nb.rate("ext.rel.composite.boot.kept", b.kept, prov))
    return out
