"""Outcome consistency and predictability on every capability task on one build (topic ``task_consistency``).

Left: pass^j against j per model (``tcons.pass-hat.<j>.<m>``, the chance that all of j samples of a task pass,
mean over tasks, with its task-resampled interval), and pass@j dashed (at least one of j passes). Right: the
reliability diagram of the samples (``tcons.cal.samples.<m>.bin<b>.*``: per non-empty bin of confidence the mean
confidence against the pass share; filled) and of the primary trials at T = 0 (hollow), with the diagonal of
perfect calibration. Its fonts are the shared style's (``style.MIN_TEXT_PT`` or more on the page)."""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.analysis.numbers import slug
from slmbench.figures.plots import errors, percent_axis
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.style import no_data, panels, qualitative_colors, shared_legend

TOPIC = "task_consistency"
SETS = (("samples", "samples (T > 0)", "o", True), ("primary", "primary trials (T = 0)", "s", False))
"""The trial sets of the reliability diagram: name, legend text, marker, filled."""


def _models(src: Source) -> list[str]:
    rows = src.table(TOPIC, "models")
    if rows.empty:
        return []
    return [str(m) for m in rows.sort_values(["params_b", "model"], na_position="last")["model"]]


def _pass_k(ax: Axes, src: Source, models: list[str], colors: list[tuple[float, float, float]]) -> bool:
    table = src.table(TOPIC, "pass_k")
    drawn = False
    for model, color in zip(models, colors, strict=True):
        js = sorted(int(j) for j in table.loc[table["model"] == model, "j"]) if not table.empty else []
        for name, style in (("pass-hat", "-"), ("pass-at", "--")):
            keys = [f"tcons.{name}.{j}.{slug(model)}" for j in js]
            line = [(j, k, v) for j, k in zip(js, keys, strict=True) if (v := src.value(k)) is not None]
            if not line:
                continue
            drawn = True
            ys = [v for _, _, v in line]
            lo = [src.value(f"{k}.lo") for _, k, _ in line]
            hi = [src.value(f"{k}.hi") for _, k, _ in line]
            ax.errorbar(
                [j for j, _, _ in line], ys, yerr=errors(ys, lo, hi), marker="o", ms=3.5, capsize=2, lw=1.0,
                ls=style, color=color, alpha=1.0 if name == "pass-hat" else 0.55,
                label=model if name == "pass-hat" else None,
            )  # fmt: skip
    if not drawn:
        return False
    percent_axis(ax)
    ax.set_xticks(sorted({int(j) for j in table["j"]}))
    ax.set_xlabel("j (samples of a task)")
    ax.set_ylabel("share of tasks (mean over tasks)")
    ax.set_title("pass$^j$ (solid) and pass@$j$ (dashed)")
    return True


def _diagram(ax: Axes, src: Source, models: list[str], colors: list[tuple[float, float, float]]) -> bool:
    bins = src.table(TOPIC, "reliability_bins")
    if bins.empty:
        return False
    drawn = False
    for model, color in zip(models, colors, strict=True):
        named = False
        for name, _label, marker, filled in SETS:
            mine = bins[(bins["model"] == model) & (bins["set"] == name)]
            key = f"tcons.cal.{name}.{slug(model)}"
            points = [
                v for b in sorted(int(b) for b in mine["bin"])
                if (v := src.values(f"{key}.bin{b}.confidence", f"{key}.bin{b}.passed")) is not None
            ]  # fmt: skip
            if not points:
                continue
            drawn = True
            ax.plot(
                [c for c, _ in points], [p for _, p in points], marker=marker, ms=4, lw=0.8, color=color,
                markerfacecolor=color if filled else "none",
            )  # fmt: skip
            if not named:
                ax.plot([], [], color=color, lw=1.2, label=model)  # the model's entry: its colour alone
            named = True
    if not drawn:
        return False
    ax.plot([0, 1], [0, 1], color="#777777", lw=0.8, ls=":")
    percent_axis(ax)
    percent_axis(ax, "x")
    for _name, label, marker, filled in SETS:
        ax.plot([], [], marker=marker, ls="none", color="#444444", markerfacecolor="#444444" if filled else "none",
                label=label)  # fmt: skip
    ax.set_xlabel(f"mean confidence in the bin ({src.text('tcons.cal.bins')} equal-width bins)")
    ax.set_ylabel("share of the bin's trials passed")
    ax.set_title("Reliability diagram")
    return True


@figure(reads=("task_consistency",))
def draw(src: Source) -> Figure:
    """pass^j and pass@j against j per model, and the reliability diagram of the samples and the primary trials."""
    models = _models(src)
    colors = qualitative_colors("tab10", len(models))
    fig, axes = panels(2)
    for ax, part, reason in (
        (axes[0], _pass_k, "no task has samples above T = 0"),
        (axes[1], _diagram, "no trial recorded a confidence"),
    ):
        if not part(ax, src, models, colors):
            no_data(ax, reason)
    shared_legend(fig, [axes[1], axes[0]])  # one key below both panels: a model's colour is the same in each
    fig.suptitle("Every capability task on one build: outcome consistency and calibration")
    return fig
