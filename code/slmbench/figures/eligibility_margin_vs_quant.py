"""Eligibility margin of the shipped file and its requantised variants, one panel per task.

One line per model and prompt across quantisations (shipped first, then fewer bits). Reads the ``eligibility``
topic's ``configs`` table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.figures.eligibility_plot import (
    QUANT_ORDER,
    TASK_LABELS,
    frame,
    model_colors,
    tasks_in,
    write_values,
)
from slmbench.figures.style import no_data, panels, save, shared_legend
from slmbench.vocab import PROMPT_STYLES

_STYLES = {"terse": "-", "rubric": "--", "fewshot": ":"}


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from the eligibility topic into ``out`` (``trials`` is not used)."""
    df = frame(inputs, "configs")
    df = df.dropna(subset=["gap"]) if len(df) else df
    tasks = tasks_in(df)
    quants = [q for q in QUANT_ORDER if len(df) and q in set(df["quant"])]
    fig, axes = panels(max(len(tasks), 1), ncols=2, width=3.4, height=2.7)
    values: dict[str, Any] = {}
    if not tasks or len(quants) < 2:
        no_data(axes[0], "no requantised variant scored")
    else:
        order = df.sort_values(["params_b", "model"])["model"].drop_duplicates().tolist()
        colors = model_colors(order)
        pos = {q: i for i, q in enumerate(quants)}
        for ax, task in zip(axes, tasks, strict=False):
            part = df[df["task"] == task]
            for (model, prompt), grp in part.groupby(["model", "prompt"], sort=True):
                grp = grp[grp["quant"].isin(pos)].sort_values("quant", key=lambda s: s.map(pos))
                ax.plot(
                    grp["quant"].map(pos),
                    grp["gap"].astype(float),
                    marker="o",
                    ms=3,
                    lw=0.9,
                    color=colors[str(model)],
                    ls=_STYLES.get(str(prompt), "-"),
                    label=f"{model}, {prompt}" if prompt == PROMPT_STYLES[0] else None,
                )
                values.update({f"{k}.gap": float(g) for k, g in zip(grp["key"], grp["gap"], strict=True)})
            ax.axhline(0.0, color="black", lw=0.8)
            ax.set_xticks(range(len(quants)), quants)
            ax.set_title(TASK_LABELS.get(task, task))
            ax.set_ylabel("Wilson lower bound − baseline")
            ax.yaxis.set_major_formatter(lambda v, _pos: f"{v * 100:+.0f} pp")
        shared_legend(fig, axes)
    fig.suptitle("Eligibility margin: shipped file vs requantised variants (line style: prompt)", fontsize=9)
    save(fig, out)
    write_values(out, values)
