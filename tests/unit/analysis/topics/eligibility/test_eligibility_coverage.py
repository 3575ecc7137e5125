"""The recorded runs against the plan."""

from tests.fixtures.eligibility import study_numbers, synthetic_runs


def test_coverage_says_how_many_planned_runs_are_recorded() -> None:
    n, _ = study_numbers(synthetic_runs(), planned_runs=10)
    assert (n["elig.n.runs"], n["elig.n.runs-planned"]) == (4, 10)
    assert (
        n["elig.phrase.coverage"]
        == "4 of the 10 planned runs are recorded: m-a (shipped, 2 runs); m-b (shipped, 1 run); m-c (shipped, 1 run)"
    )
    one, _ = study_numbers(synthetic_runs()[:1])
    assert one["elig.phrase.coverage"] == "1 run is recorded: m-a (shipped, 1 run)"
    none, _ = study_numbers([], planned_runs=144)
    assert none["elig.phrase.coverage"] == "0 of the 144 planned runs are recorded"
