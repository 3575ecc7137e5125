"""Eligibility margin (Wilson lower bound minus the baseline's accuracy) against model size, one panel per task.

Above zero a configuration is eligible; the dashed line is the stated margin. Colour: prompt; marker:
quantisation (shipped file or requantised variant). Lists configurations from the ``eligibility`` topic's
``configs`` table and draws ``elig.<task>.<config>.gap`` against ``elig.<task>.<config>.params``.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from slmbench.figures.eligibility_plot import (
    PROMPT_COLORS,
    QUANT_MARKERS,
    TASK_LABELS,
    TOPIC,
    legend_below,
    prompt_offset,
    size_axis,
    tasks_in,
)
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.style import TEXT_PT, no_data, panels


@figure(reads=("eligibility",))
def draw(src: Source) -> Figure:
    """One point per configuration that has a gap and a size; zero and the stated margin as lines."""
    df = src.table(TOPIC, "configs")
    tasks = tasks_in(df)
    fig, axes = panels(max(len(tasks), 1), ncols=2, height=1.8)
    if not tasks:
        no_data(axes[0], "no eligibility runs")
    for ax, task in zip(axes, tasks, strict=False):
        part = df[df["task"] == task]
        sizes: list[float] = []
        for (prompt, quant), grp in part.groupby(["prompt", "quant"], sort=True):
            points = [xy for key in grp["key"] if (xy := src.values(f"{key}.params", f"{key}.gap"))]
            sizes += [s for s, _ in points]
            ax.scatter(
                [s * prompt_offset(str(prompt)) for s, _ in points],
                [g for _, g in points],
                color=PROMPT_COLORS.get(str(prompt), "#555555"),
                marker=QUANT_MARKERS.get(str(quant), "D"),
                s=18,
            )
        ax.axhline(0.0, color="black", lw=0.8)
        margin = src.value("elig.margin")
        if margin is not None:
            ax.axhline(margin, color="black", lw=0.8, ls="--")
        if sizes:
            size_axis(ax, sizes)
        ax.set_title(TASK_LABELS.get(task, task))
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{v * 100:+.0f} pp")
        spec = ax.get_subplotspec()
        if spec is not None and spec.is_last_row():  # the axis titles once, each panel on its own scale
            ax.set_xlabel("parameters (billions, log scale)")
    fig.supylabel("Wilson lower bound − baseline", fontsize=TEXT_PT)
    handles = [Line2D([], [], ls="", marker="o", color=c, label=p) for p, c in PROMPT_COLORS.items()]
    present = set(df["quant"]) if len(df) else set()
    handles += [
        Line2D([], [], ls="", marker=m, color="#555555", label=q)
        for q, m in QUANT_MARKERS.items()
        if q in present
    ]
    legend_below(fig, handles, ncols=6)
    fig.suptitle("Eligibility margin vs model size (above 0: eligible; dashed: stated margin)")
    return fig
