"""Cohen's kappa of a second labelling pass, against hand-computed values, and the disagreement list."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.fixtures.eligibility import write_jsonl

from slmbench.cli import main
from slmbench.eligibility.kappa import LabelFileError, cohen_kappa, compare, read_labels


def test_kappa_hand_computed() -> None:
    # table [[4, 1], [2, 3]]: p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.2 / 0.5 = 0.4
    first = ["a"] * 5 + ["b"] * 5
    second = ["a", "a", "a", "a", "b", "a", "a", "b", "b", "b"]
    assert cohen_kappa(first, second) == pytest.approx(0.4)
    assert cohen_kappa(first, first) == pytest.approx(1.0)


def test_kappa_three_categories_hand_computed() -> None:
    # 6 items, agree on 4: p_o = 4/6; marginals first (2, 2, 2), second (3, 2, 1): p_e = (6 + 4 + 2) / 36 = 1/3
    first = ["x", "x", "y", "y", "z", "z"]
    second = ["x", "x", "y", "y", "x", "y"]
    assert cohen_kappa(first, second) == pytest.approx((4 / 6 - 1 / 3) / (1 - 1 / 3))


def test_compare_lists_disagreements_and_checks_ids(tmp_path: Path) -> None:
    a = read_labels(
        write_jsonl(tmp_path / "a.jsonl", [{"id": "1", "label": "save"}, {"id": "2", "label": "skip"}])
    )
    b = read_labels(
        write_jsonl(tmp_path / "b.jsonl", [{"id": "2", "label": "save"}, {"id": "1", "label": "save"}])
    )
    result = compare(a, b)
    assert (result.n, result.agree) == (2, 1)
    assert result.disagreements == [{"id": "2", "first": "skip", "second": "save"}]
    with pytest.raises(LabelFileError, match="1 only in the first"):
        compare(a, {"1": "save"})


def test_reranking_labels_use_relevant(tmp_path: Path) -> None:
    labels = read_labels(write_jsonl(tmp_path / "r.jsonl", [{"id": "r1", "query": "q", "relevant": 3}]))
    assert labels == {"r1": "3"}
    with pytest.raises(LabelFileError, match=r"r.jsonl:1: field id"):
        read_labels(write_jsonl(tmp_path / "r.jsonl", [{"query": "q"}]))


def test_kappa_cli(tmp_path: Path) -> None:
    first = write_jsonl(
        tmp_path / "items.jsonl", [{"id": str(i), "label": "a" if i < 5 else "b"} for i in range(10)]
    )
    second_labels = ["a", "a", "a", "a", "b", "a", "a", "b", "b", "b"]
    second = write_jsonl(
        tmp_path / "labels2.jsonl", [{"id": str(i), "label": lab} for i, lab in enumerate(second_labels)]
    )
    dis = tmp_path / "disagreements.jsonl"
    result = CliRunner().invoke(
        main,
        ["eligibility", "kappa", "--first", str(first), "--second", str(second), "--disagreements", str(dis)],
    )
    assert result.exit_code == 0, result.output
    assert "kappa 0.400 over 10 items (7 agree, 3 differ)" in result.output
    assert [json.loads(line)["id"] for line in dis.read_text().splitlines()] == ["4", "5", "6"]
