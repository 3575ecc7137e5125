"""The teacher-forcing reports totalled in topic task_consistency: counts over every report, the largest
difference of any, the scored trials as the numbers' selection; nothing without a report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slmbench.analysis.topics.task_consistency.forced import forced_numbers
from slmbench.run.teacher_forcing import ReplyComparison, report


def _write(path: Path, shard: str, trials: dict[str, list[ReplyComparison]]) -> str:
    path.write_text(json.dumps(report(shard, "b", trials)))
    return str(path)


def test_the_reports_are_totalled_and_select_their_trials(tmp_path: Path) -> None:
    same = ReplyComparison(1, 2, (-0.5, -0.25, -0.1), (-0.5, -0.25, -0.3))
    off = ReplyComparison(2, 2, (-0.5, -0.25), (-0.5, -0.2))
    short = ReplyComparison(1, 3, (-0.1, -0.2, -0.3), (-0.1,))
    paths = [
        _write(tmp_path / "a.json", "m/a", {"m/a/t1": [same, off]}),
        _write(tmp_path / "b.json", "m/b", {"m/b/t1": [same], "m/b/t2": [short]}),
    ]
    got = {n.key: n for n in forced_numbers(paths)}
    values = {k.removeprefix("tcons.forced."): n.value for k, n in got.items()}
    assert values == {"n.trials": 3, "n.replies": 4, "n.comparable": 3, "n.tokens": 6, "n.equal": 2,
                      "max-diff": pytest.approx(0.05)}  # fmt: skip
    assert got["tcons.forced.n.trials"].provenance["selection"] == {
        "trial_id": ["m/a/t1", "m/b/t1", "m/b/t2"]
    }
    assert got["tcons.forced.n.trials"].provenance["unit"] == "trials"


def test_without_a_report_nothing_is_said() -> None:
    assert forced_numbers([]) == []
