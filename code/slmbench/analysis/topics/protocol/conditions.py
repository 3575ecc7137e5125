"""The protocol study's conditions: our capability trials under one protocol and limits, each declared as a
selection first, with the rows it picks.

Every condition shares the study's capability trials in the primary scaffold and parser mode (``capability``) on
each model's own backend (the serving comparison's trials are topic ``serving``'s), their largest context window,
the study's usual limits (the most common values) and its lowest temperature.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis.memo import TableMemo
from slmbench.analysis.selection import Selected, Selection
from slmbench.analysis.selection.language import plain
from slmbench.analysis.topics.common import SCORED
from slmbench.analysis.topics.registry import large_text_read
from slmbench.vocab import STUDY_ID

LEGACY = "legacy"
FULL = "full"
RERUN_KEY = "rerun"
"""Comparison keys ``rerun-<label>``: a rerun of the full protocol against its original run."""
SCOPE: Selection = {"study": STUDY_ID, "suite": "capability"}
"""What every number of the topic selects from: our study's capability trials."""
LIMITS = ("max_turns", "max_tokens")

_READ = (
    "trial_id", "study", "suite", "model", "task_id", "group", "variant", "temperature", "repeat", "protocol",
    "conditions",
    "n_ctx", "max_turns", "max_tokens", "scaffold", "parser_mode", "primary", "params_b", "is_base", "passed",
    "outcome", "failure_class", "stop_reason", "closing_answer", "answer_channel", "n_stuck", "transcript_sha256",
    "harm", "cpu", "build",
    "rerun", "server", "first_request_sha256", "first_reply_sha256",
)  # fmt: skip
"""The columns of the trials the comparisons, repeats and floors read."""
_memo: TableMemo[dict[Hashable, Any]] = TableMemo(lambda _: {})
"""What this topic derived from a trials table (kept while the table lives)."""


def capability(trials: pd.DataFrame) -> tuple[Selected, dict[str, Any]]:
    """What every condition shares (computed once per table): our capability trials in the primary scaffold and
    parser mode, and the facts of the study: their largest context window (``n_ctx``), the usual limits (the
    most common values, as series: empty when no trial has one) and the lowest temperature (none of them when
    there are no such trials)."""
    memo = _memo(trials)
    if "capability" not in memo:
        mask = ((trials["study"] == STUDY_ID) & (trials["suite"] == "capability")).to_numpy(dtype=bool)
        selection = dict(SCOPE)
        if "server" in trials and trials["server"].notna().any():  # the serving comparison's trials
            mask = mask & trials["server"].isna().to_numpy(dtype=bool)
            selection["server"] = None
        facts: dict[str, Any] = {}
        selected = Selected(dict(selection), trials.iloc[:0])
        if mask.any():
            main = mask & trials["primary"].to_numpy(dtype=bool) if "primary" in trials else mask
            keep = mask.copy()
            for column in ("scaffold", "parser_mode"):
                value = trials[column][main if main.any() else mask].mode().iloc[0]
                keep &= (trials[column] == value).to_numpy(dtype=bool)
                selection[column] = plain(value)
            read = [c for c in _READ if c in trials]
            ours = trials.loc[keep, read]  # one copy of the rows it reads (each row filter copies them)
            # compared for equality only: as codes, a filter copies numbers
            for column in large_text_read("protocol"):
                if column in ours:
                    ours[column] = _codes(ours[column])
            selected = Selected(selection, ours)
            facts = {
                "n_ctx": ours["n_ctx"].max(),
                "max_turns": trials["max_turns"].dropna().mode(),
                "max_tokens": trials["max_tokens"].dropna().mode(),
                "temperature": trials["temperature"].min(),
            }
        memo["capability"] = (selected, facts)
    return memo["capability"]  # type: ignore[no-any-return]


def _codes(text: pd.Series) -> pd.Series:
    """Equal values as equal numbers, a missing value as NaN (grouping and equality give what the text
    gives)."""
    codes, _ = pd.factorize(text, use_na_sentinel=True)
    return pd.Series(np.where(codes < 0, np.nan, codes), index=text.index)


def condition_rows(
    trials: pd.DataFrame,
    protocol: str,
    limits: dict[str, int] | None = None,
    all_temperatures: bool = False,
    reruns: bool = False,
) -> Selected:
    """Capability trials of our study under one protocol, primary scaffold and parser mode, given limits, at the
    lowest temperature (or at every temperature), with its reruns (e.g. on another kind of CPU) only when asked
    for: paired comparisons take them, so that each pair can run on one kind of CPU.

    ``limits`` (``max_turns``, ``max_tokens``) default to the most common value among the study's trials, so a
    limit ablation is selected only when asked for. The topic asks for the same conditions many times: each is
    computed once per table (callers never change the rows they get).
    """
    memo = _memo(trials)
    wanted = (protocol, tuple(sorted((limits or {}).items())), all_temperatures, reruns)
    if wanted not in memo:
        ours, facts = capability(trials)
        if ours.rows.empty:
            memo[wanted] = ours
        else:
            conditions: dict[str, Any] = {"protocol": protocol, "n_ctx": plain(facts["n_ctx"])}
            for column in LIMITS:
                conditions[column] = plain((limits or {}).get(column) or facts[column].iloc[0])
            if not all_temperatures:
                conditions["temperature"] = plain(facts["temperature"])
            if not reruns and "rerun" in ours.rows:
                conditions["rerun"] = None
            memo[wanted] = ours.where(conditions)
    return memo[wanted]  # type: ignore[no-any-return]


def scored_rows(trials: pd.DataFrame, protocol: str, all_temperatures: bool = False) -> Selected:
    """The scored trials (infra errors left out) of a protocol at its usual limits, first runs only."""
    return condition_rows(trials, protocol, all_temperatures=all_temperatures).where(SCORED)


def limit_values(trials: pd.DataFrame) -> dict[str, list[int]]:
    """Per limit, the values recorded other than the usual one (each a limit ablation)."""
    out = {}
    for column in LIMITS:
        values = sorted({int(v) for v in trials[column].dropna().unique()})
        usual = int(trials[column].dropna().mode().iloc[0]) if values else None
        out[column] = [v for v in values if v != usual]
    return out
