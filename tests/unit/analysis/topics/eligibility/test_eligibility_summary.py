"""Counts, the best configuration per task and the phrases over the synthetic study."""

from tests.fixtures.eligibility import study_numbers, synthetic_runs

from slmbench.analysis.topics.eligibility import EligibilityInputs, compute


def test_counts_phrases_and_best() -> None:
    n, _ = study_numbers(synthetic_runs())
    assert (n["elig.n.pairs"], n["elig.n.configs"], n["elig.n.models"], n["elig.n.eligible"]) == (4, 3, 3, 1)
    assert n["elig.phrase.eligible"] == "1 of the 4 configuration--task pairs was eligible"
    assert n["elig.phrase.diagnosis"].startswith(
        "of the 2 failing binary-task configurations, 1 was a calibration"
    )
    assert n["elig.command-approval.best"] == "m-a, terse, shipped"
    assert n["elig.phrase.quant"] == "no requantised variant was scored"


def test_every_summary_key_exists_without_runs() -> None:
    res = compute(EligibilityInputs(), {})
    keys = {n.key for n in res.numbers}
    assert {"elig.n.pairs", "elig.phrase.eligible", "elig.phrase.diagnosis", "elig.reranking.best"} <= keys
    assert next(n for n in res.numbers if n.key == "elig.phrase.eligible").value == (
        "no configuration--task pair was scored"
    )


def test_the_bm25_parameters_are_numbers_of_the_paper() -> None:
    import pandas as pd

    from slmbench.analysis.topics.eligibility.tasks import bm25_numbers

    got = {x.key: x.value for x in bm25_numbers(pd.DataFrame({"study": [], "task": []}))}
    assert got == {"elig.bm25.k1": 1.5, "elig.bm25.b": 0.75}
