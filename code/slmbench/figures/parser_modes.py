"""Per model: the surface forms of the recorded calls, and the share of calls strict parsing would refuse.

Reads the ``boundary`` topic (tables ``surfaces`` and ``strict``); without it, or without rows, the panels
say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis.topics.boundary import SURFACES
from slmbench.figures.data import model_info, order_models, scored, topic_frame
from slmbench.figures.plots import hbar_models, stacked_shares
from slmbench.figures.style import model_label, no_data, panels, save, shared_legend

STUDY = "slmbench"
_STRICT_COLUMNS = ["model", "responses", "share", "lo", "hi"]


def table(trials: pd.DataFrame, inputs: dict[str, Any]) -> pd.DataFrame:
    """One row per model: surface shares (one column per surface) and the strict refusal share with interval.

    Rows are ordered by parameter count (models with calls or replayed responses only); empty when the
    ``boundary`` topic is absent or has neither.
    """
    surfaces = topic_frame(inputs, "boundary", "surfaces")
    strict = topic_frame(inputs, "boundary", "strict")
    parts: list[pd.DataFrame] = []
    if surfaces is not None and not surfaces.empty:
        wide = surfaces.pivot(index="model", columns="surface", values="share").fillna(0.0)
        parts.append(wide.reindex(columns=list(SURFACES), fill_value=0.0))
    if strict is not None and not strict.empty:
        parts.append(strict[_STRICT_COLUMNS].set_index("model"))
    if not parts:
        return pd.DataFrame(
            columns=["study", "model", "params_b", "is_base", *SURFACES, *_STRICT_COLUMNS[1:]]
        )
    wide = pd.concat(parts, axis=1).reset_index(names="model").assign(study=STUDY)
    for column in (*SURFACES, *_STRICT_COLUMNS[1:]):
        if column not in wide:
            wide[column] = 0.0 if column in SURFACES else float("nan")
    info = model_info(scored(trials[trials["study"] == STUDY])) if not trials.empty else None
    if info is not None and not info.empty:
        wide = wide.merge(info, on=["study", "model"], how="left")
    else:
        wide = wide.assign(params_b=float("nan"), is_base=False)
    wide["is_base"] = wide["is_base"].fillna(False).astype(bool)
    return order_models(wide)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from the ``boundary`` topic (model sizes from ``trials``) into ``out``."""
    wide = table(trials, inputs)
    fig, axes = panels(2, ncols=2, width=3.8, height=max(2.4, 1.2 + 0.3 * len(wide)))
    left, right = axes
    has_calls = not wide.empty and wide[list(SURFACES)].to_numpy().sum() > 0
    if has_calls:
        labels = [model_label(m, b) for m, b in zip(wide["model"], wide["is_base"], strict=True)]
        stacked_shares(left, wide.assign(label=labels).set_index("label"), SURFACES)
        left.set_xlabel("share of recorded tool calls")
    else:
        no_data(left, "no recorded tool calls")
    left.set_title("Surface forms of the calls")
    if not wide.empty and wide["share"].notna().any():
        hbar_models(right, wide, "share", study=STUDY)
        right.set_xlabel("share of accepted calls strict parsing refuses")
    elif not wide.empty and wide["responses"].fillna(0).sum() > 0:
        no_data(right, "no accepted calls in the replay")
    else:
        no_data(right, "no strict replay")
    right.set_title("Refused under strict parsing")
    shared_legend(fig, axes)
    fig.suptitle("Surface forms and the strict parser", fontsize=9)
    save(fig, out)
