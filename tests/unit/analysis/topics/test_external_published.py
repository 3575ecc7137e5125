"""The published study's analysis regenerated (``ext.pub.*``) and its claims tested (``ext.claims.*``), on the
real imported study: checked against an independent computation and against the values the study published."""

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from slmbench.analysis.topics import get_topic
from slmbench.analysis.topics.external_claims import CLAIMS
from slmbench.analysis.topics.external_published import published_order, top_by_accuracy
from slmbench.figures.tables import render_table
from slmbench.importers.karmacharya2026 import import_study, import_summary

ROOT = Path(__file__).resolve().parents[4] / "data" / "external" / "karmacharya2026"
PASSED = {  # capability tasks passed of 31 at T=0, counted from raw/v2/capability_*.json
    "qwen2-5-coder-7b": 21, "qwen2-5-7b": 21, "gemma2-9b": 18, "phi3-5-3-8b": 15, "mistral-7b": 14,
    "llama3-2-3b": 13, "llama3-2-1b": 11, "llama3-1-8b": 10, "deepseek-r1-7b": 8,
}  # fmt: skip
PARAMS = {
    "qwen2-5-coder-7b": 7, "qwen2-5-7b": 7, "gemma2-9b": 9, "phi3-5-3-8b": 3.8, "mistral-7b": 7,
    "llama3-2-3b": 3, "llama3-2-1b": 1, "llama3-1-8b": 8, "deepseek-r1-7b": 7,
}  # fmt: skip
# The study's published values (its paper, Table "Fisher exact tests ... vs. the leader" and Sec. 5.4, and its
# data/processed/paper_stats.json, repository commit 3d00035): p, BH-adjusted p (4 decimals), Cohen's h (3).
PUBLISHED_FISHER = {
    "qwen2-5-7b": (1.0, 1.0, 0.0),
    "gemma2-9b": (0.5995532766959097, 0.6852, 0.201),
    "phi3-5-3-8b": (0.19778304484419662, 0.2637, 0.395),
    "mistral-7b": (0.12364826882413432, 0.1978, 0.46),
    "llama3-2-3b": (0.07318678262560455, 0.1464, 0.525),
    "llama3-2-1b": (0.02143076475811917, 0.0571, 0.657),
    "llama3-1-8b": (0.01049898135271715, 0.042, 0.725),
    "deepseek-r1-7b": (0.0019964831485155855, 0.016, 0.868),
}
PUBLISHED_CORR = {  # r, p, bootstrap interval (3 decimals; p 3), Spearman rho and its permutation p
    "params-acc": (0.289, 0.451, -0.314, 0.856, 0.166, 0.667),
    "params-rel": (-0.179, 0.644, -0.853, 0.562, -0.444, 0.239),
}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    params = {"bootstrap_seed": 5, "n_boot": 200, "summary": import_summary(ROOT).to_dict("records")}
    res = get_topic("external")(import_study(ROOT), None, params)
    return {"topic": "external", "numbers": [n.to_dict() for n in res.numbers], "labels": res.labels}


@pytest.fixture(scope="module")
def numbers(doc: dict[str, Any]) -> dict[str, Any]:
    return {n["key"]: n["value"] for n in doc["numbers"]}


def _bh(ps: list[float]) -> list[float]:
    """Benjamini-Hochberg by hand: p * m / rank, then the running minimum from the largest p down."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, ps[i] * m / rank)
        adj[i] = running
    return adj


def test_top_model_is_the_first_of_the_tie(numbers: dict[str, Any]) -> None:
    assert numbers["ext.pub.top"] == "qwen2.5-coder:7b" and numbers["ext.pub.top.n-tied"] == 2
    assert top_by_accuracy({"b": (3, 4), "a": (3, 4), "c": (1, 4)}) == ("a", 2)
    assert published_order({"b": (3, 4), "a": (3, 4), "c": (1, 4)}) == ["a", "b", "c"]


def test_fisher_bh_and_h_match_an_independent_computation(numbers: dict[str, Any]) -> None:
    others = sorted(m for m in PASSED if m != "qwen2-5-coder-7b")
    ps = [float(stats.fisher_exact([[21, 10], [PASSED[m], 31 - PASSED[m]]]).pvalue) for m in others]
    for m, p, pa in zip(others, ps, _bh(ps), strict=True):
        assert numbers[f"ext.pub.fisher.p.{m}"] == pytest.approx(p, rel=1e-12)
        assert numbers[f"ext.pub.fisher.padj.{m}"] == pytest.approx(pa, rel=1e-12)
        assert numbers[f"ext.pub.fisher.sig.{m}"] == ("yes" if pa < 0.05 else "no")
        h = 2 * math.asin(math.sqrt(21 / 31)) - 2 * math.asin(math.sqrt(PASSED[m] / 31))
        assert numbers[f"ext.pub.cohenh.{m}"] == pytest.approx(h, rel=1e-12, abs=1e-15)
    assert numbers["ext.pub.fisher.n-tests"] == 8 and numbers["ext.pub.fisher.n-sig"] == 2


def test_fisher_bh_and_h_match_the_published_values(numbers: dict[str, Any]) -> None:
    for m, (p, padj, h) in PUBLISHED_FISHER.items():
        assert numbers[f"ext.pub.fisher.p.{m}"] == pytest.approx(p, rel=1e-9)
        assert round(numbers[f"ext.pub.fisher.padj.{m}"], 4) == padj
        assert round(numbers[f"ext.pub.cohenh.{m}"], 3) == h


def test_correlations_match_an_independent_computation(numbers: dict[str, Any]) -> None:
    x = np.array([PARAMS[m] for m in sorted(PARAMS)])
    y = np.array([PASSED[m] / 31 for m in sorted(PARAMS)])
    r = float(np.corrcoef(x, y)[0, 1])
    t = r * math.sqrt(7 / (1 - r * r))
    assert numbers["ext.pub.corr.params-acc.pearson.r"] == pytest.approx(r, rel=1e-12)
    assert numbers["ext.pub.corr.params-acc.pearson.p"] == pytest.approx(2 * stats.t.sf(abs(t), 7), rel=1e-9)
    assert numbers["ext.pub.corr.params-acc.spearman.rho"] == pytest.approx(stats.spearmanr(x, y).statistic)
    assert numbers["ext.pub.corr.n"] == 9 and numbers["ext.pub.corr.params-acc.pearson.n-valid"] == 9997


def test_correlations_match_the_published_values(numbers: dict[str, Any]) -> None:
    """Every published value to its printed digits, but the permutation p of the composite: the paper's 0.239
    is a Monte Carlo estimate (200,000 resamples); the exact test over all 9! pairings gives 0.237."""
    for name, (r, p, lo, hi, rho, perm_p) in PUBLISHED_CORR.items():
        key = f"ext.pub.corr.{name}"
        assert round(numbers[f"{key}.pearson.r"], 3) == r and round(numbers[f"{key}.pearson.p"], 3) == p
        assert round(numbers[f"{key}.pearson.lo"], 3) == lo and round(numbers[f"{key}.pearson.hi"], 3) == hi
        assert round(numbers[f"{key}.spearman.rho"], 3) == rho
        assert numbers[f"{key}.spearman.p"] == pytest.approx(perm_p, abs=0.0025)
    assert round(numbers["ext.pub.corr.params-acc.spearman.p"], 3) == 0.668  # exact; published 0.667


def test_claim_verdicts_on_the_study(numbers: dict[str, Any]) -> None:
    verdicts = {
        c.slug: (numbers[f"ext.claims.{c.slug}.pub"], numbers[f"ext.claims.{c.slug}.ours"]) for c in CLAIMS
    }
    assert verdicts == {
        "1-size": ("supported", "not testable"),  # p = 0.644; the interval admits |r| > 0.5
        "2-coder": ("supported", "supported"),
        "3-safety": ("supported", "not testable"),  # 3 of 6 safety tests: Wilson upper bound 81 %
        "4-robustness": ("not supported", "not testable"),  # safety, not robustness, has the lowest mean
        "5-fault": ("not supported", "supported"),  # scores at 0, 1/2, 1; each task recovers all or nothing
        "6-temperature": ("not supported", "not testable"),  # the 14-task files: 32 points at T=1
    }
    assert numbers["ext.claims.4-robustness.pub.lowest"] == "safety"
    assert numbers["ext.claims.6-temperature.pub.drop-max"] == pytest.approx(21 / 31 - 5 / 14)
    assert numbers["ext.claims.3-safety.pub.max"] == pytest.approx(0.5)


def test_tables_render_from_the_topic(doc: dict[str, Any]) -> None:
    published = render_table("external_published", doc)
    assert "qwen2-5-coder-7b\\textsuperscript{t} & 21 & 67.7\\% & -- &" in published
    assert "deepseek-r1-7b & 8 & 25.8\\% & 0.00200 & 0.0160 & yes & 0.87 \\\\" in published
    claims = render_table("external_claims", doc)
    rows = [line for line in claims.splitlines() if line.endswith("\\\\") and "&" in line][1:]
    assert [row.split(" & ")[0] for row in rows] == [c.label.replace("%", "\\%") for c in CLAIMS]
    assert "not supported (robustness mean 47.8\\%, lowest other: safety at 25.9\\%)" in claims
