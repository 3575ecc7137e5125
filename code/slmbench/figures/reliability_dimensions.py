"""Pass rate per reliability dimension and model (grouped bars, Wilson 95% intervals) in this study."""

from __future__ import annotations

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.layout import study_figure
from slmbench.figures.plots import errors, labels_of, percent_axis
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.figures.style import BASE_HATCH
from slmbench.vocab import DIMENSIONS


def _panel(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
    names = [str(m) for m in models["model"]]
    base = [bool(b) for b in models["is_base"]]
    width = 0.8 / len(DIMENSIONS)
    drawn = False
    for j, (dim, color) in enumerate(
        zip(DIMENSIONS, sns.color_palette("colorblind", len(DIMENSIONS)), strict=True)
    ):
        keys = [study.dimension(dim, m) for m in names]
        values = [src.value(k) for k in keys]
        at = [i for i, v in enumerate(values) if v is not None]
        if not at:
            continue
        drawn = True
        heights = [values[i] or 0.0 for i in at]
        lo = [src.value(f"{keys[i]}.lo") for i in at]
        hi = [src.value(f"{keys[i]}.hi") for i in at]
        pos = np.asarray(at, dtype=float) + (j - (len(DIMENSIONS) - 1) / 2) * width
        bars = ax.bar(
            pos,
            heights,
            width,
            yerr=errors(heights, lo, hi),
            color=color,
            error_kw={"elinewidth": 0.6, "ecolor": "#444444"},
            label=dim.replace("_", " "),
        )
        for bar, i in zip(bars, at, strict=True):
            if base[i]:
                bar.set_hatch(BASE_HATCH)
    if not drawn:
        return False
    ax.set_xticks(np.arange(len(names)), labels_of(models), rotation=30, ha="right", rotation_mode="anchor")
    ax.set_ylabel("pass rate")
    percent_axis(ax)
    return True


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.<dimension>`` with its interval."""
    return study_figure(
        src, _panel, title="Reliability by dimension", empty="no reliability trials", height=3.0, legend=True
    )
