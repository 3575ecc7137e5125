"""compare_shards and ``slmbench compare-shards``: the same records, timings aside, in any line order."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from tests.fixtures import scripted_shard

from slmbench.cli import main
from slmbench.records.compare import compare_shards, first_difference


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_timings_run_fields_and_line_order_do_not_count(tmp_path: Path) -> None:
    left = tmp_path / "left.jsonl"
    scripted_shard.run(left, 2, 2)
    records = _lines(left)
    for record in records:
        record["started_at"] = "2030-01-01T00:00:00+00:00"
        record["fingerprint"]["machine"] = {"cpu": "elsewhere"}
        record["provenance"]["settings"]["concurrency"] = 4
        for event in record["events"]:
            for key in ("t", "latency_s", "wall_s", "peak_rss_mb", "cached_tokens"):
                if key in event:
                    event[key] = 999
    right = _write(tmp_path / "right.jsonl", records[::-1])
    result = compare_shards(left, right)
    assert result.equal and len(result.same) == 4


def test_a_different_reply_is_named_with_its_place(tmp_path: Path) -> None:
    left = tmp_path / "left.jsonl"
    scripted_shard.run(left, 2, 1)
    records = _lines(left)
    response = next(i for i, e in enumerate(records[1]["events"]) if e["type"] == "model_response")
    records[1]["events"][response]["raw_text"] = "something else"
    right = _write(tmp_path / "right.jsonl", [records[1]])
    result = compare_shards(left, right)
    assert not result.equal and result.same == []
    assert result.only_left == [records[0]["trial_id"]] and result.only_right == []
    [diff] = result.different
    assert (diff.trial_id, diff.where, diff.right) == (
        records[1]["trial_id"],
        f"events[{response}].raw_text",
        "something else",
    )

    out = CliRunner().invoke(main, ["compare-shards", str(left), str(right)])
    assert out.exit_code == 1
    assert out.output.splitlines()[0] == f"0 trials equal, 1 different, 1 only in {left}, 0 only in {right}"
    assert f"events[{response}].raw_text" in out.output
    assert CliRunner().invoke(main, ["compare-shards", str(left), str(left)]).exit_code == 0


def test_first_difference_reports_lengths_and_nested_paths() -> None:
    assert first_difference({"a": [1, 2]}, {"a": [1, 2, 3]}) == ("a (length)", 2, 3)
    assert first_difference({"a": {"b": 1}}, {"a": {"b": 2}}) == ("a.b", 1, 2)
    assert first_difference([{"x": 1}], [{"x": 1}]) is None
