"""Per model: the surface forms of the recorded calls, and the share of calls strict parsing would refuse.

Reads the ``boundary`` topic (``boundary.surface.<surface>.<m>``, ``boundary.strict.lost.<m>``) and the models
of our study from ``capability``; without them, the panels say so.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from slmbench.analysis.numbers import slug
from slmbench.analysis.topics.boundary import SURFACES
from slmbench.figures.plots import hbar_models, labels_of, stacked_shares
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import OURS
from slmbench.figures.style import no_data, panels, shared_legend


@figure(reads=("capability", "boundary"))
def draw(src: Source) -> Figure:
    """Surface shares per model (stacked) and the share of accepted calls strict parsing refuses."""
    models = OURS.models(src)
    fig, (left, right) = panels(2, height=max(2.4, 1.2 + 0.3 * len(models)))
    shares = pd.DataFrame(
        {s: [src.value(f"boundary.surface.{slug(s)}.{slug(m)}") for m in models["model"]] for s in SURFACES},
        index=labels_of(models),
    ).astype(float)
    if shares.notna().any().any():
        stacked_shares(left, shares, SURFACES, missing="no calls")
        left.set_xlabel("share of the model's recorded tool calls")
    else:
        calls = src.peek("boundary.n.calls")
        no_data(left, "no boundary topic" if calls is None else "no recorded tool calls")
    left.set_title("Surface forms of the calls")
    keys = [f"boundary.strict.lost.{slug(m)}" for m in models["model"]]
    lost = [src.value(k) for k in keys]
    if any(v is not None for v in lost):
        lo = [src.value(f"{k}.lo") if v is not None else None for k, v in zip(keys, lost, strict=True)]
        hi = [src.value(f"{k}.hi") if v is not None else None for k, v in zip(keys, lost, strict=True)]
        base = [bool(b) for b in models["is_base"]]
        hbar_models(
            right,
            labels_of(models),
            lost,
            color=OURS.color,
            base=base,
            lo=lo,
            hi=hi,
            missing="no accepted calls",
        )
        right.set_xlabel("share of accepted calls strict parsing refuses")
    elif src.text("boundary.strict.replayed") == "yes":
        no_data(right, "no accepted calls in the replay")
    else:
        no_data(right, "no strict replay")
    right.set_title("Refused under strict parsing")
    shared_legend(fig, [left, right])
    fig.suptitle("Surface forms and the strict parser")
    return fig
