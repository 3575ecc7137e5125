"""Topic ``protocol``: the share of legacy failures that full fixes, and the failures that remain."""

from __future__ import annotations

from typing import Any

import pytest
from tests.fixtures import protocol_study

from slmbench.analysis.topics import get_topic


def test_attribution_is_the_share_of_legacy_failures_fixed(numbers: dict[str, Any]) -> None:
    assert numbers["proto.attr.qa.protocol-share"] == pytest.approx(3 / 5)
    assert numbers["proto.attr.qa.remaining.n"] == 6  # 2 failed tasks x 3 repeats under full


def test_closing_passes_count_the_paired_trials_only() -> None:
    """Legacy ran once: of full's three repeats only the first is paired, so only its closing pass counts."""
    df = protocol_study.trials()
    closing = (df["model"] == "qa") & (df["protocol"] == "full") & (df["task_id"] == "T2")
    closing &= (df["max_tokens"] == 256) & (df["temperature"] == 0.0)
    df.loc[closing, "closing_answer"] = True  # every repeat passed through the closing turn
    res = get_topic("protocol")(df, None, {"bootstrap_seed": 1, "n_boot": 20})
    numbers = {n.key: n for n in res.numbers}
    assert numbers["proto.attr.qa.closing-passes"].value == 1
    assert numbers["proto.attr.qa.closing-passes"].provenance["unit"] == "pairs"


def test_the_gains_are_read_by_what_the_passing_trial_used() -> None:
    """qa gains T2, T3 and T4 under full (first repeats paired): T2 answers in the closing turn after a stuck
    observation, the others through the answer tool; legacy ran T2 and T3 to the turn limit."""
    df = protocol_study.trials()
    full = (df["model"] == "qa") & (df["protocol"] == "full") & (df["max_tokens"] == 256)
    df.loc[full & (df["task_id"] == "T2"), ["answer_channel", "n_stuck"]] = ["closing_turn", 1]
    legacy = (df["model"] == "qa") & (df["protocol"] == "legacy")
    df.loc[legacy & df["task_id"].isin(["T2", "T3"]), "stop_reason"] = "max_turns"
    res = get_topic("protocol")(df, None, {"bootstrap_seed": 1, "n_boot": 20})
    numbers = {n.key: n for n in res.numbers}
    got = {
        k: numbers[f"proto.mech.all.{k}"].value for k in ("n", "answer-tool", "closing-turn", "stuck", "text")
    }
    assert got == {"n": 3, "answer-tool": 2, "closing-turn": 1, "stuck": 1, "text": 0}
    assert numbers["proto.mech.all.legacy-turn-limit"].value == 2
    assert numbers["proto.mech.qa.n"].value == 3 and "proto.mech.qb.n" not in numbers  # qb is the base model
    assert numbers["proto.mech.all.answer-tool"].provenance["unit"] == "pairs"
