"""The scaffold comparison: pairing, paired tests, the primary-condition filter, its figure and table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from scipy.stats import binomtest
from tests.fixtures.topic_io import numbers_by_key, write_topic

from slmbench.analysis.paired import paired
from slmbench.analysis.selection import count_mismatches
from slmbench.analysis.topics import get_topic
from slmbench.analysis.topics.common import primary_only, primary_rows
from slmbench.analysis.topics.scaffold import compute, other_rows, scaffolds_of
from slmbench.figures.registry import draw_figure
from slmbench.figures.tables import render_table

PARAMS: dict[str, Any] = {"bootstrap_seed": 3, "n_boot": 50}
# model -> (params_b, is_base, native passes, react passes) over tasks T0..T5
OUTCOMES = {
    "a:1b": (1.0, False, [1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0]),
    "b:3b": (3.0, False, [1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0]),
    "base:1b": (1.0, True, [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]),
}


def _row(model: str, task: str, scaffold: str, passed: bool, **kw: Any) -> dict[str, Any]:
    size, base, _, _ = OUTCOMES.get(model, (1.0, False, [], []))
    row = {
        "trial_id": f"{kw.get('study', 'slmbench')}/{model}/{task}/{scaffold}/{kw.get('repeat', 0)}", "study": "slmbench",
        "suite": "capability", "task_id": task, "group": "G", "variant": "original", "model": model,
        "params_b": size, "is_base": base, "temperature": 0.0, "repeat": 0, "scaffold": scaffold,
        "parser_mode": "repaired", "outcome": "success" if passed else "failure", "passed": passed,
        "failure_class": None if passed else ("clock" if scaffold == "native" else "no_tool_call"),
        "primary": scaffold == "native", "comparison": None if scaffold == "native" else "scaffold", "n_ctx": 4096, "stop_reason": "final_answer" if passed else "max_turns",
    }  # fmt: skip
    row.update(kw)
    return row


def trials() -> pd.DataFrame:
    rows = []
    for model, (_, _, native, react) in OUTCOMES.items():
        for i, (n_ok, r_ok) in enumerate(zip(native, react, strict=True)):
            rows.append(_row(model, f"T{i}", "native", bool(n_ok)))
            rows.append(_row(model, f"T{i}", "react", bool(r_ok)))
    rows.append(_row("a:1b", "T9", "native", True))  # no react twin: not a pair
    rows.append(_row("b:3b", "T9", "react", False, outcome="infra_error"))  # infra error: not a pair
    rows.append(_row("b:3b", "T9", "native", True))
    rows.append(_row("a:1b", "T0", "native", False, study="other", primary=True))  # other study: ignored
    return pd.DataFrame(rows)


def _numbers(df: pd.DataFrame) -> dict[str, Any]:
    return numbers_by_key(compute(df, None, PARAMS))


def test_the_primary_scaffold_is_read_from_the_primary_rows() -> None:
    df = trials()
    assert scaffolds_of(primary_rows(df, "slmbench")[0]) == ("native", "react")
    flipped = df.assign(primary=df["scaffold"] == "react")
    assert scaffolds_of(primary_rows(flipped, "slmbench")[0]) == ("react", "native")
    assert scaffolds_of(df.iloc[0:0]) == ("native", "react")


def test_pairs_are_same_task_both_scaffolds_without_infra_errors() -> None:
    df = trials()
    primary = primary_rows(df, "slmbench")[0]
    pairs = paired(primary, other_rows(df, primary, "react"))
    assert len(pairs) == 18  # 3 models x 6 tasks; T9 has no valid twin
    assert set(pairs["task_id"]) == {f"T{i}" for i in range(6)}
    unplanned = df.assign(comparison=None)
    assert other_rows(unplanned, primary, "react").empty  # a shard the plan did not run for it is not a twin


def test_paired_counts_and_exact_mcnemar_match_a_hand_count() -> None:
    n = _numbers(trials())
    assert n["scaf.primary.name"] == "native" and n["scaf.other.name"] == "react"
    assert n["scaf.n.pairs"] == 18 and n["scaf.n.models"] == 3 and n["scaf.n.tasks"] == 6
    # a: native passes T0; react T0-T3 -> only-react 3. b: native T0-T2, react T0-T1 -> only-native 1.
    assert n["scaf.n.only-primary"] == 1 and n["scaf.n.only-other"] == 3
    assert n["scaf.primary.acc.k"] == 4 and n["scaf.other.acc.k"] == 6
    assert n["scaf.diff"] == pytest.approx(2 / 18)
    assert n["scaf.mcnemar.p"] == pytest.approx(binomtest(1, 4, 0.5).pvalue)
    assert n["scaf.model.a-1b.n.only-other"] == 3
    assert n["scaf.model.a-1b.mcnemar.p"] == pytest.approx(binomtest(0, 3, 0.5).pvalue)
    assert n["scaf.model.base-1b.base"] == "yes" and n["scaf.model.a-1b.base"] == "no"
    assert n["scaf.model.base-1b.mcnemar.p"] == "n/a"  # no discordant pair
    assert n["scaf.boot.diff.lo"] == n["scaf.boot.diff.hi"] == "n/a"  # too few models to resample
    assert n["scaf.boot.n-valid"] == 0


def test_failure_classes_of_failed_pairs_per_scaffold() -> None:
    n = _numbers(trials())
    assert n["scaf.fail.primary.clock"] == 1.0 and n["scaf.fail.primary.clock.n"] == 14
    assert n["scaf.fail.other.no-tool-call"] == 1.0 and n["scaf.fail.other.no-tool-call.n"] == 12


def test_without_pairs_every_key_is_still_emitted() -> None:
    full = set(_numbers(trials()))
    empty = _numbers(trials().iloc[0:0])
    pooled = {k for k in full if not k.startswith("scaf.model.")}
    assert pooled <= set(empty)
    assert empty["scaf.n.pairs"] == 0 and empty["scaf.diff"] == "n/a"


def test_headline_topics_ignore_comparison_shards() -> None:
    df = trials()
    cap = {n.key: n.value for n in get_topic("capability")(df, None, PARAMS).numbers}
    assert cap["cap.n.trials"] == len(df[(df["study"] == "slmbench") & (df["scaffold"] == "native")])
    assert cap["cap.acc.a-1b.k"] == 2  # T0 and T9 in the native scaffold
    assert len(primary_only(df)) == int(df["primary"].sum())


def test_figure_and_table(tmp_path: Path) -> None:
    res = compute(trials(), None, PARAMS)
    topic = write_topic(tmp_path / "scaffold.json", "scaffold", res, trials())
    values = draw_figure("scaffold_comparison", {"scaffold": topic}, tmp_path / "fig.pdf")
    assert (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF")
    assert values["scaf.model.a-1b.other.acc"] == pytest.approx(4 / 6)
    assert draw_figure("scaffold_comparison", {}, tmp_path / "empty.pdf") == {}  # no topic: says so
    tex = render_table("scaffold", json.loads(topic.read_text()))
    assert "a:1b" in tex and "base:1b\\textsuperscript{b}" in tex and "tab:scaffold" in tex


def test_each_side_selects_exactly_its_paired_trials() -> None:
    df = trials()
    numbers = [n.to_dict() for n in compute(df, None, PARAMS).numbers]
    assert count_mismatches(numbers, df) == []


def test_pairs_that_cross_kinds_of_cpu_are_counted() -> None:
    df = trials().assign(cpu="AMD EPYC", build="native/AMD EPYC")
    assert _numbers(df)["scaf.n.cross-cpu"] == 0
    crossed = (df["scaffold"] == "react") & (df["model"] == "a:1b")
    intel = df.assign(cpu=df["cpu"].where(~crossed, "Intel Xeon"))
    intel["build"] = "native/" + intel["cpu"]  # builds from before the portable one are named by their CPU
    assert _numbers(intel)["scaf.n.cross-cpu"] == 6
