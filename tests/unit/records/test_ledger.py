"""Shard files: append-only, locked, torn tails cut, every bad line named by file:line."""

import json

import pytest

from slmbench.records import schema as rec
from slmbench.records.ledger import RawRecordError, ShardLockedError, ShardWriter, iter_records


def make_record(trial_id: str) -> rec.TrialRecord:
    end = rec.EndEvent(
        t=0.1,
        outcome="failure",
        failure_class="no_tool_call",
        failure_class_clock_first="no_tool_call",
        stop_reason="final_answer",
        turns=1,
        wall_s=0.1,
        peak_rss_mb=10.0,
    )
    return rec.TrialRecord(
        trial_id=trial_id,
        study="slmbench",
        suite="capability",
        task_id="IR-1",
        group="information_retrieval",
        model="m",
        temperature=0.0,
        seed=1,
        repeat=0,
        scaffold="native",
        parser_mode="strict",
        started_at="2026-01-01T00:00:00+00:00",
        events=[rec.FinalAnswerEvent(t=0.05, turn=1, text="hi"), end],
        check=rec.CheckResult(passed=False, partial=0.0),
        outcome="failure",
        failure_class="no_tool_call",
        failure_class_clock_first="no_tool_call",
        fingerprint={},
    )


def test_records_round_trip_and_resume_knows_what_is_done(tmp_path):
    shard = tmp_path / "s.jsonl"
    with ShardWriter(shard) as writer:
        writer.append(make_record("a"))
        writer.append(make_record("b"))
    with ShardWriter(shard) as writer:
        assert writer.done == {"a", "b"}
        with pytest.raises(RawRecordError, match="already recorded"):
            writer.append(make_record("a"))
    assert [r.trial_id for _, r in iter_records(shard)] == ["a", "b"]


def test_a_torn_last_line_is_cut_before_appending(tmp_path):
    shard = tmp_path / "s.jsonl"
    with ShardWriter(shard) as writer:
        writer.append(make_record("a"))
    with shard.open("ab") as handle:
        handle.write(make_record("b").model_dump_json().encode()[:57])
    with pytest.raises(RawRecordError, match=r"s\.jsonl:2: truncated"):
        list(iter_records(shard))
    with ShardWriter(shard) as writer:
        assert writer.done == {"a"}
        writer.append(make_record("b"))
    assert [r.trial_id for _, r in iter_records(shard)] == ["a", "b"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"not json\n", r":2: not JSON"),
        (json.dumps({"trial_id": "x"}).encode() + b"\n", r":2: schema-invalid"),
    ],
)
def test_bad_lines_are_named_by_file_and_line(tmp_path, line, message):
    shard = tmp_path / "s.jsonl"
    shard.write_bytes(make_record("a").model_dump_json().encode() + b"\n" + line)
    with pytest.raises(RawRecordError, match=message):
        list(iter_records(shard))


def test_a_duplicated_line_is_an_error(tmp_path):
    shard = tmp_path / "s.jsonl"
    line = make_record("a").model_dump_json().encode() + b"\n"
    shard.write_bytes(line + line)
    with pytest.raises(RawRecordError, match=r":2: duplicate trial a \(first at line 1\)"):
        list(iter_records(shard))


def test_a_second_writer_on_the_same_shard_is_refused(tmp_path):
    shard = tmp_path / "s.jsonl"
    with ShardWriter(shard):
        with pytest.raises(ShardLockedError, match="another runner"):
            with ShardWriter(shard):
                pass
