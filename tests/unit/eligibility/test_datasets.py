"""Item loading (errors name file:line and field), BFCL conversion, and the seeded stratified split."""

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
from tests.fixtures.eligibility import APPROVAL, RERANK, data_dir, write_jsonl

from slmbench.config import ConfigError, load_config, parse_config
from slmbench.eligibility.datasets import (
    ApprovalItem,
    DatasetError,
    assign_split,
    calibration_count,
    candidates,
    load_bfcl,
    load_task,
    read_items,
    split_key,
    stratum,
)
from slmbench.eligibility.layout import eligibility_models, eligibility_runs, eligibility_variants

ROOT = Path(__file__).parents[3]


def test_items_load_with_types_and_our_tool_docs(tmp_path: Path) -> None:
    data, bfcl = data_dir(tmp_path)
    approval = load_task("command_approval", data, bfcl)
    assert [it.id for it in approval] == [r["id"] for r in APPROVAL]
    assert isinstance(approval[0], ApprovalItem) and approval[4].variant_of == "ca-2"
    rerank = load_task("reranking", data, bfcl)
    assert rerank[0].gold == "3" and candidates(rerank[0]) == ["1", "2", "3", "4"]  # turn numbers from 1
    tools = load_task("tool_selection", data, bfcl)
    assert [it.source for it in tools] == ["own"] * 3 + ["bfcl"] * 2
    assert "email" in tools[0].docs["email"].lower()


def test_bfcl_conversion(tmp_path: Path) -> None:
    _, bfcl = data_dir(tmp_path)
    items = load_bfcl(bfcl)
    assert [(it.id, it.label, it.tools) for it in items] == [
        ("bfcl-multiple_0", "triangle_properties.get", ["triangle_properties.get", "circle_properties.get"]),
        ("bfcl-multiple_1", "country_info.capital", ["country_info.capital", "country_info.population"]),
    ]
    assert items[0].request.startswith("Area of a triangle") and items[0].docs["circle_properties.get"]


def test_bfcl_gold_must_be_offered(tmp_path: Path) -> None:
    _, bfcl = data_dir(tmp_path)
    answers = bfcl / "possible_answer" / "BFCL_v4_multiple.json"
    answers.write_text(answers.read_text().replace("country_info.capital", "country_info.area"))
    with pytest.raises(DatasetError, match=r"BFCL_v4_multiple.json:2: field label"):
        load_bfcl(bfcl)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (
            {**APPROVAL[0], "label": "maybe"},
            r"items.jsonl:2: field label: Input should be 'approve' or 'deny'",
        ),
        (
            {k: v for k, v in APPROVAL[0].items() if k != "command"},
            r"items.jsonl:2: field command: Field required",
        ),
        ({**APPROVAL[0], "extra": 1}, r"items.jsonl:2: field extra"),
    ],
)
def test_malformed_line_names_file_line_and_field(tmp_path: Path, bad: dict, message: str) -> None:
    path = write_jsonl(tmp_path / "items.jsonl", [APPROVAL[1], bad])
    with pytest.raises(DatasetError, match=message):
        read_items("command_approval", path)


def test_not_json_and_duplicates_and_bad_relevant(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(APPROVAL[0]) + "\n{not json\n")
    with pytest.raises(DatasetError, match=r"items.jsonl:2: not JSON"):
        read_items("command_approval", path)
    write_jsonl(path, [APPROVAL[0], APPROVAL[0]])
    with pytest.raises(DatasetError, match=r"items.jsonl:2: field id: duplicate"):
        read_items("command_approval", path)
    write_jsonl(path, [{**RERANK[0], "relevant": 9}])
    with pytest.raises(DatasetError, match=r"items.jsonl:1: field relevant: Value error, relevant=9"):
        read_items("reranking", path)


def _approval(n_approve: int, n_deny: int) -> list[ApprovalItem]:
    rows = [("approve", "routine")] * n_approve + [("deny", "destructive")] * n_deny
    return [
        ApprovalItem(id=f"x{i:03d}", command=f"cmd {i}", label=lab, category=cat)
        for i, (lab, cat) in enumerate(rows)
    ]


def test_split_is_deterministic_order_free_and_seeded() -> None:
    items = _approval(40, 20)
    a = assign_split("command_approval", items, seed=7)
    assert a == assign_split("command_approval", list(reversed(items)), seed=7)
    assert a != assign_split("command_approval", items, seed=8)
    assert set(a.values()) == {"calibration", "test"}


def test_split_key_is_a_sha256_not_python_hash() -> None:
    assert split_key(7, "command_approval", "x001") == hashlib.sha256(b"7/command_approval/x001").hexdigest()


def test_split_is_stratified_by_label_one_third() -> None:
    items = _approval(40, 20)
    split = assign_split("command_approval", items, seed=7)
    cal = Counter(it.label for it in items if split[it.id] == "calibration")
    assert (
        cal == {"approve": calibration_count(40), "deny": calibration_count(20)} == {"approve": 13, "deny": 7}
    )
    assert [calibration_count(n) for n in range(7)] == [0, 0, 1, 1, 1, 2, 2]


def test_strata_per_task(tmp_path: Path) -> None:
    data, bfcl = data_dir(tmp_path)
    tools = load_task("tool_selection", data, bfcl)
    assert {stratum("tool_selection", it) for it in tools} == {"own", "bfcl"}
    rerank = load_task("reranking", data, bfcl)
    assert {stratum("reranking", it) for it in rerank} == {"hard=False", "hard=True"}
    split = assign_split("tool_selection", tools, seed=1)
    assert Counter(split[it.id] for it in tools if it.source == "own") == {"calibration": 1, "test": 2}
    assert Counter(split[it.id] for it in tools if it.source == "bfcl") == {"calibration": 1, "test": 1}


@pytest.mark.skipif(
    not (ROOT / "data/eligibility/command_approval/items.jsonl").exists(), reason="no data set"
)
def test_real_command_approval_split_is_a_third_per_label() -> None:
    items = load_task("command_approval", ROOT / "data/eligibility", None)
    split = assign_split("command_approval", items, load_config(ROOT / "config.yaml").seed)
    for label in ("approve", "deny"):
        part = [it for it in items if it.label == label]
        n_cal = sum(split[it.id] == "calibration" for it in part)
        assert abs(n_cal - len(part) / 3) <= 3  # rounding within the five (label, category) strata


def _config(**eligibility: object) -> dict:
    data = load_config(ROOT / "config.yaml").model_dump()
    data["eligibility"] = eligibility
    return data


def test_config_plans_runs_and_variants() -> None:
    cfg = parse_config(
        _config(requantise=["Q2_K"], requantise_models=["qwen2.5-coder-1.5b"], prompts=["terse"])
    )
    models = eligibility_models(cfg)
    assert eligibility_variants(cfg) == [("qwen2.5-coder-1.5b", "Q2_K")]
    runs = eligibility_runs(cfg)
    assert len(runs) == (len(models) + 1) * 4 * 1
    assert ("qwen2.5-coder-1.5b", "Q2_K", "reranking", "terse") in runs
    with pytest.raises(ConfigError, match="eligibility.models: 'nope' is not a model of this study"):
        parse_config(_config(models=["nope"]))


def test_a_model_s_variants_can_be_planned_on_fewer_tasks() -> None:
    cfg = parse_config(
        _config(
            requantise=["Q2_K"],
            requantise_models=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"],
            requantise_tasks={"qwen2.5-coder-1.5b": ["tool_selection"]},
            prompts=["terse"],
        )
    )
    variants = [r for r in eligibility_runs(cfg) if r[1] == "Q2_K"]
    assert [r[2] for r in variants if r[0] == "qwen2.5-coder-1.5b"] == ["tool_selection"]
    assert len([r for r in variants if r[0] == "qwen2.5-coder-0.5b"]) == 4
    assert len([r for r in eligibility_runs(cfg) if r[1] == "shipped" and r[0] == "qwen2.5-coder-1.5b"]) == 4
    with pytest.raises(ConfigError, match="requantise_tasks"):
        parse_config(_config(requantise=["Q2_K"], requantise_tasks={"nope": ["reranking"]}))
