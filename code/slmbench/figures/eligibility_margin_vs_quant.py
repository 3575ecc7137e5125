"""Eligibility margin of the shipped file and its requantised variants, one panel per task.

One line per model and prompt across quantisations (shipped first, then fewer bits). Lists configurations from
the ``eligibility`` topic's ``configs`` table and draws their ``elig.<task>.<config>.gap``.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from slmbench.figures.eligibility_plot import (
    QUANT_ORDER,
    TASK_LABELS,
    TOPIC,
    legend_below,
    model_colors,
    tasks_in,
)
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.style import no_data, panels
from slmbench.vocab import PROMPT_STYLES

_STYLES = {"terse": "-", "rubric": "--", "fewshot": ":"}


def _legend(models: list[str], colors: dict[str, str], prompts: list[str]) -> list[Line2D]:
    """One entry per model (its colour) and one per prompt (its line style): every style drawn is named."""
    handles = [Line2D([], [], color=colors[m], marker="o", ms=3, lw=0.9, label=m) for m in models]
    return handles + [
        Line2D([], [], color="black", lw=0.9, ls=_STYLES.get(p, "-"), label=f"prompt {p}") for p in prompts
    ]


@figure(reads=("eligibility",))
def draw(src: Source) -> Figure:
    """One line per model and prompt over the quantisations it was scored at."""
    df = src.table(TOPIC, "configs")
    tasks = tasks_in(df)
    quants = [q for q in QUANT_ORDER if len(df) and q in set(df["quant"])]
    empty = not tasks or len(quants) < 2
    fig, axes = panels(1 if empty else len(tasks), ncols=2)  # no empty panels beside the message
    if empty:
        no_data(axes[0], "no requantised variant scored")
    else:
        order = df.sort_values(["params_b", "model"])["model"].drop_duplicates().tolist()
        colors = model_colors(order)
        pos = {q: i for i, q in enumerate(quants)}
        for ax, task in zip(axes, tasks, strict=False):
            part = df[df["task"] == task]
            for (model, prompt), grp in part.groupby(["model", "prompt"], sort=True):
                grp = grp[grp["quant"].isin(pos)].sort_values("quant", key=lambda s: s.map(pos))
                line = [
                    (pos[q], g)
                    for q, k in zip(grp["quant"], grp["key"], strict=True)
                    if (g := src.value(f"{k}.gap")) is not None
                ]
                ax.plot(
                    [x for x, _ in line],
                    [y for _, y in line],
                    marker="o",
                    ms=3,
                    lw=0.9,
                    color=colors[str(model)],
                    ls=_STYLES.get(str(prompt), "-"),
                )
            ax.axhline(0.0, color="black", lw=0.8)
            ax.set_xticks(range(len(quants)), quants)
            ax.set_title(TASK_LABELS.get(task, task))
            ax.set_ylabel("Wilson lower bound − baseline")
            ax.yaxis.set_major_formatter(lambda v, _pos: f"{v * 100:+.0f} pp")
        legend_below(fig, _legend(order, colors, [p for p in PROMPT_STYLES if p in set(df["prompt"])]))
    fig.suptitle("Eligibility margin: shipped file vs requantised variants (line style: prompt)")
    return fig
