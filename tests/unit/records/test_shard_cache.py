"""Per-shard tables kept between builds: reused while shard and package hold, derived again when either moves;
tidy and replay give the same tables from the cache, in parallel and afresh."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from slmbench.config import load_config
from slmbench.harness.replay import replay_shards
from slmbench.records.ledger import RawRecordError
from slmbench.records.shard_cache import ShardCache, map_shards
from slmbench.tidy import tidy_tables

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = sorted((ROOT / "data/raw/slmbench").glob("*/capability_T0_native_repaired_p-full*.jsonl"))[:3]


def _lines(path: Path, name: str) -> dict[str, pd.DataFrame]:
    """A build that records that it ran (a file per call beside the shard)."""
    marker = path.with_suffix(".builds")
    marker.write_text(marker.read_text() + "x" if marker.exists() else "x")
    return {"rows": pd.DataFrame({"name": [name], "lines": [len(path.read_text().splitlines())]})}


def _builds(path: Path) -> int:
    marker = path.with_suffix(".builds")
    return len(marker.read_text()) if marker.exists() else 0


def test_kept_tables_are_reused_until_the_shard_or_the_source_changes(tmp_path: Path) -> None:
    shards = []
    for i in range(3):
        path = tmp_path / f"s{i}.jsonl"
        path.write_text("a\n" * (i + 1))
        shards.append((path, path.name))
    cache = ShardCache(tmp_path / "cache", "test", "source-1")
    first = map_shards(shards, _lines, ("rows",), cache)
    assert [t["rows"]["lines"].to_pylist() for t in first] == [[1], [2], [3]]
    again = map_shards(shards, _lines, ("rows",), cache)
    assert [_builds(p) for p, _ in shards] == [1, 1, 1]  # nothing derived again
    assert all(a["rows"].equals(b["rows"]) for a, b in zip(first, again, strict=True))
    path = shards[1][0]
    path.write_text("a\nb\nc\nd\n")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    changed = map_shards(shards, _lines, ("rows",), cache)
    assert [_builds(p) for p, _ in shards] == [1, 2, 1] and changed[1]["rows"]["lines"].to_pylist() == [4]
    assert (
        len(list((tmp_path / "cache" / "test").rglob("*.arrow"))) == 3
    )  # the changed shard's old table went
    map_shards(shards, _lines, ("rows",), ShardCache(tmp_path / "cache", "test", "source-2"))
    assert [_builds(p) for p, _ in shards] == [2, 3, 2]  # another package source: everything again
    assert [d.name for d in (tmp_path / "cache" / "test").iterdir()] == ["source-2"]  # source-1's tables went
    map_shards(shards, _lines, ("rows",), ShardCache(None, "test"))
    assert [_builds(p) for p, _ in shards] == [3, 4, 3]  # no cache: always derived


@pytest.mark.skipif(len(COMMITTED) < 2, reason="needs committed protocol shards")
def test_tidy_and_replay_equal_with_cache_in_parallel_and_afresh(tmp_path: Path) -> None:
    config = load_config(ROOT / "config.yaml")
    fresh = tidy_tables(COMMITTED, config, None, ROOT)
    cached = tidy_tables(COMMITTED, config, None, ROOT, cache_dir=tmp_path, jobs=2)
    reread = tidy_tables(COMMITTED, config, None, ROOT, cache_dir=tmp_path, jobs=2)
    for other in (cached, reread):
        assert fresh[0].equals(other[0])
        pd.testing.assert_frame_equal(fresh[1], other[1])
        assert fresh[2] == other[2]
    assert set(fresh[1]["type"]) <= {"tool_call", "refusal"} and len(fresh[1]) > 0
    rows = replay_shards(COMMITTED, "strict")
    pd.testing.assert_frame_equal(rows, replay_shards(COMMITTED, "strict", tmp_path, jobs=2))
    pd.testing.assert_frame_equal(rows, replay_shards(COMMITTED, "strict", tmp_path, jobs=2))


def test_a_bad_line_in_a_worker_names_its_file_and_line(tmp_path: Path) -> None:
    good = COMMITTED[0].read_text().splitlines(keepends=True)
    shards = []
    for i in range(2):
        path = tmp_path / f"s{i}.jsonl"
        path.write_text(good[0] + ("{not json\n" if i == 1 else ""))
        shards.append(path)
    config = load_config(ROOT / "config.yaml")
    with pytest.raises(RawRecordError, match=r"s1\.jsonl:2: not JSON"):
        tidy_tables(shards, config, None, tmp_path, cache_dir=tmp_path / "c", jobs=2)
    shards[1].write_text(good[1])  # mended: the next build reads it (nothing of the failed one is kept)
    trials, _, manifest = tidy_tables(shards, config, None, tmp_path, cache_dir=tmp_path / "c", jobs=2)
    assert trials.num_rows == 2 and [f["n_records"] for f in manifest["raw_files"]] == [1, 1]


def test_the_same_trial_in_two_shards_names_both_places(tmp_path: Path) -> None:
    line = COMMITTED[0].read_text().splitlines(keepends=True)[0]
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text(line)
    with pytest.raises(RawRecordError, match=r"b\.jsonl:1: trial .* also in a\.jsonl:1"):
        tidy_tables(
            sorted(tmp_path.glob("*.jsonl")), load_config(ROOT / "config.yaml"), None, tmp_path, jobs=2
        )
