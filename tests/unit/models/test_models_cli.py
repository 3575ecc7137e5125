"""``slmbench models`` exits non-zero when a configured model cannot run (missing, unverified, not answering),
with the reason of each model; a model that answers passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from tests.fixtures.ollama_server import serve

from slmbench.cli import main

ROOT = Path(__file__).resolve().parents[3]
SCRIPTED = {"backend": "scripted", "params_b": 0.1, "instruct": True, "outputs": ["OK"]}
SERVED_MODEL = "qwen2.5-coder-0.5b"
"""The model the fixture server lists."""


def _config(tmp_path: Path, models: dict[str, Any]) -> Path:
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    for block in ("null_control", "scaffold_comparison", "context_comparison", "serving_comparison",
                  "protocol_study", "eligibility", "published_studies", "primary_build", "build_run"):  # fmt: skip
        data.pop(block, None)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({**data, "models": models}))
    return path


def test_models_that_answer_exit_zero(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["models", "--config", str(_config(tmp_path, {"double": SCRIPTED}))])
    assert result.exit_code == 0, result.output
    assert "loads=True" in result.output


def test_a_missing_file_and_a_wrong_served_model_exit_non_zero_with_each_ones_reason(tmp_path: Path) -> None:
    own = {"path": str(tmp_path / "absent.gguf"), "sha256": "0" * 64}
    gguf = {"backend": "llamacpp", "params_b": 0.1, "instruct": True, "weights": own}
    with serve("ok") as server:
        served = {
            "backend": "openai", "params_b": 0.5, "instruct": True, "base_url": f"{server.url}/v1",
            "served_model": "qwen-typo",
        }  # fmt: skip
        config = _config(tmp_path, {"double": SCRIPTED, "mine": gguf, "server": served})
        result = CliRunner().invoke(main, ["models", "--config", str(config)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("mine "))) + 1] == (
        f"    {tmp_path / 'absent.gguf'} (weights.path in config.yaml) is missing or not a file"
    )
    reason = lines[lines.index(next(x for x in lines if x.startswith("server "))) + 1]
    assert reason.startswith(f"    openai server {server.url}/v1 does not serve 'qwen-typo' (model server)")
    assert reason.endswith(f"it serves: {SERVED_MODEL}")
    assert (
        lines[-1]
        == "Error: 2 of 3 configured model(s) cannot run: mine, server (the reason of each is above)"
    )


def test_a_dead_server_is_a_reason_too(tmp_path: Path) -> None:
    with serve("refuse") as dead:
        served = {
            "backend": "openai", "params_b": 0.5, "instruct": True, "base_url": f"{dead.url}/v1",
            "served_model": SERVED_MODEL, "timeout_s": 2,
        }  # fmt: skip
        result = CliRunner().invoke(main, ["models", "--config", str(_config(tmp_path, {"server": served}))])
    assert result.exit_code == 1
    assert "openai server not answering for server" in result.output


def test_a_malformed_config_is_one_line(tmp_path: Path) -> None:
    path = _config(tmp_path, {"my model": SCRIPTED})
    result = CliRunner().invoke(main, ["models", "--config", str(path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {path}: models: 'my model' cannot name a model (it names files, folders and shell words): use"
        " letters and digits with single '.', '_' or '-' between them, e.g. 'my-model-7b'"
    ]
