"""Topic ``protocol``: the paired comparisons select exactly their trials (a small synthetic study)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis.selection import count_mismatches, select_trials
from slmbench.analysis.topics.protocol import compute

PARAMS: dict[str, Any] = {"n_boot": 20}  # the default resampling seed


def trials() -> pd.DataFrame:
    rows = []
    for model in ("a:1b", "b:3b"):
        for task in range(5):
            for protocol, repeats in (("legacy", 1), ("full", 2), ("full-no-answer", 1)):
                for repeat in range(repeats):
                    passed = protocol != "legacy" and (task + repeat) % 2 == 0
                    rows.append(
                        {"trial_id": f"{model}/{task}/{protocol}/{repeat}", "study": "slmbench",
                         "suite": "capability", "task_id": f"T{task}", "variant": "original", "model": model,
                         "params_b": 1.0, "is_base": False, "temperature": 0.0, "repeat": repeat,
                         "scaffold": "native", "parser_mode": "repaired", "n_ctx": 4096.0, "max_turns": 8.0,
                         "max_tokens": 512.0, "protocol": protocol, "primary": protocol == "full",
                         "outcome": "success" if passed else "failure", "passed": passed,
                         "failure_class": None if passed else "clock", "stop_reason": "final_answer",
                         "transcript_sha256": f"{model}{task}{passed}", "closing_answer": False}
                    )  # fmt: skip
    df = pd.DataFrame(rows)
    df.loc[df["trial_id"] == "b:3b/2/full-no-answer/0", ["outcome", "passed"]] = ["infra_error", False]
    return df


def test_every_audit_selects_exactly_the_trials_its_n_counts() -> None:
    df = trials()
    res = {n.key: n for n in compute(df, None, PARAMS).numbers}
    assert count_mismatches([n.to_dict() for n in res.values()], df) == []
    # the other side of full vs legacy: the first repeat of full, paired with legacy's only one
    rows = select_trials(df, res["proto.cmp.full.other.acc"].provenance["selection"])
    assert len(rows) == res["proto.cmp.full.other.acc.n"].value == 10
    assert set(rows["protocol"]) == {"full"} and set(rows["repeat"]) == {0}
    # an infra error leaves its task out of both sides of that comparison
    rows = select_trials(df, res["proto.cmp.full-no-answer.b-3b.primary.acc"].provenance["selection"])
    assert sorted(rows["task_id"]) == ["T0", "T1", "T3", "T4"]
    share = res["proto.attr.a-1b.protocol-share"].provenance
    assert share["unit"] == "pairs" and len(select_trials(df, share["selection"])) == 2 * 5


def test_what_is_not_a_pair_is_selected_by_its_declared_conditions_not_by_trial_ids() -> None:
    """Only the trials of a pair are selected exactly from their rows; every other selection is the one the
    rows were computed from (its protocol, limits and the outcomes it scores)."""
    df = trials()
    res = {n.key: n for n in compute(df, None, PARAMS).numbers}
    declared = [
        n for n in res.values() if n.provenance["unit"] != "pairs" and not n.key.startswith("proto.cmp.")
    ]
    assert declared and all(n.provenance["selection"].get("trial_id", []) == [] for n in declared)
    remaining = res["proto.attr.a-1b.remaining.capability"].provenance["selection"]
    assert remaining["protocol"] == "full" and remaining["passed"] is False and remaining["model"] == "a:1b"
    assert len(select_trials(df, remaining)) == res["proto.attr.a-1b.remaining.n"].value


def test_the_protocol_studys_trial_count_leaves_out_the_comparisons_legacy_and_the_primary_trials() -> None:
    """A trial of a planned comparison (scaffold, context, serving) is not one of the protocol study's, and a primary
    trial (the full protocol is the primary one) is counted with the primary results, not twice."""
    df = trials().assign(comparison=None, server=None)
    served = df[df["protocol"] == "full"].assign(
        comparison="serving", server="llama-server", primary=False, trial_id=lambda f: f["trial_id"] + "/srv"
    )
    both = pd.concat([df, served], ignore_index=True)
    res = {n.key: n for n in compute(both, None, PARAMS).numbers}
    n = res["proto.n.trials"]
    assert n.value == int(((df["protocol"] != "legacy") & ~df["primary"].astype(bool)).sum())
    assert n.value < int((df["protocol"] != "legacy").sum())  # the fixture has primary trials
    assert len(select_trials(both, n.provenance["selection"])) == n.value
