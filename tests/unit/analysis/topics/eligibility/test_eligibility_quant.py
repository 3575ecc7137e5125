"""A requantised variant against its shipped file: A's Q2_K variant loses two test items."""

import pytest
from scipy.stats import binomtest
from tests.fixtures.eligibility import study_numbers, synthetic_runs


def test_requantised_against_shipped() -> None:
    n, tables = study_numbers(synthetic_runs(quant_b=True))
    (q,) = tables["quant"]
    assert (q["only_shipped"], q["only_variant"], q["n_paired"]) == (2, 0, 20)
    assert q["delta"] == pytest.approx(-0.1)
    assert q["mcnemar_p"] == pytest.approx(binomtest(0, 2, 0.5).pvalue)  # exact: 2 discordant, both one way
    assert (n["elig.quant.n.pairs"], n["elig.quant.n.lower"], n["elig.quant.n.higher"]) == (1, 1, 0)
    assert n["elig.quant.q2-k.mean-delta"] == pytest.approx(-0.1)
    assert n["elig.phrase.quant"].startswith(
        "requantisation lowered test accuracy in more comparisons than it raised it (sign test over the"
    )
