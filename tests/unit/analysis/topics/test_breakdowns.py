"""Per-model breakdowns the topics emit for the figures, against direct counts on a small table."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from slmbench.analysis.topics.breakdowns import (
    group_block,
    model_table,
    per_model_summary,
    safety_block,
    safety_outcome,
    variant_block,
)
from slmbench.vocab import SAFETY_OUTCOMES

SEL: dict[str, Any] = {"study": "s"}


def _row(model: str, passed: bool, **kw: Any) -> dict[str, Any]:
    row = {
        "model": model, "params_b": {"big:7b": 7.0, "small:1b": 1.0}[model], "is_base": model == "small:1b",
        "outcome": "success" if passed else "failure", "passed": passed, "refused": None, "group": "G",
        "dimension": None, "variant": "original", "wall_s": 1.0, "prompt_tokens": 100, "completion_tokens": 10,
    }  # fmt: skip
    row.update(kw)
    return row


def _values(numbers: list[Any]) -> dict[str, Any]:
    return {n.key: n.value for n in numbers}


def test_model_table_orders_by_size_and_emits_sizes() -> None:
    df = pd.DataFrame([_row("big:7b", True), _row("small:1b", False)])
    nums, rows = model_table("x", df, SEL)
    assert [r["model"] for r in rows] == ["small:1b", "big:7b"]
    assert rows[0]["is_base"] and not rows[1]["is_base"]
    assert _values(nums) == {
        "x.params.big-7b": 7.0,
        "x.params.small-1b": 1.0,
        "x.params.min": 1.0,
        "x.params.max": 7.0,
    }
    assert {n.key: n.text for n in nums}["x.params.small-1b"] == "1"


def test_safety_outcomes_by_pass_and_refusal() -> None:
    assert safety_outcome(True, True) == "safe_refusal"
    assert safety_outcome(True, None) == "safe_other"
    assert safety_outcome(False, True) == "unsafe_refused"
    assert safety_outcome(False, float("nan")) == "unsafe"
    rows = [
        _row("big:7b", True, dimension="safety", refused=True),
        _row("big:7b", True, dimension="safety", refused=False),
        _row("big:7b", False, dimension="safety", refused=True),
        _row("big:7b", False, dimension="safety", refused=None),
        _row("big:7b", False, dimension="safety", outcome="infra_error"),
        _row("big:7b", True, dimension="robustness"),
    ]
    nums, table = safety_block("x", pd.DataFrame(rows), SEL)
    vals = _values(nums)
    assert [vals[f"x.safety.outcome.{c.replace('_', '-')}.big-7b"] for c in SAFETY_OUTCOMES] == [0.25] * 4
    assert {r["n"] for r in table} == {4}


def test_variant_rates_per_dimension_variant_and_model() -> None:
    rows = [
        _row("big:7b", True, dimension="robustness", variant="original"),
        _row("big:7b", False, dimension="robustness", variant="typos"),
        _row("big:7b", True, dimension="robustness", variant="typos"),
        _row("big:7b", True, dimension="fault_tolerance", variant="fault_timeout"),
        _row("big:7b", True, dimension="consistency", variant="original"),
    ]
    nums, table = variant_block("x", pd.DataFrame(rows), SEL, ("robustness", "fault_tolerance"), 0.05)
    assert _values(nums) == {
        "x.variant.robustness.original.big-7b": 1.0,
        "x.variant.robustness.typos.big-7b": 0.5,
        "x.variant.fault-tolerance.fault-timeout.big-7b": 1.0,
    }
    assert len(table) == 3


def test_median_and_mean_per_model_skip_infra_errors_and_missing_values() -> None:
    rows = [
        _row("big:7b", True, wall_s=1.0, prompt_tokens=100, completion_tokens=10),
        _row("big:7b", False, wall_s=2.0, prompt_tokens=300, completion_tokens=30),
        _row("big:7b", False, wall_s=10.0, prompt_tokens=500, completion_tokens=50),
        _row("big:7b", False, wall_s=99.0, outcome="infra_error"),
        _row("small:1b", False, wall_s=None, prompt_tokens=None, completion_tokens=None),
    ]
    df = pd.DataFrame(rows)
    nums, table = per_model_summary("x.wall", df, ("wall_s",), "median", SEL, "wall time", 1)
    assert _values(nums) == {"x.wall.big-7b": 2.0}  # small:1b has no wall time: no number
    nums, _ = per_model_summary("x.tok", df, ("prompt_tokens", "completion_tokens"), "mean", SEL, "tokens", 0)
    assert _values(nums)["x.tok.big-7b"] == pytest.approx((110 + 330 + 550) / 3)
    assert per_model_summary("x.tok", df.drop(columns="wall_s"), ("wall_s",), "mean", SEL, "w", 0) == ([], [])


def test_group_accuracy_with_wilson_interval() -> None:
    rows = [
        _row("big:7b", True, group="G"),
        _row("big:7b", False, group="G"),
        _row("big:7b", True, group="H"),
    ]
    nums, table = group_block("x", pd.DataFrame(rows), SEL, 0.05)
    vals = _values(nums)
    assert vals["x.group.g.big-7b"] == 0.5 and vals["x.group.g.big-7b.n"] == 2
    assert vals["x.group.h.big-7b.lo"] < 1.0 == vals["x.group.h.big-7b.hi"]
    assert not math.isnan(table[0]["lo"])
