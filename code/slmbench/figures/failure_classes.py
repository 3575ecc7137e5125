"""Failure-class shares per model under both rule orders (default and clock-first); our study only (the
reproduced study's records carry no failure class)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from slmbench.analysis.numbers import slug
from slmbench.analysis.topics.failures import CLASSES, ORDERS
from slmbench.figures.plots import labels_of, stacked_shares
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import OURS
from slmbench.figures.style import no_data, panels, shared_legend

TITLES: dict[str, str] = {"share": "default order", "share-alt": "clock-first order"}


@figure(reads=("capability", "failures"))
def draw(src: Source) -> Figure:
    """Each model's ``fail.share.<class>.<m>`` and ``fail.share-alt.<class>.<m>``."""
    models = OURS.models(src)
    fig, axes = panels(len(ORDERS), height=2.6)
    for ax, (_column, name) in zip(axes, ORDERS, strict=True):
        shares = pd.DataFrame(
            {c: [src.value(f"fail.{name}.{slug(c)}.{slug(m)}") for m in models["model"]] for c in CLASSES},
            index=labels_of(models),
        ).astype(float)
        shares = shares.dropna(how="all")  # models without a failure
        if shares.empty:
            no_data(ax, f"no failures ({TITLES[name]})")
        else:
            stacked_shares(ax, shares, CLASSES)
            ax.set_xlabel("share of failed trials")
        ax.set_title(TITLES[name].capitalize())
    shared_legend(fig, axes)
    fig.suptitle("Failure classes")
    return fig
