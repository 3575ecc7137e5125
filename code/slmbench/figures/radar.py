"""Radar profile per model: capability accuracy and the four reliability dimensions in this study."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.layout import study_figure
from slmbench.figures.plots import labels_of
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.figures.style import BASE_COLOR, SMALL_PT
from slmbench.vocab import DIMENSIONS

AXES: tuple[str, ...] = ("capability", *DIMENSIONS)


def _keys(study: Study, model: str) -> list[str]:
    return [study.acc(model), *(study.dimension(d, model) for d in DIMENSIONS)]


def _panel(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
    angles = np.linspace(0, 2 * np.pi, len(AXES), endpoint=False)
    closed = np.append(angles, angles[0])
    drawn = False
    for label, model, base in zip(labels_of(models), models["model"], models["is_base"], strict=True):
        values = [src.value(k) for k in _keys(study, str(model))]
        if all(v is None for v in values):
            continue
        drawn = True
        radii = np.array([np.nan if v is None else v for v in values], dtype=float)  # a gap where undefined
        ax.plot(
            closed,
            np.append(radii, radii[0]),
            lw=1.0,
            ls="--" if base else "-",
            color=BASE_COLOR if base else None,
            label=label,
        )
    if not drawn:
        return False
    ax.set_xticks(angles, [a.replace("_", "\n") for a in AXES])
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["25%", "50%", "75%", "100%"])
    ax.tick_params(axis="y", labelsize=SMALL_PT)
    ax.tick_params(axis="x", pad=6)  # axis names clear of the outer circle
    ax.set_rlabel_position(36)  # type: ignore[attr-defined]  # between the first two axes, clear of their labels
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=3, fontsize=SMALL_PT, frameon=False
    )  # below: clear of the axes
    return True


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's capability accuracy and dimension pass rates (the numbers of the paper's tables)."""
    return study_figure(
        src, _panel, title="Capability and reliability profile", empty="no model", height=4.4, polar=True
    )
