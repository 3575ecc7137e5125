"""Topic ``external`` on the real imported study."""

from pathlib import Path

import pytest

from slmbench.analysis.topics import get_topic
from slmbench.importers.karmacharya2026 import import_study, import_summary

ROOT = Path(__file__).resolve().parents[4] / "data" / "external" / "karmacharya2026"


@pytest.fixture(scope="module")
def numbers() -> dict[str, object]:
    params = {"bootstrap_seed": 5, "n_boot": 40, "summary": import_summary(ROOT).to_dict("records")}
    res = get_topic("external")(import_study(ROOT), None, params)
    return {n.key: n.value for n in res.numbers}


def test_counts_and_accuracy(numbers: dict[str, object]) -> None:
    assert numbers["ext.n.models"] == 9 and numbers["ext.n.tasks"] == 31
    for model in ("qwen2-5-7b", "gemma2-9b", "llama3-2-1b", "deepseek-r1-7b"):
        assert numbers[f"ext.acc.{model}.n"] == 31
    assert numbers["ext.acc.qwen2-5-7b.k"] == 21 and numbers["ext.acc.deepseek-r1-7b.k"] == 8


def test_no_top_model_on_a_tie_and_pairwise_tests(numbers: dict[str, object]) -> None:
    # qwen2.5:7b and qwen2.5-coder:7b both solve 21 of 31: no model is named as ahead
    assert numbers["ext.top"] == "none" and numbers["ext.top.gap"] == 0
    assert "share the top accuracy" in str(numbers["ext.phrase.top"])
    assert numbers["ext.pair.qwen2-5-coder-7b.qwen2-5-7b.p"] == pytest.approx(1.0)
    assert numbers["ext.pairs.n-tests"] == 36  # nine models, every pair
    assert (
        numbers["ext.pair.deepseek-r1-7b.qwen2-5-7b.padj"] >= numbers["ext.pair.deepseek-r1-7b.qwen2-5-7b.p"]
    )  # type: ignore[operator]
    assert numbers["ext.boot.n-clusters"] == 9 and numbers["ext.boot.n-valid"] == 40


def test_reliability_and_composite(numbers: dict[str, object]) -> None:
    assert numbers["ext.rel.robustness.qwen2-5-7b"] == pytest.approx(0.7)
    assert numbers["ext.rel.composite.qwen2-5-coder-7b"] == pytest.approx(0.85)
    assert all(numbers[k] == "yes" for k in numbers if k.startswith("ext.rel.composite-check."))
    assert numbers["ext.rel.consistency.llama3-1-8b"] == "n/a" and numbers["ext.rel.n-missing"] == 1
    assert numbers["ext.rob.flips-down.qwen2-5-7b"] == 1 and numbers["ext.rob.flips-up.qwen2-5-7b"] == 3


def test_temperature_sweep(numbers: dict[str, object]) -> None:
    assert numbers["ext.temp.n.temperatures"] == 4 and numbers["ext.temp.n.models"] == 9
    assert numbers["ext.temp.acc.qwen2-5-7b.t07.n"] == 14
    assert numbers["ext.temp.diff.qwen2-5-7b.t07.n-tasks"] == 14
    assert "ext.temp.diff.mistral-7b.t10" not in numbers  # no T=1.0 file for mistral


def test_the_sweep_is_described_as_the_raw_data_hold_it(numbers: dict[str, object]) -> None:
    """Three models were swept (mistral at 0.3 and 0.7 only) over 14 tasks, not nine models at four temperatures."""
    assert numbers["ext.temp.n.models-swept"] == 3 and numbers["ext.temp.n.tasks-swept"] == 14
    assert "mistral:7b at 0, 0.3 and 0.7;" in str(numbers["ext.temp.phrase.swept"])
