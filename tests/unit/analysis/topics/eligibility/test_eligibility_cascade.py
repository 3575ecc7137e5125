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


def test_the_cascade_against_bm25_alone_paired_by_item() -> None:
    """The synthetic cascade calls the model on the ten low-margin items, where the model is right and BM25
    wrong: ten items right for the cascade alone, none for BM25 alone."""
    n, tables = study_numbers(synthetic_runs())
    assert (n[f"{KEY}.cascade.vs-bm25.n.only-cascade"], n[f"{KEY}.cascade.vs-bm25.n.only-bm25"]) == (10, 0)
    assert n[f"{KEY}.cascade.vs-bm25.p"] == pytest.approx(2 / 2**10)
    assert n[f"{KEY}.cascade.vs-bm25.padj"] == pytest.approx(2 / 2**10)  # the only cascade
    assert n[f"{KEY}.cascade.vs-bm25"] == "better" and n[f"{KEY}.cascade.bm25-exactly"] == "no"
    assert (n["elig.n.cascade.worse"], n["elig.n.cascade.equal"], n["elig.n.cascade.better"]) == (0, 0, 1)
    assert n["elig.n.cascade.sig-better"] == 1 and n["elig.reranking.n.cascade.better"] == 1
    assert n["elig.reranking.cascade.called.min"] == n["elig.reranking.cascade.called.max"] == 0.5
    assert tables["cascade"][0]["vs_bm25"] == "better"


def test_a_cascade_that_never_asks_the_model_is_bm25_exactly() -> None:
    """A model wrong on every item: the calibration picks 'never call' and the cascade is BM25 alone."""
    runs = synthetic_runs()
    for item in runs[3]["items"]:
        item["prediction"], item["ranking"] = "3", ["3", "2", "1"]
    n, _ = study_numbers(runs)
    assert n[f"{KEY}.cascade.called.k"] == 0 and n[f"{KEY}.cascade.threshold"] == "-inf"
    assert n[f"{KEY}.cascade.bm25-exactly"] == "yes" and n[f"{KEY}.cascade.vs-bm25"] == "equal"
    assert n[f"{KEY}.cascade.vs-bm25.p"] == "n/a"
    assert (n["elig.n.cascade.bm25-exactly"], n["elig.n.cascade.equal"], n["elig.n.cascade.better"]) == (
        1,
        1,
        0,
    )
    assert n["elig.reranking.cascade.called.max"] == 0.0
