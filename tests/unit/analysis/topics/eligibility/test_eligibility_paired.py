"""Each configuration against its baseline paired by item, on the synthetic study (``tests.fixtures.eligibility``):
command approval, 20 test items; the baseline right on the even ones, configuration A right on t00-t17."""

import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests
from tests.fixtures.eligibility import study_numbers, synthetic_baselines, synthetic_runs

A = "elig.command-approval.m-a.terse.shipped"


def test_the_paired_test_counts_the_discordant_items_and_matches_the_exact_binomial() -> None:
    n, tables = study_numbers(synthetic_runs())
    # A is right on t00-t17, the baseline on t00, t02, ..., t18: A alone on the 9 odd items up to t17, the
    # baseline alone on t18
    assert (n[f"{A}.paired.n.only-model"], n[f"{A}.paired.n.only-baseline"]) == (9, 1)
    assert n[f"{A}.paired.p"] == pytest.approx(binomtest(1, 10, 0.5).pvalue)
    row = next(r for r in tables["configs"] if r["key"] == A)
    assert (row["paired_only_model"], row["paired_only_baseline"]) == (9, 1)


def test_bh_runs_across_every_configuration_task_pair_of_the_section() -> None:
    n, _ = study_numbers(synthetic_runs())
    keys = [k[: -len(".paired.p")] for k in n if k.endswith(".paired.p") and ".source." not in k]
    assert len(keys) == n["elig.n.pairs"] == 4
    ps = [n[f"{k}.paired.p"] for k in keys]
    _, expected, _, _ = multipletests(ps, alpha=0.05, method="fdr_bh")
    assert [n[f"{k}.paired.padj"] for k in keys] == pytest.approx(list(expected))


def test_eligible_by_the_wilson_rule_yet_not_better_by_the_paired_test() -> None:
    """A's Wilson lower bound (69.9 %) beats the baseline's 50 %, but after BH over the four pairs its paired
    test (p 0.021, adjusted 0.086) does not: the two rules are reported side by side."""
    n, _ = study_numbers(synthetic_runs())
    assert n[f"{A}.eligible"] == "yes"
    assert n[f"{A}.paired.padj"] == pytest.approx(0.021484375 * 4)
    assert (n[f"{A}.paired.sig"], n[f"{A}.paired.better"]) == ("no", "no")
    assert n["elig.n.paired.eligible-not-better"] == 1 and n["elig.n.paired.better"] == 0
    assert n["elig.command-approval.n.paired.tests"] == 3


def test_a_configuration_without_a_discordant_item_has_no_test() -> None:
    runs = synthetic_runs()
    items = synthetic_baselines()["tasks"]["command_approval"]["items"]
    base = {r["id"]: r["correct"] for r in items}
    other = {"approve": "deny", "deny": "approve"}
    for item in runs[0]["items"]:  # A is right exactly where the baseline is
        item["prediction"] = item["label"] if base[item["id"]] else other[item["label"]]
    n, _ = study_numbers(runs)
    assert n[f"{A}.paired.n.only-model"] == n[f"{A}.paired.n.only-baseline"] == 0
    assert n[f"{A}.paired.p"] == "n/a" and n[f"{A}.paired.padj"] == "n/a" and n[f"{A}.paired.sig"] == "no"
    assert n["elig.n.paired.tests"] == 3
