"""Topic ``scaffold``: the same tasks in the primary scaffold and in the other one, paired task by task.

The other scaffold's trials are the shards the plan ran for this comparison (config.yaml's
``scaffold_comparison``, under the protocol it names). Accuracy in each scaffold has a Wilson interval; the paired difference (other minus primary) has an
exact McNemar test per model and pooled, and a cluster bootstrap by model (``analysis.paired``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.paired import Sides, comparison
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import primary_rows
from slmbench.vocab import SCAFFOLDS, STUDY_ID

STUDY = STUDY_ID
COMPARISON = "scaffold"
"""The plan's part whose shards this topic pairs with the primary results (``slmbench.run.roles``)."""


def scaffolds_of(primary: pd.DataFrame) -> tuple[str, str]:
    """The primary scaffold (that of the primary rows; ``native`` when none or mixed) and the other one."""
    found = sorted(primary["scaffold"].dropna().unique().tolist())
    first = found[0] if len(found) == 1 else "native"
    return first, next(s for s in SCAFFOLDS if s != first)


def other_rows(trials: pd.DataFrame, primary: pd.DataFrame, scaffold: str) -> pd.DataFrame:
    """The trials the plan ran for the scaffold comparison (``comparison`` = ``scaffold``) in ``scaffold``, of the
    models with primary results: under the protocol the config names for it (e.g. the scaffold's own forms of the
    primary protocol's conditions), at the primary parser mode and context window."""
    if primary.empty or "comparison" not in trials.columns:
        return trials.iloc[0:0]
    mask = (
        (trials["study"] == STUDY) & (trials["comparison"] == COMPARISON) & (trials["scaffold"] == scaffold)
    )
    return trials[mask & trials["model"].isin(primary["model"].unique())]


@topic(reads=("trials",))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Paired accuracy of the two scaffolds, per model and pooled, with tests and a cluster bootstrap."""
    p = with_defaults(params)
    primary, psel = primary_rows(trials, STUDY)
    names = scaffolds_of(primary)
    sides = Sides(trials, psel, {"study": STUDY, "comparison": COMPARISON, "scaffold": names[1]})
    pairs = sides.pairs(primary, other_rows(trials, primary, names[1]))
    return comparison("scaf", pairs, sides, names, p)
