"""``analysis.units``: which repeats are one unit, checked on small frames against a count by hand."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from slmbench.analysis.units import cluster_shares, collapse_repeats, repeats, unit_ids, unit_trial_ids


def row(task: str = "T1", repeat: int = 0, passed: bool = True, **kw: Any) -> dict[str, Any]:
    base = {"trial_id": f"{task}/{kw.get('variant', 'original')}/{kw.get('suite', 'reliability')}/{repeat}/"
                        f"{kw.get('build', 'b1')}/{kw.get('temperature', 0.0)}",
            "study": "s", "suite": "reliability", "model": "m", "task_id": task, "variant": "original",
            "temperature": 0.0, "repeat": repeat, "build": "b1", "protocol": "full", "passed": passed,
            "outcome": "success" if passed else "failure", "transcript_sha256": f"{task}-{passed}"}  # fmt: skip
    base.update(kw)
    return base


def test_identical_repeats_at_temperature_zero_on_one_build_are_one_unit() -> None:
    df = pd.DataFrame([row("T1", r) for r in range(3)] + [row("T2", r, passed=False) for r in range(3)])
    units = collapse_repeats(df, "transcript_sha256")
    assert len(units) == 2
    assert list(units["n_repeats"]) == [3, 3] and units["identical"].all() and units["same_outcome"].all()
    assert list(units["repeat"]) == [0, 0]  # each unit is its first repeat's row
    assert sorted(unit_trial_ids(units)) == sorted(df["trial_id"])
    r = repeats(units)
    assert (r.units, r.identical, r.same_outcome, r.trials, r.runs, r.differ) == (2, 2, 2, 6, 3, ())


def test_samples_above_temperature_zero_are_units_of_their_own() -> None:
    df = pd.DataFrame([row("T1", r, temperature=0.7) for r in range(5)])
    units = collapse_repeats(df)
    assert len(units) == 5 and (units["n_repeats"] == 1).all()
    assert repeats(units).units == 0


def test_another_variant_condition_or_build_is_another_unit() -> None:
    df = pd.DataFrame(
        [row("T1"), row("T1", variant="typos"), row("T1", protocol="legacy"), row("T1", build="b2"),
         row("T1", repeat=1)]
    )  # fmt: skip
    assert unit_ids(df).tolist() == [0, 1, 2, 3, 0]


def test_a_native_label_is_one_build_only_within_a_shard() -> None:
    """``native/<CPU>`` names a CPU, not a build: the capability run and the null control's reruns of a prompt
    (two shards) are two units; the reruns of one shard are one. Under a build identity they are all one."""
    native = [row("T1", 0, suite="capability", build="native/X"),
              row("T1", 1, suite="null_control", build="native/X"),
              row("T1", 2, suite="null_control", build="native/X")]  # fmt: skip
    assert unit_ids(pd.DataFrame(native)).tolist() == [0, 1, 1]
    portable = [{**r, "build": "b1"} for r in native]
    assert unit_ids(pd.DataFrame(portable)).tolist() == [0, 0, 0]
    no_build = pd.DataFrame(native).drop(columns=["build"])
    assert unit_ids(no_build).tolist() == [0, 1, 1]


def test_repeats_that_differ_still_count_once_and_are_named() -> None:
    df = pd.DataFrame(
        [row("T1", 0), row("T1", 1, passed=False), row("T2", 0), row("T2", 1, transcript_sha256="x")]
    )
    units = collapse_repeats(df, "transcript_sha256")
    assert len(units) == 2 and not units["identical"].any()
    assert list(units["same_outcome"]) == [False, True]
    assert list(units["passed"]) == [True, True]  # the first repeat stands for the unit
    assert repeats(units).differ == (("m", "T1", "original"), ("m", "T2", "original"))
    # without the transcript column named, T2's repeats agree on everything compared
    assert list(collapse_repeats(df)["identical"]) == [False, True]


def test_missing_values_are_values_and_an_empty_frame_collapses_to_nothing() -> None:
    df = pd.DataFrame([row("T1", 0, protocol=None), row("T1", 1, protocol=None), row("T1", 2)])
    assert unit_ids(df).tolist() == [0, 0, 1]
    empty = collapse_repeats(df.iloc[0:0])
    assert empty.empty and {"n_repeats", "identical", "unit_trials"} <= set(empty.columns)


def test_cluster_shares_count_each_task_of_a_model_once() -> None:
    """Five rephrasings of one task, one of another: two clusters, each its pass share."""
    df = pd.DataFrame(
        [row("T1", variant=f"v{i}", passed=i < 2) for i in range(5)] + [row("T2", variant="v0", passed=True)]
    )
    shares = cluster_shares(collapse_repeats(df))
    assert shares.to_dict() == {("m", "T1"): pytest.approx(0.4), ("m", "T2"): 1.0}
