"""Topic ``rejudged``: the trials whose verdict in the paper differs from the one their record holds.

``tidy`` judges every trial of the study again from its record by the current checks; where the outcome it
gives differs from the record's, the trial keeps the record's (``recorded_outcome``) and the criteria whose
verdict changed (``rejudged_by``). This topic lists those trials, one table row each (``trials``), with the counts
the text prints (``rejudged.n.…``); the table ``rejudged`` prints the rows.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.selection import exclude, selection_for
from slmbench.analysis.topics import topic
from slmbench.judging.checks import TASK_RULE_KINDS
from slmbench.judging.criteria import CRITERION_KINDS
from slmbench.vocab import STUDY_ID

_CRITERION = re.compile(r"; (?=(?:" + "|".join((*CRITERION_KINDS, *TASK_RULE_KINDS)) + r"): )")
"""Where ``rejudged_by`` joins two criteria (``kind: detail; kind: detail``): before a kind of criterion or
task-level rule (a detail may hold ``; `` itself)."""
MAX_DETAIL = 40
"""Longest detail of a criterion the table prints in full; a longer one is cut before its first value."""


def rule_text(rejudged_by: str) -> str:
    """The criteria that changed a trial's verdict, as the table prints them: ``kind: detail`` each, a long detail
    cut before the values it lists (``repeated side effects {...}`` -> ``repeated side effects``)."""
    parts = []
    for part in _CRITERION.split(rejudged_by):
        kind, sep, detail = part.partition(": ")
        if not sep:
            parts.append(part)
            continue
        short = re.split(r" [\[{(]", detail, maxsplit=1)[0]
        if len(short) > MAX_DETAIL:
            short = short[:MAX_DETAIL].rsplit(" ", 1)[0] + "..."
        parts.append(f"{kind}: {short}")
    return "; ".join(parts)


def trial_label(trial_id: str, model: str) -> str:
    """A trial's id without the study and model it begins with (the table gives the model in its own column)."""
    return trial_id.removeprefix(f"{STUDY_ID}/").removeprefix(f"{model}/")


@topic(reads=("trials",), audit=("recorded_outcome", "rejudged_by"))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """The re-judged trials of the study: how many trials were judged from their records, how many verdicts
    changed (each way), and per changed trial its model, task, protocol, recorded and current outcome and the
    criteria that changed it (``rejudged.trial.<trial slug>.…``)."""
    res = TopicResult()
    ours = trials[trials["study"] == STUDY_ID] if "study" in trials else trials.iloc[0:0]
    missing = {c: None for c in ("recorded_outcome", "rejudged_by", "protocol") if c not in ours}
    ours = ours.assign(**missing)  # a table tidied before these columns existed: nothing was re-judged
    judged = ours[ours["recorded_outcome"].notna()]
    changed = judged[judged["outcome"] != judged["recorded_outcome"]]
    base = {"study": STUDY_ID}
    prov = nb.provenance(
        "len", {**base, "recorded_outcome": exclude(None)}, "trials judged again from their record"
    )
    cprov = nb.provenance(
        "len",
        selection_for(trials, changed["trial_id"], base),
        "trials whose verdict differs from their record's",
    )
    to_fail = int(((changed["recorded_outcome"] == "success") & (changed["outcome"] != "success")).sum())
    to_pass = int(((changed["recorded_outcome"] != "success") & (changed["outcome"] == "success")).sum())
    res.numbers += [
        nb.count("rejudged.n.judged", len(judged), prov),
        nb.count("rejudged.n.changed", len(changed), cprov),
        nb.count("rejudged.n.to-failure", to_fail, cprov),
        nb.count("rejudged.n.to-success", to_pass, cprov),
    ]
    rows: list[dict[str, Any]] = []
    for row in changed.sort_values("trial_id").itertuples(index=False):
        trial_id, model = str(row.trial_id), str(row.model)
        key = f"rejudged.trial.{nb.slug(trial_id)}"
        tprov = nb.provenance(
            "rejudged_by",
            selection_for(trials, [trial_id], base),
            f"the verdict of {trial_id}, recorded and now",
        )
        rule = rule_text(str(row.rejudged_by))
        values = {
            "model": model,
            "task": str(row.task_id),
            "protocol": row.protocol if isinstance(row.protocol, str) else "",
            "recorded": str(row.recorded_outcome),
            "now": str(row.outcome),
            "rule": rule,
        }
        res.numbers += [nb.text(f"{key}.{name}", value, tprov) for name, value in values.items()]
        res.labels[nb.slug(trial_id)] = trial_label(trial_id, model)
        rows.append({"trial_id": trial_id, **values, "rejudged_by": str(row.rejudged_by)})
    res.tables["trials"] = rows
    return res
