"""Tests for slmbench.tasks.paraphrases: every capability task has three paraphrases, and bad files fail in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from slmbench.tasks.loader import TaskFileError, load_suite
from slmbench.tasks.paraphrases import (
    PARAPHRASE_COUNT,
    PARAPHRASED_SUITE,
    load_paraphrases,
    paraphrase_files,
    paraphrase_index,
    paraphrases,
)

TASKS = {task.id: task for task in load_suite(PARAPHRASED_SUITE)}
GOOD: dict[str, Any] = {
    "task": "IR-1",
    "paraphrases": [
        "Search the web for Lake Varnholm's maximum depth in metres.",
        "In metres, how deep is Lake Varnholm at its deepest? Use web search.",
        "Lake Varnholm max depth (m)? Search the web.",
    ],
}

TWO = GOOD["paraphrases"][:2]


def write(tmp_path: Path, data: Any, stem: str = "IR-1") -> Path:
    path = tmp_path / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def error_for(tmp_path: Path, data: Any, stem: str = "IR-1") -> TaskFileError:
    path = write(tmp_path, data, stem)
    with pytest.raises(TaskFileError) as info:
        load_paraphrases(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    return info.value


def test_every_capability_task_has_a_file_and_every_file_names_one() -> None:
    stems = {path.stem for path in paraphrase_files()}
    assert stems == set(TASKS)
    index = paraphrase_index()
    assert set(index) == set(TASKS)
    for task_id, texts in index.items():
        assert len(texts) == PARAPHRASE_COUNT == len(set(texts)), task_id
        assert TASKS[task_id].instruction not in texts, task_id
    assert paraphrases("DA-1") == index["DA-1"]


def test_a_task_without_paraphrases_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="REL-CON-1"):
        paraphrases("REL-CON-1")


def test_good_file_loads(tmp_path: Path) -> None:
    assert load_paraphrases(write(tmp_path, GOOD)).paraphrases == GOOD["paraphrases"]


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        ({"paraphrases": TWO}, "paraphrases", "exactly 3"),
        ({"paraphrases": [*GOOD["paraphrases"], "One more."]}, "paraphrases", "exactly 3"),
        ({"paraphrases": [*TWO, "  "]}, "paraphrases.2", "empty"),
        ({"paraphrases": [*TWO, TWO[0].upper()]}, "paraphrases.2", "repeats"),
        ({"paraphrases": [*TWO, TASKS["IR-1"].instruction]}, "paraphrases.2", "instruction"),
        ({"paraphrases": [*TWO, 7]}, "paraphrases.2", "string"),
        ({"paraphrases": "one string"}, "paraphrases", "list"),
        ({"review": "fine"}, "review", "not permitted"),
        ({"task": "IR-99"}, "task", "not a capability task"),
        ({"task": "REL-CON-1"}, "task", "not a capability task"),
        ({"task": "IR-2"}, "task", "file name stem"),
    ],
)
def test_bad_files_fail_in_one_line_naming_the_field(
    tmp_path: Path, change: dict[str, Any], field: str, problem: str
) -> None:
    err = error_for(tmp_path, {**GOOD, **change})
    assert err.field == field and problem in err.problem, err


def test_missing_field_and_non_mapping(tmp_path: Path) -> None:
    err = error_for(tmp_path, {"task": "IR-1"})
    assert err.field == "paraphrases" and "required" in err.problem.lower()
    assert error_for(tmp_path, ["IR-1"]).field == "<file>"
    path = tmp_path / "IR-1.yaml"
    path.write_text("task: IR-1\nparaphrases: [a\n", encoding="utf-8")
    with pytest.raises(TaskFileError) as info:
        load_paraphrases(path)
    assert info.value.field == "<yaml>" and "\n" not in str(info.value)
