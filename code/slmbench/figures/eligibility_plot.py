"""Shared pieces of the eligibility figures: the topic's tables, task panels, styles, and the values file.

Every eligibility figure reads only the ``eligibility`` topic's tables and writes the values it plotted to
``<pdf stem>.values.json`` beside the PDF, keyed by the numbers' keys (``elig.<task>.<config>.gap`` ...).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.figures.data import load_topic, topic_frame
from slmbench.vocab import ELIGIBILITY_TASKS, PROMPT_STYLES, REQUANT_TYPES, SHIPPED

TOPIC = "eligibility"
TASK_LABELS: dict[str, str] = {
    "command_approval": "Command approval",
    "memory_write": "Memory write",
    "tool_selection": "Tool selection",
    "reranking": "Reranking",
}
PROMPT_COLORS: dict[str, str] = {"terse": "#1b6ca8", "rubric": "#d1495b", "fewshot": "#3a9d5d"}
QUANT_ORDER: tuple[str, ...] = (SHIPPED, *reversed(REQUANT_TYPES))
"""Shipped first, then the variants from most to fewest bits."""
QUANT_MARKERS: dict[str, str] = {SHIPPED: "o", "Q3_K_M": "^", "Q2_K": "s"}
MODEL_COLORS = ("#1b6ca8", "#d1495b", "#3a9d5d", "#e09f3e", "#7d5ba6", "#555555")


def values_path(out: Path) -> Path:
    """``figures/fig_x.pdf`` -> ``figures/fig_x.values.json``."""
    return out.with_name(out.stem + ".values.json")


def write_values(out: Path, values: Mapping[str, Any]) -> None:
    """Write the plotted values beside the PDF (sorted keys, non-finite as null), atomically."""
    path = values_path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in values.items()}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(clean, sort_keys=True, indent=1) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def frame(inputs: Mapping[str, Any], table: str) -> pd.DataFrame:
    """One table of the eligibility topic (empty when the topic or table is absent)."""
    df = topic_frame(inputs, TOPIC, table)
    return df if df is not None else pd.DataFrame()


def margin_param(inputs: Mapping[str, Any]) -> float | None:
    """The stated margin the topic used (``elig.margin``), if the topic is present."""
    doc = load_topic(inputs, TOPIC) or {}
    for n in doc.get("numbers", []):
        if n["key"] == "elig.margin" and isinstance(n["value"], int | float):
            return float(n["value"])
    return None


def tasks_in(df: pd.DataFrame, tasks: tuple[str, ...] = ELIGIBILITY_TASKS) -> list[str]:
    """The tasks present in ``df``, in the study's order."""
    present = set(df["task"]) if "task" in df else set()
    return [t for t in tasks if t in present]


def prompt_offset(prompt: str) -> float:
    """A small multiplicative x offset per prompt so points of one model do not overlap on a log axis."""
    order = list(PROMPT_STYLES)
    i = order.index(prompt) if prompt in order else 0
    return float(1.0 + 0.06 * (i - (len(order) - 1) / 2))


def size_axis(ax: Any, sizes: Any) -> None:
    """A log x axis ticked at the models' sizes (``0.135B`` ...)."""
    ax.set_xscale("log")
    ticks = sorted({float(v) for v in sizes})
    ax.set_xticks(ticks, [f"{v:g}B" for v in ticks])
    ax.minorticks_off()


def legend_below(fig: Any, handles: list[Any], ncols: int = 4) -> None:
    """One legend below the panels from explicit handles."""
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=ncols, frameon=False)


def model_colors(models: list[str]) -> dict[str, str]:
    """A fixed colour per model (in the given order)."""
    return {m: MODEL_COLORS[i % len(MODEL_COLORS)] for i, m in enumerate(models)}
