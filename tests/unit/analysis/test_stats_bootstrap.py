"""Cluster bootstrap: resamples whole clusters (one summary row each), is seeded, and reports the share keeping
a finding."""

import math

import numpy as np
import pandas as pd
import pytest

from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap, finite_mean

RATES = (("a", 0.9), ("b", 0.5), ("c", 0.2), ("d", 0.7))


def _frame() -> pd.DataFrame:
    """One row per model: its accuracy (``acc``) and its trial count."""
    return pd.DataFrame([{"model": m, "acc": rate, "n": 10} for m, rate in RATES])


def _boot(df, statistic, **kw):
    """The bootstrap with its cluster minimum lowered, for these four-cluster examples."""
    return cluster_bootstrap(df, statistic, min_clusters=1, **kw)


def _mean_of_models(draw: Draw) -> float:
    return finite_mean(draw["acc"])


def test_seeded_and_reproducible() -> None:
    a = _boot(_frame(), _mean_of_models, n_resamples=200, seed=3)
    b = _boot(_frame(), _mean_of_models, n_resamples=200, seed=3)
    assert a == b
    assert a.estimate == pytest.approx(0.575)
    assert a.lo <= a.estimate <= a.hi


def test_resamples_clusters_with_replacement() -> None:
    """Every resample draws as many clusters as there are, each one of the four, some of them twice."""
    seen: list[list[str]] = []

    def drawn(draw: Draw) -> float:
        seen.append(list(draw["model"]))
        return float(draw["n"].sum())

    res = _boot(_frame(), drawn, n_resamples=50, seed=1)
    assert res.lo == res.hi == 40.0  # always four clusters of ten trials
    assert seen[0] == ["a", "b", "c", "d"]  # the estimate: every cluster once, in name order
    assert all(len(s) == 4 and set(s) <= {"a", "b", "c", "d"} for s in seen[1:])
    assert any(len(set(s)) < 4 for s in seen[1:])


def test_order_of_rows_does_not_matter() -> None:
    shuffled = _frame().sample(frac=1.0, random_state=0)
    assert _boot(shuffled, _mean_of_models, n_resamples=100, seed=5) == _boot(
        _frame(), _mean_of_models, n_resamples=100, seed=5
    )


def test_one_row_per_cluster() -> None:
    twice = pd.concat([_frame(), _frame()], ignore_index=True)
    with pytest.raises(ValueError, match="one row per model"):
        _boot(twice, _mean_of_models)


def test_kept_share() -> None:
    res = _boot(_frame(), _mean_of_models, finding=lambda v: v > 0.2, n_resamples=100, seed=0)
    assert res.kept == pytest.approx(1.0 - 0.25**4, abs=0.05)


def test_too_few_clusters_are_not_resampled() -> None:
    """Four models are too few for a model-level bootstrap: nothing but the estimate is reported."""
    res = cluster_bootstrap(_frame(), _mean_of_models, finding=lambda v: v > 0.2, n_resamples=100)
    assert not res.computed and res.n_clusters == 4 and res.n_valid == 0
    assert math.isnan(res.lo) and math.isnan(res.kept) and res.estimate == pytest.approx(0.575)


def test_kept_counts_undefined_resamples_as_not_kept() -> None:
    """A resample whose statistic is nan keeps no finding: kept is a share of all resamples."""

    def defined_only_with_a(draw: Draw) -> float:
        return 1.0 if (draw["model"] == "a").any() else float("nan")

    res = _boot(_frame(), defined_only_with_a, finding=lambda v: v == 1.0, n_resamples=400, seed=2)
    assert res.n_valid < res.n_resamples
    assert res.kept == pytest.approx(res.n_valid / res.n_resamples)
    assert res.kept == pytest.approx(1 - 0.75**4, abs=0.06)


def test_finite_mean_skips_undefined_values() -> None:
    assert finite_mean(np.array([0.5, math.nan, 1.0])) == pytest.approx(0.75)
    assert math.isnan(finite_mean(np.array([math.nan])))
    assert math.isnan(finite_mean(np.array([])))


def test_a_batched_statistic_gives_the_same_draws_and_values() -> None:
    """``batched=True`` evaluates every resample at once; interval, kept share and count equal the loop's."""
    import numpy as np
    import pandas as pd

    from slmbench.analysis.stats_bootstrap import cluster_bootstrap

    rng = np.random.default_rng(3)
    per = pd.DataFrame(
        {"task": [f"t{i}" for i in range(12)], "k": rng.integers(0, 4, 12), "n": np.full(12, 3)}
    )
    per.loc[0, "n"] = 0  # a resample may draw only empty clusters: nan there

    def loop(draw):  # noqa: ANN001, ANN202
        n = draw["n"].sum()
        return draw["k"].sum() / n if n else float("nan")

    def batch(draw):  # noqa: ANN001, ANN202
        with np.errstate(invalid="ignore", divide="ignore"):
            return draw["k"].sum(axis=-1) / draw["n"].sum(axis=-1)

    kwargs = dict(cluster="task", finding=lambda v: v > 0.5, n_resamples=300, seed=11)
    one, other = cluster_bootstrap(per, loop, **kwargs), cluster_bootstrap(per, batch, batched=True, **kwargs)
    assert one == other and one.n_valid > 0


def test_an_interval_of_zero_width_is_no_interval() -> None:
    same = pd.DataFrame({"task": range(10), "v": [0.0] * 10})
    b = cluster_bootstrap(same, lambda d: float(np.mean(d["v"])), cluster="task", n_resamples=50, seed=1)
    assert b.computed and b.collapsed and (b.lo, b.hi) == (0.0, 0.0)
    assert all(math.isnan(v) for v in b.interval)
    spread = pd.DataFrame({"task": range(10), "v": [float(i) for i in range(10)]})
    b = cluster_bootstrap(spread, lambda d: float(np.mean(d["v"])), cluster="task", n_resamples=50, seed=1)
    assert not b.collapsed and b.interval == (b.lo, b.hi)
    few = cluster_bootstrap(same.head(3), lambda d: float(np.mean(d["v"])), cluster="task", n_resamples=50)
    assert not few.collapsed and all(math.isnan(v) for v in few.interval)
