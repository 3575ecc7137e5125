"""Bad inputs stop the pipeline with the file and the line or field, and nothing already written changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from tests.fixtures import scripted_shard

from slmbench.cli import main
from slmbench.config import ConfigError, load_config
from slmbench.records.ledger import RawRecordError
from slmbench.tasks.loader import DATA_DIR, TaskFileError, load_task
from slmbench.vocab import ELIGIBILITY_RAW

REPO = Path(__file__).resolve().parents[3]
CONFIG = REPO / "config.yaml"
SHARDS = ("slmbench", "scripted")
"""Where a study keeps the scripted run's shards: ``<raw>/slmbench/scripted/`` (its model is ``scripted``)."""


def _study_config(folder: Path) -> Path:
    """``folder/config.yaml``: the shipped study's settings with the scripted model that wrote the records."""
    path = folder / "config.yaml"
    if not path.exists():
        data = yaml.safe_load(CONFIG.read_text())
        for block in ("serving_comparison", "eligibility", "build_run"):
            del data[block]
        data["models"] = {
            "scripted": {"backend": "scripted", "params_b": 0.1, "instruct": True, "outputs": ["x"]}
        }
        path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture(scope="module")
def good_lines(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """Four valid raw lines (two tasks, two repeats) from a real (scripted) shard run."""
    shard = tmp_path_factory.mktemp("good") / "good.jsonl"
    scripted_shard.run(shard, 2, 2)
    lines = shard.read_bytes().splitlines(keepends=True)
    assert len(lines) == 4
    return lines


def _digests(*roots: Path) -> dict[str, str]:
    """sha256 of every file under ``roots``: what must not change when a step fails."""
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest()
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _tidy(raw: Path, out: Path) -> Result:
    args = [
        "tidy",
        "--config",
        str(_study_config(raw.parent)),
        "--raw-dir",
        str(raw),
        "--out-trials",
        str(out / "trials.parquet"),
    ]
    args += ["--out-events", str(out / "events.parquet"), "--out-manifest", str(out / "manifest.json")]
    return CliRunner().invoke(main, args)


def _tidied_once(tmp_path: Path, good_lines: list[bytes]) -> tuple[Path, Path]:
    """A raw dir with one good shard (the first two lines), and the tables a first tidy wrote from it."""
    raw, out = tmp_path / "raw", tmp_path / "processed"
    (raw.joinpath(*SHARDS)).mkdir(parents=True)
    raw.joinpath(*SHARDS, "a.jsonl").write_bytes(b"".join(good_lines[:2]))
    result = _tidy(raw, out)
    assert result.exit_code == 0, result.output
    assert "2 trials" in result.output
    return raw, out


def _schema_invalid(line: bytes) -> bytes:
    record = json.loads(line)
    record["outcome"] = "maybe"
    return json.dumps(record).encode() + b"\n"


BAD_SHARDS = {  # each builds a second shard from the two lines that are not in the first
    "truncated": (lambda good: good[2] + good[3][: len(good[3]) // 2], ":2: truncated line"),
    "not JSON": (lambda good: good[2] + b'{"trial_id": "x", oops\n', ":2: not JSON"),
    "schema-invalid": (lambda good: good[2] + _schema_invalid(good[3]), ":2: schema-invalid: outcome"),
    "duplicated": (lambda good: good[2] + good[3] + good[2], ":3: duplicate trial"),
}


@pytest.mark.parametrize("case", sorted(BAD_SHARDS))
def test_tidy_names_the_bad_raw_line_and_changes_nothing(
    case: str, tmp_path: Path, good_lines: list[bytes]
) -> None:
    raw, out = _tidied_once(tmp_path, good_lines)
    make, message = BAD_SHARDS[case]
    bad = raw.joinpath(*SHARDS, "b.jsonl")
    bad.write_bytes(make(good_lines))
    before = _digests(raw, out)
    result = _tidy(raw, out)
    assert result.exit_code != 0
    assert f"{bad}{message}" in result.output
    assert "Traceback" not in result.output
    assert _digests(raw, out) == before  # raw shards and the earlier tables are untouched, no temp files left


def test_tidy_refuses_a_trial_recorded_in_two_shards(tmp_path: Path, good_lines: list[bytes]) -> None:
    raw, out = _tidied_once(tmp_path, good_lines)
    (raw.joinpath(*SHARDS, "b.jsonl")).write_bytes(good_lines[1])
    before = _digests(raw, out)
    result = _tidy(raw, out)
    assert result.exit_code != 0
    assert f"{raw.joinpath(*SHARDS, 'b.jsonl')}:1: trial" in result.output
    assert f"also in {raw.joinpath(*SHARDS, 'a.jsonl')}:2" in result.output  # the same trial, found twice
    assert _digests(raw, out) == before


def test_tidy_names_a_record_without_an_end_event(tmp_path: Path, good_lines: list[bytes]) -> None:
    raw, out = _tidied_once(tmp_path, good_lines)
    record = json.loads(good_lines[3])
    record["events"] = [e for e in record["events"] if e["type"] != "end"]
    bad = raw.joinpath(*SHARDS, "b.jsonl")
    bad.write_bytes(good_lines[2] + json.dumps(record).encode() + b"\n")
    before = _digests(raw, out)
    result = _tidy(raw, out)
    assert _digests(raw, out) == before
    assert result.exit_code == 1 and f"{bad}:2:" in result.output


def test_resuming_a_shard_with_a_corrupt_line_stops_and_keeps_the_file(
    tmp_path: Path, good_lines: list[bytes]
) -> None:
    shard = tmp_path / "s.jsonl"
    shard.write_bytes(good_lines[0] + b"\x00\xff not a record\n" + good_lines[1])
    before = shard.read_bytes()
    with pytest.raises(RawRecordError, match=rf"{shard}:2: not JSON"):
        scripted_shard.run(shard, 1, 2)
    assert shard.read_bytes() == before  # only a torn *last* line is ever cut


def test_a_task_file_with_a_missing_field_names_file_and_field(tmp_path: Path) -> None:
    data = yaml.safe_load((DATA_DIR / "capability" / "IR-1.yaml").read_text())
    del data["instruction"]
    path = tmp_path / "IR-1.yaml"
    path.write_text(yaml.safe_dump(data))
    before = path.read_bytes()
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert info.value.path == path
    assert info.value.field == "instruction"
    assert str(info.value).startswith(f"{path}: instruction: Field required")
    assert path.read_bytes() == before


def _run_args(config: Path, model: str, out: Path) -> list[str]:
    return [
        "run",
        "--config",
        str(config),
        "--model",
        model,
        "--suite",
        "capability",
        "--temperature",
        "0",
    ] + [
        "--out",
        str(out),
        "--no-progress",
    ]


def test_run_with_an_unknown_model_is_a_clear_error_and_writes_nothing(
    tmp_path: Path, good_lines: list[bytes]
) -> None:
    out = tmp_path / "shard.jsonl"
    out.write_bytes(good_lines[0])
    result = CliRunner().invoke(main, _run_args(CONFIG, "nope", out))
    assert result.exit_code != 0
    assert "unknown model 'nope'; configured: " in result.output
    assert "smollm2-135m" in result.output
    assert "Traceback" not in result.output
    assert out.read_bytes() == good_lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard.jsonl"]  # not even a lock file


def test_a_config_with_an_unknown_backend_names_the_field(tmp_path: Path) -> None:
    data = yaml.safe_load(CONFIG.read_text())
    data["models"]["smollm2-135m"]["backend"] = "vllm"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(data))
    before = config.read_bytes()
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert (
        str(info.value) == f"{config}: field 'models.smollm2-135m.backend': 'vllm' is not a backend: use "
        "'llamacpp', 'ollama', 'openai' or 'scripted'"
    )
    out = tmp_path / "shard.jsonl"
    result = CliRunner().invoke(main, _run_args(config, "smollm2-135m", out))
    assert result.exit_code != 0
    assert "field 'models.smollm2-135m.backend'" in result.output
    assert not out.exists()
    assert config.read_bytes() == before


def test_tidy_leaves_the_eligibility_runs_beside_the_trials_alone(
    tmp_path: Path, good_lines: list[bytes]
) -> None:
    """``data/raw`` also holds the eligibility study's runs (a header line and item lines, not trial records):
    tidy reads only trial shards, so they neither fail it nor count."""
    raw, out = _tidied_once(tmp_path, good_lines)
    runs = raw / ELIGIBILITY_RAW / "some-model"
    runs.mkdir(parents=True)
    (runs / "command_approval_terse.jsonl").write_text('{"kind": "header", "task": "command_approval"}\n')
    result = _tidy(raw, out)
    assert result.exit_code == 0, result.output
    assert "2 trials" in result.output
