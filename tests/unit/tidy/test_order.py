"""Tidy's tables do not depend on the order trials finished in (a served model runs several at once); a study
with no recorded trial stops with one line naming the command that records them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from slmbench.cli import main
from slmbench.config import load_config
from slmbench.tidy import NoTrialsError, tidy_tables

ROOT = Path(__file__).resolve().parents[3]
SHARD = ROOT / "data/raw/slmbench/qwen2.5-coder-0.5b/capability_T0_native_repaired_p-full.jsonl"
WHERE = "data/raw/slmbench/qwen2.5-coder-0.5b/capability_T0_native_repaired_p-full.jsonl"


def _shard(root: Path, lines: list[bytes]) -> Path:
    path = root / WHERE
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.skipif(not SHARD.exists(), reason="needs the committed shard")
def test_the_tables_are_the_same_whatever_order_the_trials_finished_in(tmp_path: Path) -> None:
    lines = SHARD.read_bytes().splitlines(keepends=True)
    shuffled = list(lines)
    random.Random(4).shuffle(shuffled)
    assert shuffled != lines
    # one shard alone: its run is the primary one whichever build it ran on
    config = load_config(ROOT / "config.yaml").model_copy(update={"primary_build": None})
    runs = []
    for name, order in (("planned", lines), ("finished", shuffled)):
        root = tmp_path / name
        trials, events, manifest = tidy_tables([_shard(root, order)], config, None, root)
        runs.append((trials.to_pandas(), events, manifest))
    (trials_a, events_a, manifest_a), (trials_b, events_b, manifest_b) = runs
    assert len(trials_a) == len(lines) and len(events_a) > len(lines)
    assert list(trials_a["trial_id"]) == list(trials_b["trial_id"])
    assert not (trials_a["source_line"] == trials_b["source_line"]).all()  # each row still names its line
    columns = [c for c in trials_a.columns if c != "source_line"]
    assert trials_a[columns].equals(trials_b[columns])
    assert events_a.equals(events_b)
    assert manifest_a["raw_files"][0]["n_records"] == manifest_b["raw_files"][0]["n_records"]


def test_no_recorded_trial_is_one_line_naming_the_command(tmp_path: Path) -> None:
    config = load_config(ROOT / "config.yaml")
    with pytest.raises(NoTrialsError):
        tidy_tables([], config, None, tmp_path)
    raw = tmp_path / "raw"
    (raw / "slmbench" / "m").mkdir(parents=True)
    (raw / "slmbench" / "m" / "empty.jsonl").write_bytes(b"")  # a shard that was started, nothing finished
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        [
            "tidy",
            "--config",
            str(ROOT / "config.yaml"),
            "--raw-dir",
            str(raw),
            "--out-trials",
            str(out / "t.parquet"),
            "--out-events",
            str(out / "e.parquet"),
            "--out-manifest",
            str(out / "m.json"),
        ],
    )
    assert result.exit_code == 1
    assert result.output == (
        f"Error: no trials are recorded under {raw} for the models of {ROOT / 'config.yaml'}: record them first "
        "with `snakemake trials --cores 2` (or one shard with `slmbench run`), then build the tables or the paper\n"
    )
    assert not out.exists()
