"""The null control pairs each rerun with the capability run it repeats on the same build."""

from __future__ import annotations

import pandas as pd

from slmbench.analysis.topics.flips import null_control_runs, repeat_pairs
from slmbench.vocab import STUDY_ID


def _row(suite: str, build: str, passed: bool, primary: bool, repeat: int = 0) -> dict:
    return dict(study=STUDY_ID, suite=suite, model="m", task_id="T1", variant="original", temperature=0.0,
                repeat=repeat, build=build, passed=passed, primary=primary, cpu_primary=True,
                trial_id=f"{suite}/{build}/{repeat}")  # fmt: skip


def test_the_reruns_pair_with_the_capability_run_of_their_own_build_when_the_primary_build_is_another() -> (
    None
):
    trials = pd.DataFrame(
        [
            _row("capability", "native/X", passed=True, primary=False),
            _row("capability", "portable-1", passed=False, primary=True),  # the primary results' build
            _row("null_control", "native/X", passed=True, primary=False, repeat=1),
        ]
    )
    rows, selection = null_control_runs(trials, STUDY_ID)
    assert sorted(rows["trial_id"]) == ["capability/native/X/0", "null_control/native/X/1"]
    assert repeat_pairs(rows) == [(True, True)]  # the same build reproduced itself
    assert selection == {"study": STUDY_ID, "cpu_primary": True}


def test_a_table_without_roles_or_builds_pairs_by_prompt() -> None:
    trials = pd.DataFrame([_row("capability", "b", True, True), _row("null_control", "b", False, True, 1)])
    rows, selection = null_control_runs(trials.drop(columns=["build", "primary", "cpu_primary"]), STUDY_ID)
    assert len(rows) == 2 and selection == {"study": STUDY_ID}
