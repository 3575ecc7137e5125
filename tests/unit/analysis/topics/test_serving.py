"""Topic ``serving``: in-process and served trials of the same models paired task by task, exact McNemar, and the
tool calls the server's parser dropped or changed."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from scipy.stats import binomtest
from tests.fixtures.topic_io import numbers_by_key, write_topic

from slmbench.analysis.selection import count_mismatches
from slmbench.analysis.stats_equivalence import tost_paired_binary
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics import get_topic
from slmbench.analysis.topics.common import primary_rows
from slmbench.analysis.topics.serving import calls_phrase, compute, other_rows
from slmbench.figures.tables import render_table

PARAMS: dict[str, Any] = {"bootstrap_seed": 3, "n_boot": 50, "equivalence_margin": 0.1}
SERVER = "llama-server"
# model -> (params_b, is_base, in-process passes, served passes) over tasks T0..T5
OUTCOMES = {
    "a:1b": (1.0, False, [1, 1, 1, 1, 0, 0], [1, 0, 0, 0, 0, 1]),
    "b:3b": (3.0, False, [1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0]),
}
# (model, task) -> served side: (accepted, returned, raw, changed, dropped, added); in-process side accepts 2 calls
CALLS = {
    ("a:1b", "T1"): (1, 1, 2, 0, 1, 0),
    ("a:1b", "T2"): (2, 2, 2, 1, 0, 0),
    ("b:3b", "T0"): (2, 3, 2, 0, 0, 1),
}


def _row(model: str, task: str, served: bool, passed: bool, **kw: Any) -> dict[str, Any]:
    size, base, _, _ = OUTCOMES.get(model, (1.0, False, [], []))
    accepted, returned, raw, changed, dropped, added = CALLS.get((model, task), (2, 2, 2, 0, 0, 0))
    row = {
        "trial_id": f"slmbench/{model}/{task}/{'srv' if served else 'inp'}/{kw.get('repeat', 1)}",
        "study": "slmbench", "suite": "capability", "task_id": task, "group": "G", "variant": "original",
        "model": model, "params_b": size, "is_base": base, "temperature": 0.0, "repeat": 1, "scaffold": "native",
        "parser_mode": "repaired", "protocol": "full", "outcome": "success" if passed else "failure",
        "passed": passed, "failure_class": None if passed else "capability", "primary": not served,
        "cpu_primary": not served,
        "comparison": "serving" if served else None, "server": SERVER if served else None, "n_ctx": 4096,
        "stop_reason": "final_answer" if passed else "max_turns", "cpu": "AMD EPYC", "build": "native/AMD EPYC", "rerun": None,
        "n_tool_calls": accepted if served else 2,
        "server_calls": returned if served else None,
        "raw_calls": raw if served else None,
        "calls_changed": changed if served else None,
        "calls_dropped": dropped if served else None,
        "calls_added": added if served else None,
    }  # fmt: skip
    row.update(kw)
    return row


def trials() -> pd.DataFrame:
    rows = []
    for model, (_, _, inproc, served) in OUTCOMES.items():
        for i, (p_ok, s_ok) in enumerate(zip(inproc, served, strict=True)):
            rows.append(_row(model, f"T{i}", False, bool(p_ok)))
            rows.append(_row(model, f"T{i}", True, bool(s_ok)))
    rows.append(_row("a:1b", "T9", False, True))  # no served twin: not a pair
    rows.append(_row("b:3b", "T9", False, True))
    rows.append(_row("b:3b", "T9", True, False, outcome="infra_error"))  # infra error: not a pair
    # a served trial the plan did not run for this comparison: not a twin
    rows.append(_row("b:3b", "T8", True, True, comparison=None))
    rows.append(_row("b:3b", "T8", False, True))
    return pd.DataFrame(rows)


def _numbers(df: pd.DataFrame) -> dict[str, Any]:
    return numbers_by_key(compute(df, None, PARAMS))


def test_the_served_trials_are_the_planned_ones_of_models_with_primary_results() -> None:
    df = trials()
    primary = primary_rows(df, "slmbench")[0]
    other, server = other_rows(df, primary)
    assert server == SERVER and len(other) == 13  # 12 paired + the infra error
    assert other_rows(df.assign(comparison=None), primary)[1] is None


def test_paired_counts_and_exact_mcnemar_against_scipy() -> None:
    n = _numbers(trials())
    assert n["srv.primary.name"] == "in-process" and n["srv.other.name"] == SERVER
    assert n["srv.n.pairs"] == 12 and n["srv.n.models"] == 2 and n["srv.n.tasks"] == 6
    # a: in-process T0-T3, served T0, T5 -> only in-process 3, only served 1; b: the same tasks on both sides
    assert n["srv.n.only-primary"] == 3 and n["srv.n.only-other"] == 1
    assert n["srv.primary.acc.k"] == 6 and n["srv.other.acc.k"] == 4
    assert n["srv.diff"] == pytest.approx(-2 / 12)
    assert n["srv.mcnemar.p"] == pytest.approx(binomtest(1, 4, 0.5).pvalue)
    assert n["srv.model.a-1b.mcnemar.p"] == pytest.approx(binomtest(1, 4, 0.5).pvalue)
    assert n["srv.model.b-3b.mcnemar.p"] == "n/a"  # no discordant pair
    assert n["srv.n.cross-cpu"] == 0


def test_the_serving_stack_is_read_as_the_same_only_where_tost_shows_equivalence() -> None:
    """A McNemar p of 1 is no evidence of sameness: the topic tests equivalence within the configured margin
    (Tango's score TOST over the pairs), pooled and per model, and says which it shows."""
    n = _numbers(trials())
    pooled = tost_paired_binary(3, 1, 12, 0.1)
    assert (n["srv.diff.lo"], n["srv.diff.hi"]) == pytest.approx((pooled.lo, pooled.hi))
    assert n["srv.equiv.p"] == pytest.approx(pooled.p) and n["srv.equiv.margin"] == pytest.approx(0.1)
    assert n["srv.equiv.shown"] == "no"
    assert n["srv.equiv.phrase"].startswith(
        "over 12 task--model pairs the difference is -16.7 percentage points"
    )
    assert n["srv.equiv.phrase"].endswith("equivalence within \u00b110 percentage points is not shown")
    # b has no discordant pair, and its McNemar test does not exist; six tasks are too few to show equivalence
    assert n["srv.model.b-3b.mcnemar.p"] == "n/a" and n["srv.model.b-3b.equiv.shown"] == "no"
    assert n["srv.model.b-3b.equiv.phrase"].startswith(
        "over six tasks the difference is 0.0 percentage points"
    )


def test_many_agreeing_pairs_are_equivalent_and_the_margin_comes_from_the_parameters() -> None:
    rows = [
        _row(model, f"T{i}", served, i % 3 == 0)
        for model in ("a:1b", "b:3b") for i in range(40) for served in (False, True)
    ]  # fmt: skip
    n = numbers_by_key(compute(pd.DataFrame(rows), None, PARAMS))
    assert n["srv.mcnemar.p"] == "n/a" and n["srv.equiv.shown"] == "yes"
    assert n["srv.equiv.phrase"].endswith(": equivalent within \u00b110 percentage points")
    tight = numbers_by_key(compute(pd.DataFrame(rows), None, {**PARAMS, "equivalence_margin": 0.02}))
    assert tight["srv.equiv.shown"] == "no" and tight["srv.equiv.margin"] == pytest.approx(0.02)


def test_a_model_served_on_another_kind_of_cpu_pairs_with_its_in_process_run_there() -> None:
    """The primary run of b is on AMD EPYC; b's served trials ran on an Intel CPU, where b's first in-process
    run of the primary condition (not primary) is the side they pair with: no pair crosses kinds of CPU."""
    df = trials()
    b_served = (df["model"] == "b:3b") & df["server"].notna()
    df.loc[b_served, ["cpu", "build"]] = ["Intel Xeon", "native/Intel Xeon"]
    intel = df[(df["model"] == "b:3b") & df["server"].isna()].assign(
        cpu="Intel Xeon", build="native/Intel Xeon", primary=False, passed=False, outcome="failure", failure_class="capability",
        trial_id=lambda f: f["trial_id"] + "/intel",
    )  # fmt: skip
    n = _numbers(pd.concat([df, intel], ignore_index=True))
    assert n["srv.n.pairs"] == 12 and n["srv.n.cross-cpu"] == 0
    # b in-process on Intel fails everywhere; served it passes T0 and T1: only served 2
    assert n["srv.model.b-3b.n.only-other"] == 2 and n["srv.model.b-3b.n.only-primary"] == 0
    numbers = [x.to_dict() for x in compute(pd.concat([df, intel], ignore_index=True), None, PARAMS).numbers]
    assert count_mismatches(numbers, pd.concat([df, intel], ignore_index=True)) == []


def test_calls_per_side_and_what_the_servers_parser_dropped_or_changed() -> None:
    n = _numbers(trials())
    assert n["srv.calls.primary"] == 24  # 12 paired in-process trials, 2 accepted calls each
    assert n["srv.calls.other"] == 2 * 9 + 1 + 2 + 2  # served: T1 of a accepted one call
    assert n["srv.calls.returned"] == 2 * 9 + 1 + 2 + 3
    assert n["srv.calls.raw"] == 24 and n["srv.calls.n.raw-trials"] == 12
    assert n["srv.calls.added"] == 1 and n["srv.calls.n.trials-affected"] == 2
    dropped = wilson_interval(1, 24)
    assert n["srv.calls.dropped.k"] == 1 and n["srv.calls.dropped.n"] == 24
    assert n["srv.calls.dropped.lo"] == pytest.approx(dropped.lo) and n[
        "srv.calls.dropped.hi"
    ] == pytest.approx(dropped.hi)
    assert n["srv.calls.changed.k"] == 1
    assert n["srv.model.a-1b.calls.dropped.k"] == 1 and n["srv.model.a-1b.calls.raw"] == 12
    assert n["srv.model.b-3b.calls.dropped.k"] == 0 and n["srv.model.b-3b.calls.added"] == 1
    assert n["srv.phrase.calls"].startswith("of the 24 calls our parser reads in llama-server")


def test_without_raw_text_the_call_shares_are_not_available() -> None:
    df = trials().assign(raw_calls=None, calls_changed=None, calls_dropped=None, calls_added=None)
    n = _numbers(df)
    assert n["srv.calls.n.raw-trials"] == 0 and n["srv.calls.raw"] == 0
    assert n["srv.calls.dropped"] == "n/a" and n["srv.calls.dropped.n"] == 0
    assert n["srv.calls.returned"] == 2 * 9 + 1 + 2 + 3  # the returned calls still count


def test_without_pairs_every_pooled_key_is_still_emitted() -> None:
    full = set(_numbers(trials()))
    for empty_table in (trials().iloc[0:0], trials()[trials()["server"].isna()]):
        empty = _numbers(empty_table)
        assert {k for k in full if not k.startswith("srv.model.")} <= set(empty)
        assert (
            empty["srv.n.pairs"] == 0 and empty["srv.diff"] == "n/a" and empty["srv.calls.dropped"] == "n/a"
        )


def test_each_count_selects_exactly_its_trials() -> None:
    df = trials()
    numbers = [n.to_dict() for n in compute(df, None, PARAMS).numbers]
    assert count_mismatches(numbers, df) == []


def test_the_served_trials_are_not_primary_results() -> None:
    df = trials()
    cap = {n.key: n.value for n in get_topic("capability")(df, None, PARAMS).numbers}
    assert cap["cap.n.trials"] == int(df["primary"].sum())


def test_the_phrase_says_what_it_can() -> None:
    assert "no raw text" in calls_phrase(0, 0, 0, SERVER)
    assert "every one of the two calls" in calls_phrase(2, 0, 0, SERVER)
    assert calls_phrase(10, 1, 0, SERVER).endswith("its own parser dropped one")
    assert calls_phrase(10, 1, 2, SERVER).endswith("its own parser dropped one and changed two")


def test_table(tmp_path: Path) -> None:
    res = compute(trials(), None, PARAMS)
    topic = write_topic(tmp_path / "serving.json", "serving", res, trials())
    tex = render_table("serving", json.loads(topic.read_text()))
    assert "a:1b" in tex and "b:3b" in tex and "tab:serving" in tex
    assert not math.isnan(float(json.loads(topic.read_text())["tables"]["calls"][0]["n_tool_calls_p"]))
