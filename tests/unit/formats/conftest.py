"""Shared inputs of the format tests: two small committed shards, and Inspect logs Inspect writes here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.fixtures.inspect_logs import write_logs

ROOT = Path(__file__).resolve().parents[3]
SHARDS = (
    "qwen2.5-coder-1.5b/null_control_T0_native_repaired_p-full.jsonl",  # tool calls and results
    "smollm2-135m/null_control_T0_native_repaired.jsonl",  # no call at all
)
"""Two small committed shards (ten trials each: five tasks, two repeats)."""


@pytest.fixture(scope="session")
def raw_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study folder ``<tmp>/slmbench`` holding copies of ``SHARDS`` (data/raw stays untouched)."""
    study = tmp_path_factory.mktemp("raw") / "slmbench"
    for shard in SHARDS:
        target = study / shard
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "data" / "raw" / "slmbench" / shard, target)
    return study


@pytest.fixture(scope="session")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Logs of the tiny tool task that Inspect wrote with its mock model, as ``strong`` and ``weak``."""
    return write_logs(tmp_path_factory.mktemp("inspect_logs"))
