"""Tidy reads only the study's own records: the shards of its configured models under its raw folder. Records of
a model the config no longer names, or of another place, are left out, and the log counts them."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from slmbench.cli import main
from slmbench.config import parse_config
from slmbench.tidy import study_shards

ROOT = Path(__file__).resolve().parents[3]
STEM = "capability_T0_native_repaired_p-full.jsonl"
MODELS = ("smollm2-135m", "gemma3-270m")

pytestmark = pytest.mark.skipif(
    not all((ROOT / "data/raw/slmbench" / m / STEM).exists() for m in MODELS),
    reason="needs the committed shards",
)


def _study(root: Path) -> Path:
    """A study folder holding shards of two models, its config naming only smollm2-135m, and a stray file."""
    for model in MODELS:
        (root / "data/raw/slmbench" / model).mkdir(parents=True)
        shutil.copy(ROOT / "data/raw/slmbench" / model / STEM, root / "data/raw/slmbench" / model / STEM)
    (root / "data/raw/stray.jsonl").write_text("")
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    data["models"] = {"smollm2-135m": data["models"]["smollm2-135m"]}
    for block in ("serving_comparison", "eligibility", "primary_build", "build_run"):
        data.pop(block, None)
    (root / "config.yaml").write_text(yaml.safe_dump(data))
    return root


def test_only_the_configured_models_shards_are_the_studys(tmp_path: Path) -> None:
    root = _study(tmp_path)
    config = parse_config(yaml.safe_load((root / "config.yaml").read_text()))
    shards = study_shards(root / "data/raw", config)
    assert shards.kept == [root / "data/raw/slmbench/smollm2-135m" / STEM]
    assert shards.left_out == {"slmbench/gemma3-270m": 1, "other": 1}


def test_tidy_leaves_other_models_out_and_logs_how_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = _study(tmp_path)
    monkeypatch.chdir(root)
    out = {name: root / f"{name}.out" for name in ("trials", "events", "manifest")}
    args = ["tidy", "--config", "config.yaml", "--raw-dir", "data/raw"]
    args += [f"--out-{name}={path}" for name, path in out.items()]
    with caplog.at_level(logging.INFO, logger="slmbench.tidy.tables"):
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    trials = pd.read_parquet(out["trials"])
    assert set(trials["model"]) == {"smollm2-135m"} and set(trials["study"]) == {"slmbench"}
    assert [r.getMessage() for r in caplog.records] == [
        "left out 2 shard file(s) under data/raw that hold no trials of this study's models: other (1), "
        "slmbench/gemma3-270m (1)"
    ]
