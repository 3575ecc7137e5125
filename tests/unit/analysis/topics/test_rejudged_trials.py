"""Topic ``rejudged``: the trials whose verdict differs from their record's, listed for the appendix table."""

from __future__ import annotations

import json

import pandas as pd

from slmbench.analysis.selection import select_trials
from slmbench.analysis.topics import get_topic
from slmbench.analysis.topics.rejudged import rule_text
from slmbench.figures.tables import render_table
from slmbench.vocab import STUDY_ID


def _trial(
    trial_id: str, outcome: str, recorded: str | None, rejudged_by: str | None, study: str = STUDY_ID
) -> dict:
    return {
        "trial_id": f"{study}/m:1b/{trial_id}", "study": study, "model": "m:1b", "task_id": trial_id.split("/")[1],
        "suite": "capability", "protocol": "legacy", "outcome": outcome, "passed": outcome == "success",
        "recorded_outcome": recorded, "rejudged_by": rejudged_by,
    }  # fmt: skip


TRIALS = pd.DataFrame(
    [
        _trial("capability/T1/original/T0/r0", "success", "success", None),
        _trial(
            "capability/T2/original/T0/r0",
            "failure",
            "success",
            'answered: no final answer; side_effects: repeated side effects {\'email {"to": "a; b: c"}\': 5}',
        ),
        _trial(
            "capability/T3/original/T0/r0", "success", "failure", "answer_number: found number matching 90.0"
        ),
        _trial(
            "capability/T4/original/T0/r0", "failure", None, None, study="published"
        ),  # imported: no record
    ]
)


def test_the_trials_whose_verdict_changed_are_listed_with_both_verdicts_and_the_criteria() -> None:
    res = get_topic("rejudged")(TRIALS, None, {})
    n = {x.key: x for x in res.numbers}
    assert (n["rejudged.n.judged"].value, n["rejudged.n.changed"].value) == (3, 2)
    assert (n["rejudged.n.to-failure"].value, n["rejudged.n.to-success"].value) == (1, 1)
    assert len(select_trials(TRIALS, n["rejudged.n.changed"].provenance["selection"])) == 2
    slug = next(k for k in n if k.endswith(".rule") and "-t2-" in k).removesuffix(".rule")
    assert n[f"{slug}.recorded"].value == "success" and n[f"{slug}.now"].value == "failure"
    assert n[f"{slug}.rule"].value == "answered: no final answer; side_effects: repeated side effects"
    assert n[f"{slug}.task"].value == "T2" and n[f"{slug}.model"].value == "m:1b"
    assert [r["task"] for r in res.tables["trials"]] == ["T2", "T3"]
    doc = json.loads(json.dumps({"topic": "rejudged", "numbers": [x.to_dict() for x in res.numbers],
                                 "tables": res.tables, "labels": res.labels}, default=str))  # fmt: skip
    tex = render_table("rejudged", doc)
    assert (
        "capability/\\allowbreak{}T2/\\allowbreak{}original/\\allowbreak{}T0/\\allowbreak{}r0 & m:1b & legacy & "
        "success & failure & answered: no final answer" in tex
    )


def test_a_rule_keeps_each_criterion_and_cuts_a_long_detail_before_its_values() -> None:
    assert rule_text("the check's verdict (no single criterion changed)") == (
        "the check's verdict (no single criterion changed)"
    )
    long = "answered: " + "word " * 20
    assert rule_text(long).endswith("...") and len(rule_text(long)) < 60
