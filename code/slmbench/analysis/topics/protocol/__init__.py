"""Topic ``protocol``: how much of each model's failure is the harness protocol, and what remains.

Conditions are named protocols (``config.yaml`` ``protocols``) and limits (``conditions``). Every comparison
pairs trials task by task (``analysis.paired``) on the capability suite at the lowest temperature, repeat 0
unless both sides have more:
- ``full`` against ``legacy`` (the first dataset's protocol): the headline ablation;
- each leave-one-out protocol (``full-no-X``) against ``full``: what condition X does;
- ``full`` with a larger turn limit or token cap against ``full``;
- each rerun of ``full`` (on another kind of CPU) against its original run (``comparisons``).
For each: accuracy per side with Wilson intervals, exact McNemar per model and pooled, how many trials change
outcome and how many failures change class (``ablation``). Then, under ``full``: the legacy failures it fixes
and what remains, with the passes that came only through the closing turn (``attribution``); pass@k and pass^k
over the repeats and the transcript-level divergence of T=0 repeats (``repeats``); the temperature sweep,
each temperature against the lowest, tasks resampled, and the CPUs each ran on (``sweep``); whether one first
request got one first reply (``replies``); the smallest accuracy difference the design can detect
(``power``); and which headline results hold under both protocols (``floors``).

Each sub-analysis declares its rows as a selection first (``conditions``) and computes on them, so every
number's provenance is the selection it was computed from; only the trials of a pair, which no condition on
columns can name, are selected exactly from their rows (``analysis.selection.exact``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.selection.language import exclude
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import models_table
from slmbench.analysis.topics.protocol.ablation import ablation
from slmbench.analysis.topics.protocol.attribution import EXAMPLE_KINDS, attribution
from slmbench.analysis.topics.protocol.conditions import FULL, LEGACY, SCOPE, condition_rows
from slmbench.analysis.topics.protocol.floors import holds
from slmbench.analysis.topics.protocol.per_task import per_task
from slmbench.analysis.topics.protocol.power import detectable_difference, power
from slmbench.analysis.topics.protocol.repeats import repeat_pairs, repeats
from slmbench.analysis.topics.protocol.replies import first_replies
from slmbench.analysis.topics.protocol.sweep import sweep
from slmbench.vocab import STUDY_ID

__all__ = [
    "EXAMPLE_KINDS", "FULL", "LEGACY", "ablation", "attribution", "compute", "condition_rows",
    "detectable_difference", "first_replies", "holds", "per_task", "power", "repeat_pairs", "repeats", "sweep",
]  # fmt: skip

NEEDED = {"protocol", "max_turns", "max_tokens", "transcript_sha256", "closing_answer"}
"""The columns without which no trial of the table ran under a named protocol."""


@topic(reads=("trials",), large_text=("transcript_sha256", "first_request_sha256", "first_reply_sha256"))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """The protocol study's numbers and tables (see the module doc)."""
    p = with_defaults(params)
    res = TopicResult()
    if not NEEDED <= set(trials.columns) or not (trials["protocol"] == FULL).any():
        prov = nb.provenance("len", {"study": STUDY_ID, "protocol": FULL}, "trials under the full protocol")
        res.numbers.append(nb.count("proto.n.trials", 0, prov))
        return res
    ours = trials[(trials["study"] == STUDY_ID) & (trials["suite"] == "capability")]
    prov = nb.provenance("len", dict(SCOPE), "capability trials per protocol")
    study = ours["comparison"].isna() if "comparison" in ours else pd.Series(True, index=ours.index)
    primary = (
        ours["primary"].fillna(False).astype(bool)
        if "primary" in ours
        else pd.Series(False, index=ours.index)
    )
    own = {**SCOPE, "comparison": None, "primary": False}
    res.numbers.append(
        nb.count(
            "proto.n.trials",
            int((study & ~primary & (ours["protocol"] != LEGACY)).sum()),
            nb.provenance(
                "len",
                {**own, "protocol": exclude(LEGACY)},
                "the protocol study's trials but legacy and the primary ones (counted with the primary results)",
            ),
        )
    )
    res.numbers.append(nb.count("proto.n.protocols", ours["protocol"].nunique(), prov))
    res.tables["models"] = models_table(ours) if len(ours) else []
    ablation(res, trials, p["alpha"], float(p["equivalence_margin"]))
    attribution(res, trials, p["alpha"])
    repeats(res, trials, p["alpha"])
    sweep(res, trials, p["alpha"], p["bootstrap_seed"], p["n_boot"])
    first_replies(res, trials)
    power(res, trials, p["alpha"])
    holds(res, trials, p["alpha"], float(p["margin"]))
    res.tables["per_task"] = per_task(trials)
    return res
