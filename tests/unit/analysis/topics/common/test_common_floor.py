"""The base-model floor: the best base model's accuracy plus the margin, cleared at the interval's low end."""

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from slmbench.analysis.topics.common import floor_block


def _rows(passes: dict[str, tuple[int, int, bool]]) -> tuple[list[dict], pd.DataFrame]:
    rows, trials = [], []
    for model, (k, n, base) in passes.items():
        rows.append({"model": model, "k": k, "n": n, "unit_k": k, "units": n, "is_base": base})
        trials += [
            {"model": model, "passed": i < k, "outcome": "success" if i < k else "failure"} for i in range(n)
        ]
    return rows, pd.DataFrame(trials)


def test_a_model_clears_the_floor_when_its_lower_bound_beats_it_plus_the_margin() -> None:
    rows, df = _rows(
        {"strong": (19, 20, False), "weak": (8, 20, False), "base": (6, 20, True), "base2": (2, 20, True)}
    )
    numbers = {n.key: n.value for n in floor_block("p", rows, df, {"study": "s"}, 0.05, 0.05)}
    assert numbers["p.baseline.acc"] == 0.3 and numbers["p.eligible.margin"] == 0.05
    assert (
        proportion_confint(19, 20, method="wilson")[0] > 0.35 > proportion_confint(8, 20, method="wilson")[0]
    )
    assert (numbers["p.eligible.strong"], numbers["p.eligible.weak"], numbers["p.eligible.base"]) == (
        "yes",
        "no",
        "no",
    )
    assert numbers["p.n.eligible"] == 1 and [r["eligible"] for r in rows] == [True, False, False, False]


def test_without_a_base_model_the_floor_is_zero_and_the_phrase_says_why() -> None:
    rows, df = _rows({"only": (5, 10, False)})
    numbers = {n.key: n for n in floor_block("p", rows, df, {}, 0.05, 0.05)}
    assert numbers["p.baseline.acc"].value == 0.0
    assert numbers["p.phrase.floor"].value == "no base model was run"
