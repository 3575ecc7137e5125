"""Accuracy and the eligibility rule per configuration on the synthetic study (``tests.fixtures.eligibility``):
command approval, 20 test items, the baseline right on 10; configuration A right on 18."""

import pytest
from statsmodels.stats.proportion import proportion_confint
from tests.fixtures.eligibility import study_numbers, synthetic_runs

K = "elig.command-approval"


def test_eligibility_rule_against_statsmodels_wilson() -> None:
    n, _ = study_numbers(synthetic_runs())
    lo, hi = proportion_confint(18, 20, alpha=0.05, method="wilson")
    key = f"{K}.m-a.terse.shipped"
    assert (n[f"{key}.acc.k"], n[f"{key}.acc.n"]) == (18, 20)
    assert n[f"{key}.acc.lo"] == pytest.approx(lo) and n[f"{key}.acc.hi"] == pytest.approx(hi)
    assert n[f"{key}.baseline"] == pytest.approx(0.5)
    assert n[f"{key}.gap"] == pytest.approx(lo - 0.5)
    assert n[f"{key}.eligible"] == "yes" and n[f"{key}.eligible-margin"] == ("yes" if lo > 0.55 else "no")
    assert n[f"{key}.complete"] == "yes"
    assert (
        n[f"{K}.baseline.acc"] == pytest.approx(0.5)
        and n[f"{K}.n.test"] == 20
        and n[f"{K}.n.calibration"] == 11
    )


def test_margin_makes_the_bar_harder() -> None:
    lo = proportion_confint(18, 20, alpha=0.05, method="wilson")[0]  # about 0.699
    n, _ = study_numbers(synthetic_runs(), margin=0.25)
    assert lo - 0.5 < 0.25 and n[f"{K}.m-a.terse.shipped.eligible-margin"] == "no"
    assert n[f"{K}.m-a.terse.shipped.eligible"] == "yes" and n["elig.margin"] == pytest.approx(0.25)


def test_a_run_missing_test_items_is_incomplete() -> None:
    runs = synthetic_runs()
    runs[0]["items"] = [r for r in runs[0]["items"] if r["id"] != "t00"]
    n, tables = study_numbers(runs)
    assert n[f"{K}.m-a.terse.shipped.complete"] == "no" and n[f"{K}.m-a.terse.shipped.acc.n"] == 19
    assert n["elig.n.incomplete"] == 1 and sum(not r["complete"] for r in tables["configs"]) == 1
