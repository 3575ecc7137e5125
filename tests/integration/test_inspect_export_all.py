"""Every shard of the shipped study out as an Inspect eval log and back through Inspect's own reader: one log per
shard, one sample per trial (epoch = repeat + 1), each with its trial id and the verdict its record holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import CORRECT, INCORRECT

from slmbench.formats.inspect_out import SCORER, export_inspect
from slmbench.formats.posed import sample_id
from slmbench.records.ledger import iter_records
from slmbench.vocab import STUDY_ID

RAW = Path(__file__).resolve().parents[2] / "data" / "raw" / STUDY_ID

pytestmark = [pytest.mark.slow]


def test_every_shipped_shard_reads_back_trial_for_trial(tmp_path: Path) -> None:
    shards = RAW.glob("*/*.jsonl")
    logs = export_inspect(RAW, tmp_path)
    assert sorted((p.parent.name, p.name.removesuffix(".eval")) for p in logs) == sorted(
        (s.parent.name, s.stem) for s in shards
    )
    for path in logs:
        records = [
            record
            for _, record in iter_records(RAW / path.parent.name / f"{path.name.removesuffix('.eval')}.jsonl")
        ]
        log = read_eval_log(str(path))
        assert log.status == "success", path
        samples = {(str(s.id), s.epoch): s for s in log.samples or []}
        assert len(samples) == len(records), path
        for record in records:
            sample = samples[(sample_id(record.task_id, record.variant), record.repeat + 1)]
            assert sample.metadata["trial_id"] == record.trial_id
            assert sample.scores is not None
            assert sample.scores[SCORER].value == (CORRECT if record.outcome == "success" else INCORRECT)
