"""``slmbench import-records``: another study's recorded shards of a model, brought into this study's folder when
both configure the model alike; a shard recorded here already is kept."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from slmbench.cli import main
from slmbench.study import write_study

MODEL = {"backend": "scripted", "params_b": 0.1, "instruct": True, "outputs": ["OK"]}


def _study(folder: Path, **models: dict) -> Path:
    write_study(folder)
    data = yaml.safe_load((folder / "config.yaml").read_text())
    (folder / "config.yaml").write_text(yaml.safe_dump({**data, "models": models}))
    return folder


def _shard(folder: Path, model: str, stem: str, text: str = "{}\n") -> Path:
    path = folder / "data/raw/slmbench" / model / f"{stem}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_models_shards_are_copied_and_those_here_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = _study(tmp_path / "other study", double=MODEL, extra=MODEL)
    _shard(other, "double", "capability_T0", "theirs\n")
    _shard(other, "double", "reliability_T0", "theirs\n")
    _shard(other, "extra", "capability_T0")
    mine = _study(tmp_path / "mine", double=MODEL)
    _shard(mine, "double", "capability_T0", "mine\n")
    monkeypatch.chdir(mine)
    result = CliRunner().invoke(main, ["import-records", str(other)])
    assert result.exit_code == 0, result.output
    assert result.output == f"double: 1 shard(s) copied from {other}; 1 recorded here already, kept\n"
    assert (mine / "data/raw/slmbench/double/capability_T0.jsonl").read_text() == "mine\n"
    assert (mine / "data/raw/slmbench/double/reliability_T0.jsonl").read_text() == "theirs\n"
    assert not (mine / "data/raw/slmbench/extra").exists()  # not a model of this study


def test_a_model_configured_otherwise_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = _study(tmp_path / "other", double={**MODEL, "params_b": 0.2})
    _shard(other, "double", "capability_T0")
    mine = _study(tmp_path / "mine", double=MODEL)
    monkeypatch.chdir(mine)
    result = CliRunner().invoke(main, ["import-records", str(other), "--model", "double"])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: double: models.double.params_b is 0.1 here and 0.2 in {other}: its records were made by another"
        " configuration (give the model another name, or the same entry)\n"
    )
    assert not (mine / "data/raw").exists()
