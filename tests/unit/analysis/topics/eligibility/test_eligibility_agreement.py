"""The independent labelling pass in the topic: Cohen's kappa and agreeing items as it came and after the
recorded resolutions, checked against kappa computed here from its definition on the files themselves."""

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.fixtures.eligibility import write_jsonl

from slmbench.analysis.topics.eligibility import (
    EligibilityInputError,
    compute,
    load_inputs,
)

DATA = Path("data/eligibility")
LABEL = {
    "command_approval": "label",
    "memory_write": "label",
    "reranking": "relevant",
    "tool_selection": "label",
}


def _kappa(a: list[str], b: list[str]) -> float:
    """Cohen's kappa from its definition: (p_o - p_e) / (1 - p_e)."""
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    p_e = sum(ca[c] * cb[c] for c in set(a) | set(b)) / n**2
    return (p_o - p_e) / (1 - p_e)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _passes(task: str) -> tuple[dict[str, dict], dict[str, dict], dict[str, dict]]:
    """The first labels (resolutions undone), the labels after resolution and the independent pass, by id."""
    folder = DATA / task / "independent"
    items = {row["id"]: row for row in _rows(DATA / task / "items.jsonl")}
    res = _rows(folder / "resolution.jsonl") if (folder / "resolution.jsonl").exists() else []
    first = {i: {**row, **next((r["first"] for r in res if r["id"] == i), {})} for i, row in items.items()}
    after = {i: {**row, **next((r["resolved"] for r in res if r["id"] == i), {})} for i, row in first.items()}
    key = {row["item"]: row["id"] for row in _rows(folder / "codes.jsonl")}
    independent = {key[row["item"]]: row for row in _rows(folder / "labels.jsonl")}
    return first, after, independent


@pytest.fixture(scope="module")
def committed() -> dict:
    paths = [str(DATA / task / "independent" / "labels.jsonl") for task in LABEL]
    inputs, read = load_inputs({"independent": paths})
    res = compute(inputs, {})
    return {"numbers": {n.key: n for n in res.numbers}, "read": read["input_sha256"]}


@pytest.mark.parametrize("task", list(LABEL))
def test_kappa_of_the_committed_pass_as_it_came_and_after_resolution(committed: dict, task: str) -> None:
    n = committed["numbers"]
    first, after, independent = _passes(task)
    ids = list(first)
    key = f"elig.kappa.{task.replace('_', '-')}"
    for stage, mine in (("as-came", first), ("after-resolution", after)):
        for part, field in (("label", LABEL[task]), ("category", "category")):
            if field not in independent[ids[0]]:
                assert f"{key}.{part}.{stage}" not in n
                continue
            a = [str(mine[i][field]) for i in ids]
            b = [str(independent[i][field]) for i in ids]
            agree = sum(x == y for x, y in zip(a, b, strict=True))
            assert (n[f"{key}.{part}.{stage}.n"].value, n[f"{key}.{part}.{stage}.agree"].value) == (
                len(ids),
                agree,
            )
            if len(set(a) | set(b)) > 1:
                assert n[f"{key}.{part}.{stage}"].value == pytest.approx(_kappa(a, b))
    assert n[f"elig.phrase.kappa.{task.replace('_', '-')}"].value == n[f"{key}.label.as-came"].value
    assert str(DATA / task / "independent" / "codes.jsonl") in committed["read"]


def test_the_memory_write_resolutions_that_took_the_independent_reading_count_as_agreement(
    committed: dict,
) -> None:
    n = committed["numbers"]
    resolutions = _rows(DATA / "memory_write" / "independent" / "resolution.jsonl")
    taken = sum(r["resolved"] == r["independent"] for r in resolutions)
    came = n["elig.kappa.memory-write.category.as-came.agree"].value
    assert taken > 0 and n["elig.kappa.memory-write.category.after-resolution.agree"].value == came + taken
    assert n["elig.kappa.memory-write.n.resolved"].value == len(resolutions)
    assert n["elig.kappa.memory-write.n.changed"].value == sum(
        r["resolved"] != r["first"] for r in resolutions
    )


def test_no_number_reads_the_earlier_second_pass(committed: dict) -> None:
    assert not any("labels_second_pass" in path for path in committed["read"])
    assert not any("labels_second_pass" in str(x.provenance) for x in committed["numbers"].values())
    assert not any(k.endswith((".kappa", ".kappa.n", ".kappa.disagree")) for k in committed["numbers"])


LABELS = [(f"t{i:02d}", "approve" if i < 10 else "deny") for i in range(20)]


def _synthetic(root: Path) -> Path:
    """Command approval, 20 items; the independent pass denies t00 and t01 (approve in the first labels) and
    puts t19 in another category; the resolution takes the independent reading of t00 and keeps t01."""
    task = root / "command_approval"
    write_jsonl(task / "items.jsonl", [{"id": i, "label": lab, "category": lab[0]} for i, lab in LABELS])
    write_jsonl(task / "independent" / "codes.jsonl", [{"item": f"x{i}", "id": i} for i, _ in LABELS])
    independent = [
        {
            "item": f"x{i}",
            "label": "deny" if i in ("t00", "t01") else lab,
            "category": "z" if i == "t19" else lab[0],
        }
        for i, lab in LABELS
    ]
    write_jsonl(task / "independent" / "labels.jsonl", independent)
    resolution = [
        {"id": "t00", "first": {"label": "approve"}, "independent": {"label": "deny"}, "resolved": {"label": "deny"}, "reason": "r"},
        {"id": "t01", "first": {"label": "approve"}, "independent": {"label": "deny"}, "resolved": {"label": "approve"}, "reason": "r"},
    ]  # fmt: skip
    write_jsonl(task / "independent" / "resolution.jsonl", resolution)
    return task / "independent" / "labels.jsonl"


def test_a_resolution_that_changes_a_label_changes_the_kappa_after_resolution(tmp_path: Path) -> None:
    inputs, read = load_inputs({"independent": [str(_synthetic(tmp_path))]})
    n = {x.key: x for x in compute(inputs, {}).numbers}
    k = "elig.kappa.command-approval"
    came = ["deny" if i in ("t00", "t01") else lab for i, lab in LABELS]
    first = [lab for _, lab in LABELS]
    after = ["deny" if i == "t00" else lab for i, lab in LABELS]
    assert n[f"{k}.label.as-came"].value == pytest.approx(_kappa(first, came))  # 0.8: 18 of 20, p_e = 0.5
    assert n[f"{k}.label.after-resolution"].value == pytest.approx(_kappa(after, came))
    assert (n[f"{k}.label.as-came.agree"].value, n[f"{k}.label.after-resolution.agree"].value) == (18, 19)
    assert (n[f"{k}.category.as-came.agree"].value, n[f"{k}.category.after-resolution.agree"].value) == (
        19,
        19,
    )
    assert (n[f"{k}.in.a.as-came.n"].value, n[f"{k}.in.a.as-came.agree"].value) == (10, 8)
    assert (n[f"{k}.n.resolved"].value, n[f"{k}.n.changed"].value) == (2, 1)
    assert n["elig.phrase.kappa.command-approval"].text == "$\\kappa = 0.80$ over 20 items"
    assert n["elig.phrase.kappa.reranking"].text == "not yet measured (independent pass pending)"
    assert str(tmp_path / "command_approval" / "independent" / "resolution.jsonl") in read["input_sha256"]


def test_a_file_that_is_no_independent_pass_is_refused(tmp_path: Path) -> None:
    stray = write_jsonl(
        tmp_path / "command_approval" / "labels_second_pass.jsonl", [{"id": "t00", "label": "deny"}]
    )
    with pytest.raises(EligibilityInputError, match="labels_second_pass.jsonl: not an independent pass"):
        load_inputs({"independent": [str(stray)]})
