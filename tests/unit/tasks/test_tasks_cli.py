"""Tests for the ``slmbench tasks`` command group."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from slmbench.tasks.cli import tasks


def test_list_prints_one_line_per_task() -> None:
    result = CliRunner().invoke(tasks, ["list", "--suite", "reliability"])
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 14
    assert lines[0].split("\t") == ["REL-CON-1", "consistency", "easy", "knowledge_lookup,calculator"]


def test_list_rejects_unknown_suite() -> None:
    result = CliRunner().invoke(tasks, ["list", "--suite", "nope"])
    assert result.exit_code != 0 and "nope" in result.output


def test_validate_all_shipped_files() -> None:
    result = CliRunner().invoke(tasks, ["validate"])
    assert result.exit_code == 0
    assert "71/71 task files valid" in result.output
    assert "31/31 paraphrase files valid" in result.output


def test_validate_reports_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "IR-1.yaml"
    bad.write_text("id: IR-1\nsuite: capability\n", encoding="utf-8")
    result = CliRunner().invoke(tasks, ["validate", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}: group:" in result.output


def test_validate_solve_runs_the_reference_solutions() -> None:
    from slmbench.tasks.loader import DATA_DIR

    path = DATA_DIR / "capability" / "SCH-1.yaml"
    result = CliRunner().invoke(tasks, ["validate", "--solve", str(path)])
    assert result.exit_code == 0, result.output
