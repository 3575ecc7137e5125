"""The protocol figure's rows: legacy and full, every other comparison's condition, and for the mechanism runs
their base once before them, with a condition already drawn named beside its reference."""

from __future__ import annotations

import pandas as pd

from slmbench.figures.protocol_ablation import _conditions


def test_a_mechanism_runs_base_is_drawn_once_and_full_against_it_is_named_with_it() -> None:
    rows = [
        ("full", "full vs legacy", "protocol"),
        ("full-no-answer", "full-no-answer vs full", "ablation"),
        ("legacy-kv-answer", "legacy-kv-answer vs legacy-kv", "mechanism"),
        ("legacy-kv-stuck", "legacy-kv-stuck vs legacy-kv", "mechanism"),
        ("full-legacy-kv", "full vs legacy-kv", "mechanism"),
    ]
    table = pd.DataFrame(rows, columns=["key", "comparison", "family"])
    found = [(label, key, side) for label, key, side, _ in _conditions(table)]
    assert found == [
        ("legacy", "full", "primary"), ("full", "full", "other"), ("full-no-answer", "full-no-answer", "other"),
        ("legacy-kv", "legacy-kv-answer", "primary"), ("legacy-kv-answer", "legacy-kv-answer", "other"),
        ("legacy-kv-stuck", "legacy-kv-stuck", "other"), ("full vs legacy-kv", "full-legacy-kv", "other"),
    ]  # fmt: skip
