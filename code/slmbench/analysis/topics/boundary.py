"""Topic ``boundary``: surface forms, repairs and refusals of the recorded calls, and the strict-parser replay.

Only the study's primary condition counts (the scaffold comparison is topic ``scaffold``). Every pooled key
is emitted whatever the data (``n/a`` where a denominator is empty), so the paper never meets an
undefined key. Categories that never occur still get their (zero) share; names outside the known lists count
as ``other``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from slmbench import vocab
from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, TopicResult, Unit
from slmbench.analysis.selection import isin, selection_for
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import primary_rows, scored
from slmbench.harness.replay import REPLAY_COLUMNS, replay_shards

logger = logging.getLogger(__name__)

STUDY = vocab.STUDY_ID
OTHER = "other"
SURFACES: tuple[str, ...] = (*vocab.SURFACES, OTHER)
# Repairs that can mark an accepted call (the sibling-required guard only ever refuses: code schema_invalid).
REPAIRS: tuple[str, ...] = (*vocab.CALL_REPAIRS, OTHER)
REFUSAL_CODES: tuple[str, ...] = (*vocab.REFUSAL_CODES, OTHER)
_WILSON = wilson_interval
_REPLAY = replay_shards
"""The event columns this topic reads (``run_topic`` reads no others: at a million trials the recorded
arguments alone are a hundred megabytes)."""
_REPLAY_READ: tuple[str, ...] = ("trial_id", "model", "recorded_accepted", "replay_accepted", "replay_mode")


def load_replay(source: str | Path | Mapping[str, Any] | None) -> pd.DataFrame | None:
    """The responses ``slmbench replay --mode strict`` replayed: its parquet file, or a document with ``mode``
    and ``rows``; None without one.

    Raises:
        ValueError: The replay is not a strict-mode replay.
    """
    if source is None:
        return None
    if isinstance(source, Mapping):
        mode, rows = source.get("mode"), pd.DataFrame(source.get("rows") or [], columns=REPLAY_COLUMNS)
    else:
        present = set(pq.read_schema(source).names)
        rows = pd.read_parquet(source, columns=[c for c in _REPLAY_READ if c in present])
        modes: list[Any] = sorted(rows["replay_mode"].unique()) if "replay_mode" in rows else []
        mode = modes[0] if len(modes) == 1 else ("strict" if not modes else modes)
    if mode != "strict":
        raise ValueError(f"{source}: expected a replay in mode 'strict', got {mode!r}")
    return rows


def _events_of(events: pd.DataFrame | None, df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Events of type ``kind`` of the trials in ``df``, with the trial's model and parser mode attached."""
    if events is None or events.empty or df.empty:
        return pd.DataFrame(columns=["trial_id", "model", "trial_mode", "surface", "code", "repairs"])
    ev = events[(events["type"] == kind) & isin(events["trial_id"], df["trial_id"])]
    info = df[["trial_id", "model", "parser_mode"]].rename(columns={"parser_mode": "trial_mode"})
    return ev[["trial_id", "surface", "code", "repairs"]].merge(info, on="trial_id", how="left")


def _flags(values: pd.Series, known: tuple[str, ...]) -> pd.DataFrame:
    """One boolean column per category of ``known``; values outside it count as ``other``."""
    mapped = values.where(values.isin(known[:-1]), OTHER)
    return pd.DataFrame({c: (mapped == c).to_numpy(dtype=bool) for c in known}, index=values.index)


def _repair_flags(calls: pd.DataFrame) -> pd.DataFrame:
    """Per call: ``any`` repair, then one column per repair name (each distinct list of repairs parsed once)."""
    codes, lists = pd.factorize(calls["repairs"], use_na_sentinel=False)
    names = [list(json.loads(p) or []) for p in lists]
    flags = {"any": [bool(rs) for rs in names]}
    for r in REPAIRS:
        if r == OTHER:
            flags[r] = [any(x not in REPAIRS for x in rs) for rs in names]
        else:
            flags[r] = [r in rs for rs in names]
    return pd.DataFrame({c: np.asarray(v, dtype=bool)[codes] for c, v in flags.items()}, index=calls.index)


def _shares(
    prefix: str,
    label: str,
    flags: pd.DataFrame,
    models: pd.Series,
    selection: dict[str, Any],
    what: str,
    alpha: float,
    unit: Unit,
    per_model: bool = False,
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Pooled share of each flag column with a Wilson interval (numbers), and per model (table rows; with
    ``per_model`` also numbers ``<prefix>.<category>.<model>``). ``n`` counts ``unit`` (calls or refusals);
    ``selection`` picks the trials they come from."""
    out: list[Number] = []
    for cat in flags.columns:
        r = wilson_interval(int(flags[cat].sum()), len(flags), alpha)
        prov = nb.provenance(
            _WILSON, selection, f"share of {what} with {label} {cat}", unit=unit, alpha=alpha
        )
        out += nb.rate_numbers(f"{prefix}.{nb.slug(cat)}", r, prov)
    rows: list[dict[str, Any]] = []
    for model, part in flags.groupby(models.to_numpy(), sort=True):
        for cat in flags.columns:
            r = wilson_interval(int(part[cat].sum()), len(part), alpha)
            rows.append(
                {"model": model, label: cat, "k": r.k, "n": r.n, "share": r.rate, "lo": r.lo, "hi": r.hi}
            )
            if per_model:
                msel = {**selection, "model": model}
                prov = nb.provenance(
                    _WILSON, msel, f"share of {model}'s {what} with {label} {cat}", unit=unit, alpha=alpha
                )
                out.append(nb.rate(f"{prefix}.{nb.slug(cat)}.{nb.slug(model)}", r.rate, prov))
    return out, rows


def _replay_frame(
    rows: pd.DataFrame | None, df: pd.DataFrame, comparison: pd.Series
) -> tuple[pd.DataFrame, int]:
    """Replay rows of repaired-mode trials in ``df``, and the number of rows left unmatched.

    Rows of ``comparison`` trials (scaffold-comparison shards) are neither kept nor counted as unmatched.
    """
    cols = ["trial_id", "model", "recorded_accepted", "replay_accepted"]
    if rows is None or rows.empty:
        return pd.DataFrame(columns=cols), 0
    keep = isin(rows["trial_id"], df.loc[df["parser_mode"] == "repaired", "trial_id"])
    unmatched = int((~keep & ~isin(rows["trial_id"], comparison)).sum())
    if unmatched:
        logger.warning("%d replayed responses belong to no repaired-mode trial of the study", unmatched)
    return rows.loc[keep, cols].reset_index(drop=True), unmatched


def _replay_block(
    rows: pd.DataFrame, trials: pd.DataFrame, selection: dict[str, Any], source: str, alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Calls strict parsing would refuse, pooled and per model (``boundary.strict.lost.<model>``, with ``.k`` of
    ``.n``, the model's recorded accepted calls); trials whose
    every accepted call is lost. Both select the trials with a recorded accepted call."""
    rec = rows["recorded_accepted"].astype(int)
    rep = rows["replay_accepted"].astype(int)
    rows = rows.assign(rec=rec, lost=(rec - rep).clip(lower=0), gained=(rep - rec).clip(lower=0), responses=1)
    per_trial = rows.groupby(["model", "trial_id"], sort=True)[["rec", "lost"]].sum().reset_index()
    per_trial = per_trial[per_trial["rec"] > 0]
    per_trial = per_trial.assign(all_lost=per_trial["lost"] == per_trial["rec"])
    with_calls = selection_for(trials, per_trial["trial_id"], selection)
    fn_prov = nb.provenance(_REPLAY, selection, "strict replay of the recorded responses", replay=source)
    out = [
        nb.count("boundary.strict.n.responses", len(rows), fn_prov),
        nb.count("boundary.strict.n.gained", int(rows["gained"].sum()), fn_prov),
    ]
    r = wilson_interval(int(rows["lost"].sum()), int(rows["rec"].sum()), alpha)
    lost_prov = nb.provenance(
        _WILSON,
        with_calls,
        "share of recorded accepted calls strict parsing refuses",
        unit="calls",
        alpha=alpha,
        replay=source,
    )
    out += nb.rate_numbers("boundary.strict.lost", r, lost_prov)
    r = wilson_interval(int(per_trial["all_lost"].sum()), len(per_trial), alpha)
    prov = nb.provenance(
        _WILSON,
        with_calls,
        "trials with calls whose every accepted call strict refuses",
        alpha=alpha,
        replay=source,
    )
    out += nb.rate_numbers("boundary.strict.trials-all-lost", r, prov)
    table: list[dict[str, Any]] = []
    sums = rows.groupby("model", sort=True)[["responses", "rec", "lost", "gained"]].sum()
    for model, s in sums.iterrows():
        r = wilson_interval(int(s["lost"]), int(s["rec"]), alpha)
        trials_m = per_trial[per_trial["model"] == model]
        # the model's own trials with calls (the pooled exclusions, copied per model, would grow as models x N)
        msel = selection_for(trials, trials_m["trial_id"], {**selection, "model": model})
        out += nb.rate_numbers(f"boundary.strict.lost.{nb.slug(model)}", r, {**lost_prov, "selection": msel})
        table.append(
            {
                "model": model,
                "responses": int(s["responses"]),
                "recorded_accepted": int(s["rec"]),
                "lost": int(s["lost"]),
                "gained": int(s["gained"]),
                "share": r.rate,
                "lo": r.lo,
                "hi": r.hi,
                "trials_with_calls": len(trials_m),
                "trials_all_lost": int(trials_m["all_lost"].sum()),
            }
        )
    return out, table


@topic(reads=("trials", "events", "replay"), events=("trial_id", "type", "surface", "code", "repairs"))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Surface-form, repair and refusal-code shares (pooled with Wilson intervals, per model in tables).

    With ``params["replay"]`` (a strict-mode replay summary, path or document), also the share of recorded
    accepted calls that strict parsing would refuse and the trials that would lose every accepted call.
    Infra-error trials are excluded from every share.
    """
    p = with_defaults(params)
    alpha = p["alpha"]
    study, sel = primary_rows(trials, STUDY)
    df = scored(study)
    calls = _events_of(events, df, "tool_call")
    refusals = _events_of(events, df, "refusal")
    res = TopicResult()
    prov = nb.provenance("len", sel, "trials, recorded tool calls and refusals of our study")
    res.numbers += [
        nb.count("boundary.n.trials", len(df), prov),
        nb.count("boundary.n.models", df["model"].nunique(), prov),
        nb.count("boundary.n.infra-errors", int((study["outcome"] == "infra_error").sum()), prov),
        nb.count("boundary.n.calls", len(calls), prov),
        nb.count("boundary.n.refusals", len(refusals), prov),
        nb.count("boundary.n.trials-with-calls", calls["trial_id"].nunique(), prov),
    ]
    nums, rows = _shares(
        "boundary.surface",
        "surface",
        _flags(calls["surface"], SURFACES),
        calls["model"],
        selection_for(trials, calls["trial_id"], sel),
        "calls",
        alpha,
        "calls",
        per_model=True,
    )
    res.numbers += nums
    res.tables["surfaces"] = rows
    repaired = calls[calls["trial_mode"] == "repaired"]
    rsel = {**sel, "parser_mode": "repaired"}
    nums, rows = _shares(
        "boundary.repair",
        "repair",
        _repair_flags(repaired),
        repaired["model"],
        selection_for(trials, repaired["trial_id"], rsel),
        "accepted calls",
        alpha,
        "calls",
    )
    res.numbers += nums
    res.tables["repairs"] = rows
    nums, rows = _shares(
        "boundary.refusal",
        "code",
        _flags(refusals["code"], REFUSAL_CODES),
        refusals["model"],
        selection_for(trials, refusals["trial_id"], sel),
        "refusals",
        alpha,
        "refusals",
    )
    res.numbers += nums
    res.tables["refusals"] = rows
    doc = load_replay(p.get("replay"))
    source = (
        str(p["replay"])
        if isinstance(p.get("replay"), str | Path)
        else ("inline" if doc is not None else "none")
    )
    others = trials.loc[(trials["study"] == STUDY) & ~isin(trials["trial_id"], study["trial_id"]), "trial_id"]
    replay_rows, unmatched = _replay_frame(doc, df, others)
    prov = nb.provenance(_REPLAY, rsel, "whether a strict replay was given", replay=source)
    res.numbers += [
        nb.flag("boundary.strict.replayed", doc is not None, prov),
        nb.count("boundary.strict.n.unmatched", unmatched, prov),
    ]
    nums, rows = _replay_block(replay_rows, trials, rsel, source, alpha)
    res.numbers += nums
    res.tables["strict"] = rows
    return res
