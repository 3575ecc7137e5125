"""``slmbench init DIR``: a study folder with a config.yaml of what every study needs (and nothing of the shipped
study's optional parts), the Snakemake deployment that runs the workflow there, and the next three commands."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from slmbench.cli import main
from slmbench.config import ConfigError, parse_config
from slmbench.study import next_commands, write_study
from slmbench.study.folder import FILES, WORKFLOW

SCRIPTED = {"backend": "scripted", "params_b": 0.1, "instruct": True, "outputs": ["OK"]}


def test_init_writes_the_config_the_workflow_and_its_profile_and_prints_the_next_commands(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "my study"
    result = CliRunner().invoke(main, ["init", str(folder)])
    assert result.exit_code == 0, result.output
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == sorted(FILES)
    lines = result.output.splitlines()
    assert lines[1].endswith(f"then run in that folder (cd '{folder.resolve()}'):")
    assert [line.strip() for line in lines[2:]] == next_commands(folder.resolve())
    assert [c.split()[1:] for c in next_commands(folder)] == [
        ["models"],
        ["trials", "--cores", "2"],
        ["paper", "--cores", "2"],
    ]


def test_the_snakefile_uses_this_workflow_as_a_module_with_the_studys_config(tmp_path: Path) -> None:
    write_study(tmp_path)
    snakefile = (tmp_path / "workflow" / "Snakefile").read_text()
    assert (
        f'module slmbench:\n    snakefile:\n        "{WORKFLOW.resolve()}"\n    config:\n        config\n'
        in snakefile
    )
    assert 'configfile: "config.yaml"' in snakefile and "use rule * from slmbench" in snakefile
    assert "onerror:\n    report_failures(log)" in snakefile
    profile = yaml.safe_load((tmp_path / "workflow/profiles/default/config.yaml").read_text())
    assert profile == {"keep-going": True}


def test_the_config_holds_what_every_study_needs_and_no_optional_part(tmp_path: Path) -> None:
    write_study(tmp_path)
    text = (tmp_path / "config.yaml").read_text()
    data = yaml.safe_load(text)
    assert data["models"] is None  # only commented examples: the user writes the models
    with pytest.raises(ConfigError) as info:
        parse_config(data, "my/config.yaml")
    assert str(info.value) == (
        "my/config.yaml: models: no model is configured: add one under `models:` (docs/models.md shows an entry"
        " for each backend)"
    )
    config = parse_config({**data, "models": {"mine": SCRIPTED}})
    assert config.parts() == frozenset() and config.primary_build is None and config.protocol == "full"
    assert set(data) == {
        "schema_version", "models", "suites", "temperatures", "repeats", "scaffold", "parser_mode", "seed",
        "max_turns", "trial_budget_s", "max_tokens", "alpha", "bootstrap_resamples", "protocols", "protocol",
    }  # fmt: skip
    for backend in ("llamacpp", "ollama", "openai"):
        assert f"#   backend: {backend}\n" in text
    assert "# tasks: {capability: [" in text and "sha256: <64 hex digits>" in text


def test_each_commented_example_is_a_valid_model_once_uncommented(tmp_path: Path) -> None:
    write_study(tmp_path)
    text = (tmp_path / "config.yaml").read_text().replace("<64 hex digits>", "ab" * 32)
    uncommented = "\n".join(
        line.replace("  # ", "  ", 1) if line.startswith("  # ") and "backend" not in line[:3] else line
        for line in text.splitlines()
    )
    data = yaml.safe_load(uncommented)
    assert set(data["models"]) == {"my-gguf", "qwen2.5-7b", "my-server"}
    parse_config(data)


def test_a_folder_that_holds_a_study_is_left_alone(tmp_path: Path) -> None:
    write_study(tmp_path)
    (tmp_path / "config.yaml").write_text("mine")
    result = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert result.exit_code == 1
    assert (
        result.output
        == f"Error: {tmp_path / 'config.yaml'} exists: {tmp_path} holds a study already (nothing was written)\n"
    )
    assert (tmp_path / "config.yaml").read_text() == "mine"
