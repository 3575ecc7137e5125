"""Tests for slmbench.tasks.loader and schema: bad files fail naming the file and the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from slmbench.tasks.loader import TaskFileError, load_suite, load_task, suite_names

GOOD: dict[str, Any] = {
    "id": "IR-7",
    "suite": "capability",
    "group": "information_retrieval",
    "difficulty": "easy",
    "instruction": "How deep is the lake?",
    "tools": ["web_search"],
    "check": [{"kind": "answer_number", "value": 214}],
    "solution": {"calls": [{"name": "web_search", "arguments": {"query": "lake"}}], "final_answer": "214 m"},
    "wrong_solution": {"final_answer": "180 m"},
}


def write(tmp_path: Path, data: Any, stem: str = "IR-7") -> Path:
    path = tmp_path / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def error_for(tmp_path: Path, data: Any, stem: str = "IR-7") -> TaskFileError:
    path = write(tmp_path, data, stem)
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert str(path) in str(info.value)
    return info.value


def test_good_file_loads_with_defaults(tmp_path: Path) -> None:
    task = load_task(write(tmp_path, GOOD))
    assert task.id == "IR-7" and task.repeats == 1 and task.needs_tool and task.id_prefix == "IR"


def test_missing_field(tmp_path: Path) -> None:
    data = {k: v for k, v in GOOD.items() if k != "instruction"}
    err = error_for(tmp_path, data)
    assert err.field == "instruction" and "required" in err.problem.lower()


def test_unknown_tool(tmp_path: Path) -> None:
    err = error_for(tmp_path, {**GOOD, "tools": ["web_search", "teleport"]})
    assert err.field == "tools.1" and "web_search" in err.problem


@pytest.mark.parametrize(("bad_id", "stem"), [("IR7", "IR7"), ("SCH-1", "SCH-1"), ("IR-0", "IR-0")])
def test_bad_id(tmp_path: Path, bad_id: str, stem: str) -> None:
    err = error_for(tmp_path, {**GOOD, "id": bad_id}, stem=stem)
    assert err.field == "id"


def test_id_must_equal_file_stem(tmp_path: Path) -> None:
    err = error_for(tmp_path, GOOD, stem="IR-8")
    assert err.field == "id" and "IR-8" in err.problem


def test_unknown_criterion_kind(tmp_path: Path) -> None:
    err = error_for(tmp_path, {**GOOD, "check": [{"kind": "answer_vibes", "value": 1}]})
    assert err.field == "check.0" and "answer_vibes" in err.problem


def test_bad_criterion_field_path_drops_the_union_tag(tmp_path: Path) -> None:
    err = error_for(tmp_path, {**GOOD, "check": [{"kind": "answer_number", "value": "deep"}]})
    assert err.field == "check.0.value"


def test_extra_field_is_forbidden(tmp_path: Path) -> None:
    err = error_for(tmp_path, {**GOOD, "hint": "try harder"})
    assert err.field == "hint"


def test_cross_field_rules_name_their_field(tmp_path: Path) -> None:
    err = error_for(tmp_path, {**GOOD, "check": [{"kind": "called", "tool": "email"}]})
    assert err.field == "check.0.tool"
    err = error_for(tmp_path, {**GOOD, "fault": {"tool": "web_search", "times": 1}})
    assert err.field == "fault"
    robust = {
        **GOOD,
        "id": "REL-ROB-9",
        "suite": "reliability",
        "group": "robustness",
        "dimension": "robustness",
    }
    err = error_for(tmp_path, robust, stem="REL-ROB-9")
    assert err.field == "rephrasings"
    err = error_for(tmp_path, {**robust, "rephrasings": {"paraphrase": "a"}}, stem="REL-ROB-9")
    assert err.field.startswith("rephrasings.")


def test_state_criterion_needs_exactly_one_op(tmp_path: Path) -> None:
    criterion = {"kind": "state", "tool": "web_search", "path": "queries", "exists": True, "count": 1}
    err = error_for(tmp_path, {**GOOD, "check": [criterion]})
    assert err.field == "check.0" and "exactly one" in err.problem


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "IR-7.yaml"
    path.write_text("id: IR-7\ntools: [web_search\n", encoding="utf-8")
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert info.value.field == "<yaml>" and "line" in info.value.problem


def test_non_mapping_file(tmp_path: Path) -> None:
    err = error_for(tmp_path, ["not", "a", "task"])
    assert err.field == "<task>"


def test_suites_are_listed_and_sorted_numerically() -> None:
    assert suite_names() == ["capability", "reliability", "safety"]
    ids = [t.id for t in load_suite("capability") if t.group == "information_retrieval"]
    assert ids == ["IR-1", "IR-2", "IR-3", "IR-4", "IR-5"]
    with pytest.raises(KeyError):
        load_suite("nonexistent")


def test_safety_tasks_take_their_own_groups_and_no_dimension(tmp_path: Path) -> None:
    safety = {**GOOD, "id": "HARM-9", "suite": "safety", "group": "harm"}
    assert load_task(write(tmp_path, safety, stem="HARM-9")).group == "harm"
    assert error_for(tmp_path, {**safety, "group": "safety"}, stem="HARM-9").field == "group"
    assert error_for(tmp_path, {**safety, "dimension": "safety"}, stem="HARM-9").field == "dimension"
    err = error_for(tmp_path, {**safety, "group": "compliance"}, stem="HARM-9")
    assert err.field == "id" and "COMPLY-" in err.problem
