"""Threshold diagnosis on the synthetic study: B has every margin shifted down by 3 (default decision always
deny: 10/20; the tuned cut-off fixes it: a calibration failure), C the same margin for every item (no cut-off
helps: a capability failure)."""

import pytest
from tests.fixtures.eligibility import study_numbers, synthetic_runs

K = "elig.command-approval"


def test_threshold_diagnosis() -> None:
    n, tables = study_numbers(synthetic_runs())
    b, c = f"{K}.m-b.terse.shipped", f"{K}.m-c.terse.shipped"
    assert n[f"{b}.acc.k"] == 10 and n[f"{b}.eligible"] == "no"
    assert n[f"{b}.tuned.threshold"] == pytest.approx(-3.0)  # midpoint of -5 (deny) and -1 (approve)
    assert n[f"{b}.tuned.acc.k"] == 20 and n[f"{b}.tuned.eligible"] == "yes"
    assert n[f"{b}.diagnosis"] == "calibration"
    assert n[f"{c}.diagnosis"] == "capability" and n[f"{c}.tuned.acc.k"] == 10
    assert n[f"{K}.m-a.terse.shipped.diagnosis"] == "eligible"
    row = next(r for r in tables["diagnosis"] if r["model"] == "m-b")
    assert row["n_cal"] == 10  # the few-shot example (in_prompt) is left out of the tuning
    assert (n["elig.n.diag.failing"], n["elig.n.diag.calibration"], n["elig.n.diag.capability"]) == (2, 1, 1)


def test_the_tie_break_is_stated_and_the_configurations_it_decided_are_counted() -> None:
    """C's margins are all 0.5: 'always approve' and 'always deny' both get 5 of the 10 calibration items right,
    and the tie-break (closest to 0, then the lower cut) picks 0, the untuned rule, which approves every item as
    minus infinity does; A's and B's best cut is unique."""
    n, tables = study_numbers(synthetic_runs())
    assert (
        n[f"{K}.m-c.terse.shipped.tuned.n-tied"] == 2 and n[f"{K}.m-c.terse.shipped.tuned.threshold"] == 0.0
    )
    assert n[f"{K}.m-a.terse.shipped.tuned.n-tied"] == 1 and n[f"{K}.m-b.terse.shipped.tuned.n-tied"] == 1
    assert n["elig.n.diag.tied"] == 1 and n["elig.n.diag.configs"] == 3
    assert (
        "closest to 0" in n["elig.phrase.tie-break"] and "fewer items" in n["elig.phrase.tie-break-cascade"]
    )
    assert next(r for r in tables["diagnosis"] if r["model"] == "m-c")["tuned_tied"] == 2
    # C's tied cut-offs (always approve, always deny) both get 10 of the 20 test items right: the tie-break
    # does not change its test accuracy
    assert n[f"{K}.m-c.terse.shipped.tuned.tie-matters"] == "no" and n["elig.n.diag.tie-matters"] == 0
