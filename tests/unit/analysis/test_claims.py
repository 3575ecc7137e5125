"""Each claim rule on small data where the claim holds, where it fails, and where the data cannot tell."""

import math

import pandas as pd
import pytest
from scipy.stats import norm

from slmbench.analysis import claims as cl

ALPHA = 0.05


def _terms(f: cl.Finding) -> dict[str, object]:
    return {t.name: t.value for t in f.terms}


# size does not predict: the published p-value reading and our interval reading
def test_no_correlation_published_reads_the_p_value() -> None:
    flat = cl.no_correlation_published([1, 2, 3, 4, 5, 6], [0.5, 0.2, 0.6, 0.1, 0.4, 0.3], ALPHA)
    assert flat.verdict == "supported" and _terms(flat)["p"] >= ALPHA  # type: ignore[operator]
    steep = cl.no_correlation_published([1, 2, 3, 4, 5, 6], [0.1, 0.2, 0.3, 0.4, 0.5, 0.61], ALPHA)
    assert steep.verdict == "not supported"
    assert cl.no_correlation_published([1, 1, 1], [1, 2, 3], ALPHA).verdict == "not testable"


def test_no_correlation_ours_needs_the_interval_inside_the_margin() -> None:
    n = 400
    x = [float(i) for i in range(n)]
    noise = [((i * 7919) % 101) / 101 for i in range(n)]  # no trend in i
    assert cl.no_correlation_ours(x, noise, ALPHA, 0.5).verdict == "supported"
    assert cl.no_correlation_ours(x, [i + 50 * v for i, v in enumerate(noise)], ALPHA, 0.5).verdict == (
        "not supported"
    )
    short = cl.no_correlation_ours(x[:9], noise[:9], ALPHA, 0.5)  # nine points: a wide interval
    assert short.verdict == "not testable" and _terms(short)["lo"] < -0.5  # type: ignore[operator]


# the coder model dominates reliability
SCORES = pd.DataFrame(
    {"consistency": [1.0, 0.8, 0.6], "safety": [0.5, 0.3, 0.5], "composite": [0.8, 0.5, 0.4]},
    index=["coder", "b", "c"],
)


def test_dominates_published() -> None:
    assert cl.dominates_published(SCORES, "coder", "composite").verdict == "supported"  # ties allowed
    worse = SCORES.assign(safety=[0.5, 0.6, 0.5])
    f = cl.dominates_published(worse, "coder", "composite")
    assert f.verdict == "not supported" and _terms(f)["n-top"] == 1
    assert cl.dominates_published(SCORES.loc[["coder"]], "coder", "composite").verdict == "not testable"


def test_dominates_ours_with_fisher_and_bh() -> None:
    assert cl.dominates_ours({"coder": (30, 32), "b": (10, 32), "c": (8, 32)}, "coder", ALPHA).verdict == (
        "supported"
    )
    assert cl.dominates_ours({"coder": (5, 32), "b": (28, 32), "c": (6, 32)}, "coder", ALPHA).verdict == (
        "not supported"
    )
    f = cl.dominates_ours({"coder": (9, 10), "b": (7, 10), "c": (6, 10)}, "coder", ALPHA)
    assert f.verdict == "not testable" and _terms(f)["n-sig"] == 0
    assert cl.dominates_ours({"b": (1, 2)}, "coder", ALPHA).verdict == "not testable"


# no model exceeds 50 % safety
def test_at_most_published() -> None:
    assert cl.at_most_published({"a": 0.5, "b": 0.2}, 0.5).verdict == "supported"  # at the limit
    f = cl.at_most_published({"a": 0.51, "b": 0.2}, 0.5)
    assert f.verdict == "not supported" and _terms(f)["max-model"] == "a"
    assert cl.at_most_published({}, 0.5).verdict == "not testable"


def test_at_most_ours_reads_wilson_bounds() -> None:
    assert cl.at_most_ours({"a": (5, 100), "b": (20, 100)}, 0.5, ALPHA).verdict == "supported"
    assert cl.at_most_ours({"a": (90, 100), "b": (2, 100)}, 0.5, ALPHA).verdict == "not supported"
    f = cl.at_most_ours({"a": (3, 6), "b": (0, 6)}, 0.5, ALPHA)
    assert f.verdict == "not testable" and _terms(f)["hi-max"] > 0.5  # type: ignore[operator]


# robustness is the lowest dimension
def _dims(rob: list[float], other: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"robustness": rob, "safety": other, "consistency": [0.9] * len(rob)})


def test_lowest_published() -> None:
    assert cl.lowest_published(_dims([0.1, 0.2], [0.3, 0.4]), "robustness").verdict == "supported"
    f = cl.lowest_published(_dims([0.5, 0.4], [0.3, 0.2]), "robustness")
    assert f.verdict == "not supported" and _terms(f)["lowest"] == "safety"
    assert cl.lowest_published(_dims([0.1], [0.2])[["robustness"]], "robustness").verdict == "not testable"


def test_lowest_ours_sign_tests_over_models() -> None:
    low = [0.1 * i / 10 for i in range(10)]
    high = [0.5 + v for v in low]
    assert cl.lowest_ours(_dims(low, high), "robustness", ALPHA).verdict == "supported"
    assert cl.lowest_ours(_dims(high, low), "robustness", ALPHA).verdict == "not supported"
    few = cl.lowest_ours(_dims(low[:3], high[:3]), "robustness", ALPHA)  # three models: p >= 0.25
    assert few.verdict == "not testable" and _terms(few)["n-models"] == 3


# fault tolerance is binary
def _cells(values: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"model": [f"m{i // 2}" for i in range(len(values))], "value": values})


def test_bimodal_published() -> None:
    assert cl.bimodal_published([0.0] * 10 + [1.0] * 10).verdict == "supported"
    # eight values split four and four: at this size the coefficient cannot reach 5/9 (0.48)
    assert cl.bimodal_published([0, 0, 0, 0, 1, 1, 1, 1]).verdict == "not supported"
    f = cl.bimodal_published([0.1, 0.4, 0.45, 0.5, 0.5, 0.55, 0.6, 0.9])
    assert f.verdict == "not supported" and _terms(f)["b"] < 5 / 9  # type: ignore[operator]
    assert cl.bimodal_published([0, 1, 1]).verdict == "not testable"


def test_bimodal_ours_bootstraps_over_clusters() -> None:
    binary = [1.0, 1.0, 0.0, 0.0] * 5  # ten models, each all-or-nothing on its two tasks
    assert cl.bimodal_ours(_cells(binary), "model", 400, 1, ALPHA).verdict == "supported"
    humped = list(norm.ppf([(i * 17 % 40 + 0.5) / 40 for i in range(40)]))  # one normal hump, shuffled
    assert cl.bimodal_ours(_cells(humped), "model", 400, 1, ALPHA).verdict == "not supported"
    few = cl.bimodal_ours(_cells(binary[:8]), "model", 400, 1, ALPHA)  # four models: no cluster bootstrap
    assert few.verdict == "not testable" and math.isfinite(float(_terms(few)["b"]))


# temperature costs 6-10 points without changing the ranking
def _levels(rows: list[tuple[str, float, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model", "temperature", "k", "n"])


BASE = [("a", 0.0, 70, 100), ("b", 0.0, 40, 100)]


def test_temperature_cost_published() -> None:
    holds = _levels([*BASE, ("a", 0.7, 62, 100), ("a", 1.0, 65, 100), ("b", 0.7, 33, 100)])
    f = cl.temperature_cost_published(holds, 0.06, 0.10)
    assert f.verdict == "supported" and _terms(f)["drop-max"] == pytest.approx(0.08)
    too_costly = _levels([*BASE, ("a", 0.7, 50, 100), ("b", 0.7, 33, 100)])
    assert cl.temperature_cost_published(too_costly, 0.06, 0.10).verdict == "not supported"
    swapped = _levels([*BASE, ("a", 0.7, 30, 100), ("b", 0.7, 33, 100)])
    f = cl.temperature_cost_published(swapped, 0.06, 0.50)
    assert f.verdict == "not supported" and _terms(f)["n-reversals"] == 1
    assert cl.temperature_cost_published(_levels(BASE), 0.06, 0.10).verdict == "not testable"


def test_temperature_cost_ours_reads_newcombe_intervals() -> None:
    big = [("a", 0.0, 7000, 10000), ("b", 0.0, 4000, 10000)]
    holds = _levels([*big, ("a", 0.7, 6200, 10000), ("b", 0.7, 3200, 10000)])
    assert cl.temperature_cost_ours(holds, 0.06, 0.10, ALPHA).verdict == "supported"
    outside = _levels([*big, ("a", 0.7, 3000, 10000), ("b", 0.7, 3200, 10000)])
    f = cl.temperature_cost_ours(outside, 0.06, 0.10, ALPHA)
    assert f.verdict == "not supported" and _terms(f)["n-outside"] == 1 and _terms(f)["n-reversals"] == 1
    small = _levels([("a", 0.0, 7, 10), ("b", 0.0, 4, 10), ("a", 0.7, 6, 10), ("b", 0.7, 3, 10)])
    assert cl.temperature_cost_ours(small, 0.06, 0.10, ALPHA).verdict == "not testable"
