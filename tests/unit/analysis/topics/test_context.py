"""The context-cap comparison: which rows pair, overflow stops, memory per window, figure, table, ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from tests.fixtures.topic_io import numbers_by_key, write_topic

from slmbench.analysis.selection import count_mismatches
from slmbench.analysis.topics.common import primary_rows
from slmbench.analysis.topics.context import compute, other_rows
from slmbench.figures.registry import draw_figure
from slmbench.figures.tables import render_table

PARAMS: dict[str, Any] = {"bootstrap_seed": 5, "n_boot": 40}
# model -> passes over tasks T0..T4 with the configured window, then with 1024 tokens
OUTCOMES = {"a:1b": ([1, 1, 1, 0, 0], [1, 0, 0, 0, 0]), "b:3b": ([1, 0, 0, 0, 0], [1, 0, 0, 0, 0])}


def _row(model: str, task: str, n_ctx: int, passed: bool, **kw: Any) -> dict[str, Any]:
    overflow = n_ctx == 1024 and not passed
    row = {
        "trial_id": f"{model}/{task}/{n_ctx}/{kw.get('scaffold', 'native')}", "study": "slmbench",
        "suite": "capability", "task_id": task, "variant": "original", "model": model, "params_b": 1.0,
        "is_base": False, "temperature": 0.0, "repeat": 0, "scaffold": "native", "parser_mode": "repaired",
        "outcome": "success" if passed else "failure", "passed": passed, "n_ctx": n_ctx,
        "failure_class": None if passed else ("clock" if overflow else "capability"),
        "stop_reason": "context_overflow" if overflow else "final_answer", "primary": n_ctx == 4096,
        "comparison": None if n_ctx == 4096 else "context",
        "peak_rss_mb": 900.0 if n_ctx == 4096 else 700.0,
    }  # fmt: skip
    row.update(kw)
    return row


def trials() -> pd.DataFrame:
    rows = []
    for model, (full, small) in OUTCOMES.items():
        for i, (a, b) in enumerate(zip(full, small, strict=True)):
            rows.append(_row(model, f"T{i}", 4096, bool(a)))
            rows.append(_row(model, f"T{i}", 1024, bool(b)))
    rows.append(_row("a:1b", "T0", 4096, True, scaffold="react", primary=False, comparison="scaffold"))
    rows.append(_row("a:1b", "T1", 2048, True, primary=False))  # a larger test window: not the smallest
    return pd.DataFrame(rows)


def _numbers(df: pd.DataFrame) -> dict[str, Any]:
    return numbers_by_key(compute(df, None, PARAMS))


def test_the_smallest_other_window_in_the_primary_scaffold_is_paired() -> None:
    df = trials()
    primary = primary_rows(df, "slmbench")[0]
    other, n_ctx = other_rows(df, primary)
    assert n_ctx == 1024 and len(other) == 10 and set(other["scaffold"]) == {"native"}


def test_paired_numbers_overflow_and_memory() -> None:
    n = _numbers(trials())
    assert n["ctx.other.n-ctx"] == 1024 and n["ctx.n.pairs"] == 10
    assert n["ctx.primary.name"] == "n_ctx 4096" and n["ctx.other.name"] == "n_ctx 1024"
    assert n["ctx.primary.acc.k"] == 4 and n["ctx.other.acc.k"] == 2
    assert n["ctx.n.only-primary"] == 2 and n["ctx.n.only-other"] == 0
    assert n["ctx.overflow.other.k"] == 8 and n["ctx.overflow.primary.k"] == 0
    assert n["ctx.overflow.was-turn-limit.n"] == 8 and n["ctx.overflow.was-turn-limit.k"] == 0
    assert n["ctx.fail.other.clock"] == 1.0
    assert n["ctx.rss.a-1b.primary"] == 900.0 and n["ctx.rss.a-1b.other"] == 700.0


def test_without_a_smaller_window_every_pooled_key_is_still_emitted() -> None:
    full = {k for k in _numbers(trials()) if not k.startswith(("ctx.model.", "ctx.rss."))}
    df = trials()
    only_primary = _numbers(df[df["primary"]])
    assert full <= set(only_primary)
    assert only_primary["ctx.n.pairs"] == 0 and only_primary["ctx.diff"] == "n/a"


def test_figure_and_table(tmp_path: Path) -> None:
    res = compute(trials(), None, PARAMS)
    topic = write_topic(tmp_path / "context.json", "context", res, trials())
    assert draw_figure("context_cap", {"context": topic}, tmp_path / "fig.pdf")
    assert (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF")
    tex = render_table("context", json.loads(topic.read_text()))
    assert "a:1b" in tex and "900" in tex and "tab:context" in tex


def test_each_side_selects_exactly_its_paired_trials() -> None:
    df = trials()
    numbers = [n.to_dict() for n in compute(df, None, PARAMS).numbers]
    assert count_mismatches(numbers, df) == []


def test_memory_peaks_are_over_the_paired_tasks_only() -> None:
    df = trials()
    reliability = _row("a:1b", "R0", 4096, True, suite="reliability", peak_rss_mb=5000.0)  # primary, unpaired
    n = _numbers(pd.concat([df, pd.DataFrame([reliability])], ignore_index=True))
    assert n["ctx.rss.a-1b.primary"] == 900.0
