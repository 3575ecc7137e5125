"""Reading and writing analysis outputs: topic JSON files, provenance and atomic writes."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.topics import get_loader, get_topic, with_defaults


def json_safe(obj: Any) -> Any:
    """Replace non-finite floats by ``None`` and numpy scalars by Python ones, recursively."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, str | bytes):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_atomic(path: Path, content: str) -> None:
    """Write ``content`` to ``path`` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(content)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def dump_json(obj: Any) -> str:
    """Deterministic JSON text (sorted keys)."""
    return json.dumps(json_safe(obj), sort_keys=True, indent=1, allow_nan=False) + "\n"


def run_topic(
    topic: str,
    trials_path: Path | None,
    events_path: Path | None,
    params: dict[str, Any],
    summary_path: Path | None,
) -> dict[str, Any]:
    """Compute one topic from the tidy tables (or its own inputs) and return its JSON document."""
    trials = pd.read_parquet(trials_path) if trials_path is not None else pd.DataFrame()
    events = pd.read_parquet(events_path) if events_path is not None else None
    full = with_defaults(params)
    recorded = dict(full)
    if summary_path is not None:
        full["summary"] = pd.read_parquet(summary_path).to_dict("records")
        recorded["summary"] = str(summary_path)
    loader = get_loader(topic)
    if loader is not None:
        full, read = loader(full)
        recorded.update(read)
    result: TopicResult = get_topic(topic)(trials, events, full)
    return {
        "topic": topic,
        "params": recorded,
        "numbers": [n.to_dict() for n in result.numbers],
        "tables": result.tables,
    }
