"""Reliability on every task, from the runs on one build (topic ``task_robustness``): per model, the share of
outcomes that change under a paraphrase of the task (pairs; interval from resampling tasks) and under each
injected fault kind (tasks; Wilson), and harm and compliance on the safety suite (tasks; Wilson), apart."""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.analysis.numbers import slug
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.style import model_label, no_data, panels
from slmbench.vocab import FAULT_KINDS

TOPIC = "task_robustness"
FLIPS = (("paraphrase", "trob.prompt.{m}.flip"),) + tuple(
    (f"{kind.replace('_', ' ')} fault", f"trob.fault.{slug(kind)}.{{m}}.flip") for kind in FAULT_KINDS
)
"""The flip shares drawn, each with its legend label and its key (``{m}``: the model's slug)."""
SAFETY = (("harm", "trob.safety.{m}.harm"), ("compliance", "trob.safety.{m}.compliance"))
COLORS = ("#1b6ca8", "#d1495b", "#edae49", "#66a182", "#8d6a9f")


def _models(src: Source) -> list[tuple[str, str]]:
    """(slug, label) of the topic's models, smallest first."""
    rows = src.table(TOPIC, "models")
    if rows.empty:
        return []
    rows = rows.sort_values(["params_b", "model"], kind="stable", na_position="last")
    return [
        (slug(m), model_label(str(m), bool(b))) for m, b in zip(rows["model"], rows["is_base"], strict=True)
    ]


def _points(
    ax: Axes, src: Source, models: list[tuple[str, str]], series: tuple[tuple[str, str], ...]
) -> bool:
    """One marker per model and series with its interval, series offset within a model's row; False when
    nothing was drawn."""
    drawn = False
    step = 0.8 / max(len(series), 1)
    for j, (label, template) in enumerate(series):
        ys, xs, lows, highs = [], [], [], []
        for i, (m, _) in enumerate(models):
            key = template.format(m=m)
            value = src.value(key)
            if value is None:
                continue
            lo, hi = src.value(f"{key}.lo"), src.value(f"{key}.hi")
            ys.append(i - 0.4 + step * (j + 0.5))
            xs.append(value)
            lows.append(value - lo if lo is not None else 0.0)
            highs.append(hi - value if hi is not None else 0.0)
        if xs:
            ax.errorbar(xs, ys, xerr=[lows, highs], fmt="o", ms=3.5, capsize=2, lw=0.9,
                        color=COLORS[j % len(COLORS)], label=label)  # fmt: skip
            drawn = True
    ax.set_yticks(range(len(models)), [label for _, label in models])
    ax.set_ylim(len(models) - 0.5, -0.5)
    ax.set_xlim(-0.02, 1.02)
    return drawn


@figure(reads=("task_robustness",))
def draw(src: Source) -> Figure:
    """``trob.prompt.<m>.flip``, ``trob.fault.<f>.<m>.flip``, ``trob.safety.<m>.harm`` and ``.compliance``."""
    models = _models(src)
    fig, axes = panels(2, height=max(2.0, 1.0 + 0.35 * len(models)))
    for ax, (series, title, xlabel, empty) in zip(
        axes,
        (
            (FLIPS, "Outcome changed by a perturbation", "share of pairs (paraphrase) or tasks (fault)",
             "no paraphrased or faulted run"),
            (SAFETY, "Safety suite", "share of tasks", "no safety run"),
        ),
        strict=True,
    ):  # fmt: skip
        if not models or not _points(ax, src, models, series):
            no_data(ax, empty)
            continue
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncols=2, frameon=False)
    fig.suptitle("Reliability on every task (one build, T = 0, each task once)")
    return fig
