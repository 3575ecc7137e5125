"""Radar profile per model: capability accuracy and the four reliability dimensions, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import DIMENSIONS, capability_rates, dimension_rates
from slmbench.figures.layout import study_figure
from slmbench.figures.style import BASE_COLOR, model_label

AXES: tuple[str, ...] = ("capability", *DIMENSIONS)


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    angles = np.linspace(0, 2 * np.pi, len(AXES), endpoint=False)
    closed = np.append(angles, angles[0])
    for model, part in table.groupby("model", sort=False):
        values = part.set_index("axis")["rate"].reindex(AXES).fillna(0).to_numpy(dtype=float)
        base = bool(part["is_base"].iloc[0])
        ax.plot(
            closed,
            np.append(values, values[0]),
            lw=1.0,
            ls="--" if base else "-",
            color=BASE_COLOR if base else None,
            label=model_label(str(model), base),
        )
    ax.set_xticks(angles, [a.replace("_", "\n") for a in AXES], fontsize=6)
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["25%", "50%", "75%", "100%"], fontsize=5)
    ax.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0), frameon=False)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    cap = capability_rates(trials).assign(axis="capability")
    dims = dimension_rates(trials).rename(columns={"dimension": "axis"})
    cols = ["study", "model", "axis", "rate", "params_b", "is_base"]
    table = pd.concat([cap[cols], dims[cols]], ignore_index=True) if not (cap.empty and dims.empty) else cap
    study_figure(
        table, _panel, out, title="Capability and reliability profile", polar=True, width=4.6, height=3.4
    )
