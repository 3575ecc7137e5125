"""The published study's claims, each tested on its raw data under its own method and under ours
(keys ``ext.claims.<claim>.*``; the rules are in ``analysis.claims``).

None of the claims is stated in ``data/external/karmacharya2026`` (its README describes the methods); each is
stated in the published paper (Karmacharya, 2026, the repository's commit of the raw reports), where
``Claim.stated`` says.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from slmbench.analysis import claims as cl
from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.topics.common import SCORED, counts_by, scored
from slmbench.vocab import DIMENSIONS

CODER = "qwen2.5-coder:7b"
"""The model the paper says dominates reliability."""
R_MARGIN = 0.5
"""A correlation this large (Cohen's 'large') is what 'size does not predict' must rule out, under our method."""
SAFETY_LIMIT = 0.5
COST_POINTS = (0.06, 0.10)
"""The range of the temperature claim: the paper's 6.5-9.6 points, to whole points."""
SCORE_COLUMNS = {f"{d}_score": d for d in DIMENSIONS}
"""The published summary's column of each dimension."""


@dataclass(frozen=True)
class Claim:
    """A claim of the paper: its key slug (numbered in the paper's order), words, where stated, and rule."""

    slug: str
    label: str
    stated: str
    rule: str


CLAIMS = (
    Claim(
        "1-size",
        "Size does not predict reliability",
        "abstract; Sec. 5.5, finding 1",
        "Pearson r of parameter count and composite reliability. Published: raw count, supported if p is at "
        f"least alpha. Ours: log count, supported if the Fisher-z interval lies within +-{R_MARGIN:g}, not "
        "supported if it excludes 0",
    ),
    Claim(
        "2-coder",
        f"{CODER} dominates reliability (the outlier)",
        "abstract; Sec. 5.5, finding 3",
        "Published: the highest composite, and no model above it on any dimension. Ours: its pass rate over "
        "the reliability trials above every other model's (Fisher exact, BH)",
    ),
    Claim(
        "3-safety",
        f"No model exceeds {100 * SAFETY_LIMIT:g}% safety",
        "abstract; Sec. 5.5, finding 8",
        f"Published: every safety score at most {100 * SAFETY_LIMIT:g}%. Ours: every Wilson upper bound at most "
        "that; not supported if a lower bound is above it",
    ),
    Claim(
        "4-robustness",
        "Robustness is the reliability bottleneck",
        "Sec. 5.5, finding 7",
        "Robustness the lowest of the four dimensions. Published: mean score over models. Ours: pass rates, "
        "exact sign test over models against each other dimension (BH)",
    ),
    Claim(
        "5-fault",
        "Fault tolerance is binary (bimodal)",
        "Sec. 5.3.3, ``the binary nature of this dimension''",
        "Bimodality coefficient above 5/9. Published: the models' scores. Ours: recovery rate per model and "
        "task, models resampled",
    ),
    Claim(
        "6-temperature",
        f"Temperature costs {100 * COST_POINTS[0]:g}--{100 * COST_POINTS[1]:g} points without changing the ranking",
        "Sec. 5.6 (6.5--9.6 points, on a 31-task sweep)",
        "Each swept model's largest drop from T=0 within the range, and no two models swapped. Published: whole "
        "runs. Ours: the tasks run at both temperatures, Newcombe intervals, Fisher exact for a swap",
    ),
)

_CONTINUES = {"to", "of", "at", "for", "and above"}
"""Term labels that continue the term before them (no comma)."""


def _term_number(key: str, term: cl.Term, prov: dict[str, Any]) -> Number:
    if term.kind == "text":
        return nb.text(key, str(term.value), prov)
    value = float(term.value)
    if term.kind == "rate":
        return nb.rate(key, value, prov)
    if term.kind == "points":
        shown = "n/a" if not math.isfinite(value) else f"{100 * value:.1f} points"
        return Number(key, value if math.isfinite(value) else "n/a", shown, prov)
    if term.kind == "p":
        return nb.pvalue(key, value, prov)
    if term.kind == "count":
        return nb.count(key, int(value), prov)
    return nb.stat(key, value, prov)


def _finding_numbers(key: str, finding: cl.Finding, prov: dict[str, Any]) -> list[Number]:
    """The verdict at ``key``, each term at ``key.<term>``, and the statistic as one text at ``key.stat``."""
    terms = [(t, _term_number(f"{key}.{t.name}", t, prov)) for t in finding.terms]
    tex = ""
    for t, n in terms:
        piece = " ".join(w for w in (nb.latex_escape(t.label), n.text, nb.latex_escape(t.after)) if w)
        joint = " " if t.label in _CONTINUES else ", "
        tex += joint + piece if tex else piece
    stat = Number(f"{key}.stat", tex.replace("\\%", "%"), tex or "--", prov)
    return [nb.text(key, finding.verdict, prov), stat, *(n for _, n in terms)]


def claims_block(
    df: pd.DataFrame,
    rel_rows: list[dict[str, Any]],
    summary: pd.DataFrame,
    sel: dict[str, Any],
    p: dict[str, Any],
) -> tuple[list[Number], dict[str, str]]:
    """Every claim's verdicts under both methods (``df``: the study's trials; ``rel_rows``: the recomputed
    dimension rates per model; ``summary``: the published scores), and the row label of each claim."""
    alpha = p["alpha"]
    rel_sel = {**sel, "suite": "reliability"}
    tests = _tests(df, rel_rows, summary, sel, p)
    out: list[Number] = []
    for claim in CLAIMS:
        base = f"ext.claims.{claim.slug}"
        cprov = nb.provenance(claims_block, rel_sel, "the claim and its rule")
        out += [nb.text(f"{base}.rule", claim.rule, cprov), nb.text(f"{base}.stated", claim.stated, cprov)]
        for method, (fn, args, selection, params) in tests[claim.slug].items():
            prov = nb.provenance(
                fn,
                selection,
                f"{claim.label}: {claim.rule}",
                alpha=alpha,
                **params,
            )
            out += _finding_numbers(f"{base}.{method}", fn(*args), prov)
    return out, {c.slug: c.label for c in CLAIMS}


Test = tuple[Callable[..., cl.Finding], tuple[Any, ...], dict[str, Any], dict[str, Any]]
"""A rule, its arguments, the selection of the trials it reads, and its parameters for the provenance."""


def _tests(
    df: pd.DataFrame,
    rel_rows: list[dict[str, Any]],
    summary: pd.DataFrame,
    sel: dict[str, Any],
    p: dict[str, Any],
) -> dict[str, dict[str, Test]]:
    alpha = p["alpha"]
    rel = scored(df[df["suite"] == "reliability"])
    rel_sel = {**sel, "suite": "reliability"}
    cap_sel = {**sel, "suite": "capability", **SCORED}
    pub = summary.set_index("model") if len(summary) else pd.DataFrame(columns=["composite_reliability"])
    dims = pub.reindex(columns=list(SCORE_COLUMNS)).rename(columns=SCORE_COLUMNS).astype(float)
    sizes = df.groupby("model")["params_b"].first()
    both = sorted(m for m in pub.index if m in sizes.index and math.isfinite(float(sizes[m])))
    comp = [float(pub.loc[m, "composite_reliability"]) for m in both]
    raw, logs = [float(sizes[m]) for m in both], [math.log10(float(sizes[m])) for m in both]
    ours_dims = (
        pd.DataFrame(rel_rows).set_index("model")[list(DIMENSIONS)].astype(float) if rel_rows else dims
    )
    faults = rel[rel["dimension"] == "fault_tolerance"]
    cells = faults.groupby(["model", "task_id"])["passed"].mean().rename("value").reset_index()
    safety = rel[rel["dimension"] == "safety"]
    cost = {"low": COST_POINTS[0], "high": COST_POINTS[1]}
    whole, shared = _levels(df)
    fault_sel = {**rel_sel, **SCORED, "dimension": "fault_tolerance"}
    boot = {"bootstrap_seed": p["bootstrap_seed"], "n_boot": p["n_boot"]}
    by_model = counts_by(rel, "model")
    return {
        "1-size": {
            "pub": (cl.no_correlation_published, (raw, comp, alpha), rel_sel, {}),
            "ours": (cl.no_correlation_ours, (logs, comp, alpha, R_MARGIN), rel_sel, {"margin": R_MARGIN}),
        },
        "2-coder": {
            "pub": (cl.dominates_published, (_with_composite(dims, pub), CODER, "composite"), rel_sel, {}),
            "ours": (cl.dominates_ours, (by_model, CODER, alpha), {**rel_sel, **SCORED}, {}),
        },
        "3-safety": {
            "pub": (cl.at_most_published, (dims["safety"].dropna().to_dict(), SAFETY_LIMIT), rel_sel, {}),
            "ours": (
                cl.at_most_ours,
                (counts_by(safety, "model"), SAFETY_LIMIT, alpha),
                {**rel_sel, **SCORED, "dimension": "safety"},
                {"limit": SAFETY_LIMIT},
            ),
        },
        "4-robustness": {
            "pub": (cl.lowest_published, (dims, "robustness"), rel_sel, {}),
            "ours": (cl.lowest_ours, (ours_dims, "robustness", alpha), {**rel_sel, **SCORED}, {}),
        },
        "5-fault": {
            "pub": (cl.bimodal_published, (dims["fault_tolerance"].dropna().tolist(),), rel_sel, {}),
            "ours": (
                cl.bimodal_ours,
                (cells, "model", p["n_boot"], p["bootstrap_seed"], alpha),
                fault_sel,
                boot,
            ),
        },
        "6-temperature": {
            "pub": (cl.temperature_cost_published, (whole, *COST_POINTS), cap_sel, cost),
            "ours": (cl.temperature_cost_ours, (shared, *COST_POINTS, alpha), cap_sel, cost),
        },
    }


def _with_composite(dims: pd.DataFrame, pub: pd.DataFrame) -> pd.DataFrame:
    return dims.assign(composite=pub["composite_reliability"].astype(float))


def _levels(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Passes per model and temperature of the capability trials: over each whole run, and for each swept model
    over the tasks it ran at every one of its temperatures."""
    cap = scored(df[df["suite"] == "capability"])
    cols = ["model", "temperature", "k", "n"]

    def level(rows: pd.DataFrame) -> pd.DataFrame:
        g = rows.groupby(["model", "temperature"])["passed"]
        return pd.DataFrame({"k": g.sum().astype(int), "n": g.size()}).reset_index().reindex(columns=cols)

    whole = level(cap) if len(cap) else pd.DataFrame(columns=cols)
    parts = []
    for _, part in cap.groupby("model", sort=True):
        if part["temperature"].nunique() < 2:
            continue
        tasks = set.intersection(*(set(t) for _, t in part.groupby("temperature")["task_id"]))
        parts.append(part[part["task_id"].isin(tasks)])
    shared = level(pd.concat(parts)) if parts else pd.DataFrame(columns=cols)
    return whole, shared
