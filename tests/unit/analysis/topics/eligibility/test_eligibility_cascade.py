"""The cascade on the synthetic study: on reranking BM25 is right exactly where its top-1/top-2 margin is high
(2.0) and the model exactly where it is low (0.1), so the cascade that calls the model below a calibration
threshold gets every item right with half the calls."""

import pytest
from tests.fixtures.eligibility import study_numbers, synthetic_runs

KEY = "elig.reranking.m-a.terse.shipped"


def test_cascade() -> None:
    n, tables = study_numbers(synthetic_runs())
    assert n[f"{KEY}.acc.k"] == 10 and n[f"{KEY}.baseline"] == pytest.approx(0.5)
    assert n[f"{KEY}.cascade.threshold"] == pytest.approx(1.05)  # midpoint of 0.1 and 2.0
    assert (n[f"{KEY}.cascade.acc.k"], n[f"{KEY}.cascade.called.k"], n[f"{KEY}.cascade.called.n"]) == (
        20,
        10,
        20,
    )
    assert n[f"{KEY}.cascade.eligible"] == "yes" and n[f"{KEY}.eligible"] == "no"
    assert n[f"{KEY}.cascade.gain"] == pytest.approx(0.5)
    assert n[f"{KEY}.mrr"] == pytest.approx((10 * 1 + 10 * 1 / 3) / 20)
    assert n[f"{KEY}.cascade.mrr"] == pytest.approx(1.0)
    row = tables["cascade"][0]
    assert (
        row["bm25_acc"] == pytest.approx(0.5)
        and row["model_acc"] == pytest.approx(0.5)
        and row["called"] == 0.5
    )
