"""Eligibility margin (Wilson lower bound minus the baseline's accuracy) against model size, one panel per task.

Above zero a configuration is eligible; the dashed line is the stated margin. Colour: prompt; marker:
quantisation (shipped file or requantised variant). Reads the ``eligibility`` topic's ``configs`` table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.lines import Line2D

from slmbench.figures.eligibility_plot import (
    PROMPT_COLORS,
    QUANT_MARKERS,
    TASK_LABELS,
    frame,
    legend_below,
    margin_param,
    prompt_offset,
    size_axis,
    tasks_in,
    write_values,
)
from slmbench.figures.style import no_data, panels, save


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from the eligibility topic into ``out`` (``trials`` is not used)."""
    df = frame(inputs, "configs")
    df = df.dropna(subset=["gap", "params_b"]) if len(df) else df
    tasks = tasks_in(df)
    margin = margin_param(inputs)
    fig, axes = panels(max(len(tasks), 1), ncols=2, width=3.4, height=2.7)
    values: dict[str, Any] = {}
    if not tasks:
        no_data(axes[0], "no eligibility runs")
    for ax, task in zip(axes, tasks, strict=False):
        part = df[df["task"] == task]
        for (prompt, quant), grp in part.groupby(["prompt", "quant"], sort=True):
            x = grp["params_b"].astype(float) * prompt_offset(str(prompt))
            ax.scatter(
                x,
                grp["gap"].astype(float),
                color=PROMPT_COLORS.get(str(prompt), "#555555"),
                marker=QUANT_MARKERS.get(str(quant), "D"),
                s=18,
                label=f"{prompt}, {quant}",
            )
            values.update({f"{k}.gap": float(g) for k, g in zip(grp["key"], grp["gap"], strict=True)})
        ax.axhline(0.0, color="black", lw=0.8)
        if margin is not None:
            ax.axhline(margin, color="black", lw=0.8, ls="--")
            values["elig.margin"] = margin
        size_axis(ax, part["params_b"])
        ax.set_title(TASK_LABELS.get(task, task))
        ax.set_xlabel("parameters (billions, log scale)")
        ax.set_ylabel("Wilson lower bound − baseline")
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{v * 100:+.0f} pp")
    handles = [Line2D([], [], ls="", marker="o", color=c, label=p) for p, c in PROMPT_COLORS.items()]
    present = set(df["quant"]) if len(df) else set()
    handles += [
        Line2D([], [], ls="", marker=m, color="#555555", label=q)
        for q, m in QUANT_MARKERS.items()
        if q in present
    ]
    legend_below(fig, handles, ncols=6)
    fig.suptitle("Eligibility margin vs model size (above 0: eligible; dashed: stated margin)", fontsize=9)
    save(fig, out)
    write_values(out, values)
