"""Tool selection per item source: ten own and ten BFCL test items, the model right on every own item and on four
BFCL items, the baseline on five own and every BFCL item. Pooled the model is behind (14 vs 15 of 20); apart it
wins on the own items and loses on the BFCL items, as the sources' numbers must show beside the pooled ones."""

from typing import Any

import pytest
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint
from tests.fixtures.eligibility import header, item_record, study_numbers

K = "elig.tool-selection.m-a.terse.shipped"
TOOLS = ("calendar", "email", "calculator")


def _study() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    base, items = [], []
    for source, n_base, n_model in (("own", 5, 10), ("bfcl", 10, 4)):
        for j in range(10):
            rid = f"{source}-{j}"
            b_pred = "calendar" if j < n_base else "email"
            base.append({"id": rid, "split": "test", "stratum": source, "label": "calendar", "prediction": b_pred,
                         "correct": j < n_base, "rule": None, "scores": None, "ranking": [b_pred], "margin": 2.0})  # fmt: skip
            rec = item_record(
                rid, "test", "calendar", "calendar" if j < n_model else "calculator", candidates=TOOLS
            )
            items.append({**rec, "stratum": source})
    for j in range(4):
        rid = f"cal-{j}"
        base.append({"id": rid, "split": "calibration", "stratum": "own", "label": "calendar", "prediction": "calendar",
                     "correct": True, "rule": None, "scores": None, "ranking": ["calendar"], "margin": 2.0})  # fmt: skip
        items.append(
            {**item_record(rid, "calibration", "calendar", "calendar", candidates=TOOLS), "stratum": "own"}
        )
    runs = [{"file": "ts", "header": header("tool_selection", "m-a"), "items": items}]
    return runs, {"tasks": {"tool_selection": {"baseline": "BM25", "items": base}}}


def test_own_and_bfcl_items_are_reported_apart_beside_the_pooled_numbers() -> None:
    n, tables = study_numbers(*_study())
    assert (n[f"{K}.acc.k"], n[f"{K}.acc.n"], n[f"{K}.baseline"]) == (14, 20, pytest.approx(0.75))
    own, bfcl = f"{K}.source.own", f"{K}.source.bfcl"
    assert (n[f"{own}.acc.k"], n[f"{own}.acc.n"], n[f"{own}.baseline"]) == (10, 10, pytest.approx(0.5))
    assert (n[f"{bfcl}.acc.k"], n[f"{bfcl}.acc.n"], n[f"{bfcl}.baseline"]) == (4, 10, pytest.approx(1.0))
    lo, hi = proportion_confint(4, 10, alpha=0.05, method="wilson")
    assert n[f"{bfcl}.acc.lo"] == pytest.approx(lo) and n[f"{bfcl}.acc.hi"] == pytest.approx(hi)
    assert n[f"{own}.eligible"] == "yes" and n[f"{bfcl}.eligible"] == "no" and n[f"{K}.eligible"] == "no"
    assert n["elig.tool-selection.source.own.baseline.acc"] == pytest.approx(0.5)
    assert n["elig.tool-selection.source.bfcl.baseline.acc.k"] == 10
    assert {r["source"] for r in tables["sources"]} == {"own", "bfcl"}


def test_each_source_has_its_paired_test_against_the_baseline() -> None:
    n, _ = study_numbers(*_study())
    own, bfcl = f"{K}.source.own", f"{K}.source.bfcl"
    assert (n[f"{own}.paired.n.only-model"], n[f"{own}.paired.n.only-baseline"]) == (5, 0)
    assert (n[f"{bfcl}.paired.n.only-model"], n[f"{bfcl}.paired.n.only-baseline"]) == (0, 6)
    assert n[f"{own}.paired.p"] == pytest.approx(binomtest(0, 5, 0.5).pvalue)
    assert n[f"{bfcl}.paired.p"] == pytest.approx(binomtest(0, 6, 0.5).pvalue)
    # BH over the two sources: 0.0625 and 0.03125 -> both 0.0625
    assert n[f"{own}.paired.padj"] == pytest.approx(0.0625) and n[f"{bfcl}.paired.padj"] == pytest.approx(
        0.0625
    )
    assert n["elig.tool-selection.n.source.own.eligible"] == 1
    assert n["elig.tool-selection.n.source.bfcl.eligible"] == 0
    assert n["elig.tool-selection.n.source.bfcl.configs"] == 1
