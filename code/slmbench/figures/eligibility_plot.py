"""Shared pieces of the eligibility figures: task panels, styles and legends.

Every eligibility figure lists configurations from the ``eligibility`` topic's tables and draws their numbers
by key (``elig.<task>.<config>.gap`` ...).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

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
