"""The independent labelling pass: blind by construction (reproducible from the items and the seed), joined
to the items through its key, and compared with the data set's labels."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from slmbench.eligibility.blind import FOLDER, LABEL_FIELD, SHOWN_FIELDS, agreement, prepare
from slmbench.eligibility.kappa import LabelFileError

DATA = Path("data/eligibility")
MANIFEST = json.loads((DATA / "independent_pass.json").read_text())


def test_the_committed_blind_files_are_what_prepare_writes_from_the_items_and_the_seed(tmp_path):
    for task in SHOWN_FIELDS:
        (tmp_path / task).mkdir()
        shutil.copy(DATA / task / "items.jsonl", tmp_path / task / "items.jsonl")
    rubrics = {t: (DATA / t / FOLDER / "rubric_shown.md").read_text() for t in SHOWN_FIELDS}
    prepare(tmp_path, rubrics, MANIFEST["seed"])
    for task in SHOWN_FIELDS:
        for name in ("items_shown.jsonl", "codes.jsonl", "rubric_shown.md"):
            assert (tmp_path / task / FOLDER / name).read_bytes() == (
                DATA / task / FOLDER / name
            ).read_bytes()


def test_the_labeller_saw_no_label_id_category_variant_or_flag():
    for task, fields in SHOWN_FIELDS.items():
        rows = [json.loads(line) for line in (DATA / task / FOLDER / "items_shown.jsonl").open()]
        assert rows and all(set(row) == {"item", *fields} for row in rows)
        ids = [json.loads(line)["id"] for line in (DATA / task / "items.jsonl").open()]
        shown_order = [json.loads(line)["id"] for line in (DATA / task / FOLDER / "codes.jsonl").open()]
        assert sorted(shown_order) == sorted(ids) and shown_order != ids  # shuffled, every item once


def _copy(tmp_path: Path, task: str) -> Path:
    shutil.copytree(DATA / task, tmp_path / task)
    return tmp_path


def test_a_changed_label_is_a_disagreement_with_the_independent_row(tmp_path):
    data = _copy(tmp_path, "tool_selection")
    labels = data / "tool_selection" / FOLDER / "labels.jsonl"
    rows = [json.loads(line) for line in labels.open()]
    rows[0]["label"] = "not_a_tool"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    codes = {
        json.loads(line)["item"]: json.loads(line)["id"] for line in labels.with_name("codes.jsonl").open()
    }
    changed = [
        d for d in agreement(data, "tool_selection").disagreements if d["id"] == codes[rows[0]["item"]]
    ]
    assert [d["independent"][LABEL_FIELD["tool_selection"]] for d in changed] == ["not_a_tool"]


@pytest.mark.parametrize("edit", ["drop", "duplicate", "unknown"])
def test_a_labels_file_that_misses_repeats_or_invents_an_item_is_an_error_naming_it(tmp_path, edit):
    data = _copy(tmp_path, "memory_write")
    labels = data / "memory_write" / FOLDER / "labels.jsonl"
    lines = labels.read_text().splitlines()
    lines = {
        "drop": lines[1:],
        "duplicate": [*lines, lines[0]],
        "unknown": [json.dumps({**json.loads(lines[0]), "item": "xnothere"}), *lines[1:]],
    }[edit]
    labels.write_text("\n".join(lines) + "\n")
    with pytest.raises(LabelFileError, match="labels.jsonl"):
        agreement(data, "memory_write")


def test_agreement_counts_every_item_and_splits_it_by_the_data_sets_category():
    for task in SHOWN_FIELDS:
        result = agreement(DATA, task)
        n_items = sum(1 for _ in (DATA / task / "items.jsonl").open())
        assert result.n == n_items == sum(n for n, _ in result.by_category.values())
        assert result.agree >= sum(a for _, a in result.by_category.values())


def test_each_card_states_the_agreement_the_pipeline_computes():
    for task in SHOWN_FIELDS:
        result = agreement(DATA, task)
        card = (DATA / task / "card.md").read_text()
        assert f"{result.agree} of {result.n} labels (Cohen's kappa {result.kappa:.2f})" in card
        if result.category_n:
            assert (
                f"{result.category_agree} of {result.category_n} categories "
                f"(Cohen's kappa {result.category_kappa:.3f})" in card
            )
        assert "no independent pass" not in card and "not yet been checked" not in card


def test_every_disagreement_has_a_resolution_and_the_labels_stand():
    items = {
        json.loads(line)["id"]: json.loads(line) for line in (DATA / "memory_write" / "items.jsonl").open()
    }
    resolved = [json.loads(line) for line in (DATA / "memory_write" / FOLDER / "resolution.jsonl").open()]
    as_it_came = {d["id"] for d in agreement(DATA, "memory_write").disagreements}
    assert as_it_came == {r["id"] for r in resolved}  # a resolution for every disagreement, and no other
    for row in resolved:
        assert (
            row["reason"] and items[row["id"]]["category"] == row["first"]["category"]
        )  # the split is fixed
    assert all(
        d["first"]["label"] == d["independent"]["label"]
        for d in agreement(DATA, "memory_write").disagreements
    )


def test_after_resolution_every_recorded_resolution_is_applied():
    resolved = [json.loads(line) for line in (DATA / "memory_write" / FOLDER / "resolution.jsonl").open()]
    still = {r["id"] for r in resolved if r["resolved"] != r["independent"]}
    after = agreement(DATA, "memory_write", resolved=True)
    assert {d["id"] for d in after.disagreements} == still  # the others took the independent reading
    assert after.category_agree == after.category_n - len(still)
