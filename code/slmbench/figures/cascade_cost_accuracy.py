"""The BM25-first cascade: share of items sent to the model against accuracy, BM25 alone and the model alone.

BM25 alone calls the model on no item (x = 0), the model alone on every item (x = 1), the cascade on the share
its calibration-chosen threshold sends. Wilson intervals. Reads the ``eligibility`` topic's ``cascade`` table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from slmbench.figures.eligibility_plot import (
    TASK_LABELS,
    frame,
    legend_below,
    model_colors,
    tasks_in,
    write_values,
)
from slmbench.figures.plots import percent_axis
from slmbench.figures.style import no_data, panels, save

_MARKERS = {"terse": "o", "rubric": "s", "fewshot": "^"}


def _yerr(acc: pd.Series, lo: pd.Series, hi: pd.Series) -> np.ndarray:
    a = acc.astype(float).to_numpy()
    return np.vstack(
        [np.clip(a - lo.astype(float).to_numpy(), 0, None), np.clip(hi.astype(float).to_numpy() - a, 0, None)]
    )


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from the eligibility topic into ``out`` (``trials`` is not used)."""
    df = frame(inputs, "cascade")
    df = df.dropna(subset=["cascade_acc", "called", "acc"]) if len(df) else df
    tasks = tasks_in(df, ("tool_selection", "reranking"))
    fig, axes = panels(max(len(tasks), 1), ncols=2, width=3.6, height=3.0)
    values: dict[str, Any] = {}
    if not tasks:
        no_data(axes[0], "no tool-selection or reranking runs")
    order = df.sort_values(["params_b", "model"])["model"].drop_duplicates().tolist() if len(df) else []
    colors = model_colors(order)
    for ax, task in zip(axes, tasks, strict=False):
        part = df[df["task"] == task]
        first = part.iloc[0]
        ax.errorbar(
            [0.0], [first["bm25_acc"]], yerr=_yerr(part["bm25_acc"][:1], part["bm25_lo"][:1], part["bm25_hi"][:1]),
            fmt="D", color="black", ms=5, capsize=2, lw=0.8,
        )  # fmt: skip
        for (model, prompt), grp in part.groupby(["model", "prompt"], sort=True):
            color, marker = colors[str(model)], _MARKERS.get(str(prompt), "o")
            ax.errorbar(
                grp["called"], grp["cascade_acc"], yerr=_yerr(grp["cascade_acc"], grp["cascade_lo"], grp["cascade_hi"]),
                fmt=marker, color=color, ms=4, capsize=2, lw=0.8,
            )  # fmt: skip
            ax.errorbar(
                np.ones(len(grp)), grp["acc"], yerr=_yerr(grp["acc"], grp["lo"], grp["hi"]),
                fmt=marker, color=color, mfc="white", ms=4, capsize=2, lw=0.8,
            )  # fmt: skip
            for row in grp.itertuples(index=False):
                key = str(row.key)
                values.update({f"{key}.cascade.acc": row.cascade_acc, f"{key}.cascade.called": row.called})
                values.update({f"{key}.acc": row.acc, f"{key}.baseline": row.bm25_acc})
        ax.set_xlim(-0.05, 1.05)
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{v * 100:.0f}%")
        percent_axis(ax)
        ax.set_xlabel("share of test items sent to the model")
        ax.set_ylabel("test accuracy@1 (95% Wilson)")
        ax.set_title(TASK_LABELS.get(task, task))
    handles = [Line2D([], [], ls="", marker="D", color="black", label="BM25 alone")]
    handles += [Line2D([], [], ls="", marker="o", color=c, label=m) for m, c in colors.items()]
    handles += [Line2D([], [], ls="", marker=mk, color="#555555", label=p) for p, mk in _MARKERS.items()]
    legend_below(fig, handles, ncols=4)
    fig.suptitle(
        "BM25-first cascade: model calls vs accuracy (filled: cascade; hollow: model alone)", fontsize=9
    )
    save(fig, out)
    write_values(out, values)
