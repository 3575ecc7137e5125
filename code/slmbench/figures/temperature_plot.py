"""Panels of a per-model line across temperatures (accuracy, or its difference to the lowest temperature)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.layout import PanelDrawer
from slmbench.figures.plots import errors, labels_of
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.figures.style import BASE_COLOR, qualitative_colors

TempKey = Callable[[Study, str, float], str]
"""The key of a model's value at one temperature (``Study.temp_acc``, ``Study.temp_diff``)."""


def temperature_panel(key: TempKey, *, ylabel: str) -> PanelDrawer:
    """One line per model over the temperatures its topic table lists, with interval bars; temperatures
    without the number (the lowest one, for a difference) are left out."""

    def draw(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
        rows = study.temperatures(src)
        if rows.empty:
            return False
        drawn = False
        palette = qualitative_colors("tab10", max(len(models), 1))  # a model keeps its colour across figures
        for i, (label, model, base) in enumerate(
            zip(labels_of(models), models["model"], models["is_base"], strict=True)
        ):
            temps = sorted(float(t) for t in rows.loc[rows["model"] == model, "temperature"])
            keys = [(t, key(study, str(model), t)) for t in temps]
            line = [(t, k, v) for t, k in keys if (v := src.value(k)) is not None]
            if not line:
                continue
            drawn = True
            ys = [v for _, _, v in line]
            ax.errorbar(
                [t for t, _, _ in line],
                ys,
                yerr=errors(
                    ys, [src.value(f"{k}.lo") for _, k, _ in line], [src.value(f"{k}.hi") for _, k, _ in line]
                ),
                marker="o",
                ms=3,
                capsize=2,
                lw=0.9,
                ls="--" if base else "-",
                color=BASE_COLOR if base else palette[i % len(palette)],
                label=label,
            )
        if not drawn:
            return False
        ax.set_xlim(-0.05, 1.05)
        ax.set_xlabel("temperature")
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=3, frameon=False)
        return True

    return draw
