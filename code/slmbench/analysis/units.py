"""The independent unit of a statistic: repeats of a trial that cannot differ count once.

A trial repeated at temperature 0 with the same model, task, variant, perturbation and condition on one build
replays the same greedy arithmetic: its repeats are not samples, and ``k`` of them carry the information of one
(``docs/design.md``: a repeat that cannot differ is one unit). ``collapse_repeats`` keeps one row per unit, that
of its first repeat (as the null control pairs a task's first repeat), with how many repeats it had and whether
they were identical in outcome and transcript, so that every statistic counts the unit once and the text can say
which repeats differed, if any.

What makes a unit:

- the columns of ``REPLAY`` (a column the table lacks is left out) and the build: the identity of the portable
  build, on which one prompt gets one greedy reply on every host;
- under a build label ``native/<CPU>`` (a record from before the portable build) or no build at all, also the
  shard (``SHARD``: suite and rerun): such a label names a CPU, not a build, and only the runs of one shard are
  known to have run on one;
- above temperature 0 a trial is a sample, a unit of its own.

Units that share a task are not independent either: ``CLUSTER`` names what a rate or a paired test over a
reliability dimension clusters them by (a model's task, whose rephrasings or fault kinds are variants of it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from slmbench.records.fingerprint import NATIVE_BUILD

REPLAY: tuple[str, ...] = (
    "study", "model", "task_id", "variant", "perturbation", "temperature", "scaffold", "parser_mode", "protocol",
    "max_turns", "max_tokens", "n_ctx", "backend", "served_by", "file_sha256",
)  # fmt: skip
"""What a trial's greedy replay depends on besides the build: its model and prompt, its decoding temperature and
the harness condition it ran in."""
SHARD: tuple[str, ...] = ("suite", "rerun")
"""What names a shard beside ``REPLAY`` (its model, temperature and condition): the runs that one process made."""
CLUSTER: list[str] = ["model", "task_id"]
"""A model's task: the cluster of the units of its variants (original prompt, rephrasings, fault kinds)."""
UNIT_COLUMNS = ("n_repeats", "identical", "same_outcome", "unit_trials")
"""The columns ``collapse_repeats`` adds."""


def known_build(df: pd.DataFrame) -> pd.Series:
    """Whether each row's ``build`` is a build identity (not missing, not a ``native/<CPU>`` label)."""
    if "build" not in df.columns:
        return pd.Series(False, index=df.index)
    build = df["build"].astype(object)
    return build.notna() & ~build.astype(str).str.startswith(NATIVE_BUILD)


def unit_ids(df: pd.DataFrame) -> pd.Series:
    """One integer per row of ``df``, equal for the rows of one unit (the module docstring's rule)."""
    if df.empty:
        return pd.Series(np.zeros(0, dtype=np.int64), index=df.index)
    parts: dict[str, pd.Series] = {c: df[c].astype(object) for c in REPLAY if c in df.columns}
    parts["_build"] = df["build"].astype(object) if "build" in df.columns else pd.Series(None, index=df.index)
    known = known_build(df)
    for c in SHARD:
        if c in df.columns:
            parts[f"_{c}"] = df[c].astype(object).where(~known, None)
    temperature = (
        pd.to_numeric(df["temperature"], errors="coerce")
        if "temperature" in df.columns
        else pd.Series(0.0, index=df.index)
    )
    sample = temperature.fillna(0.0).to_numpy() > 0
    parts["_sample"] = pd.Series(np.where(sample, np.arange(len(df)), -1), index=df.index)
    frame = pd.DataFrame(  # a missing value is a value of its own
        {c: v.astype(object).where(v.notna(), "\x00") for c, v in parts.items()}, index=df.index
    )
    return frame.groupby(list(frame.columns), sort=False).ngroup()


def collapse_repeats(df: pd.DataFrame, transcript: str | None = None) -> pd.DataFrame:
    """One row per unit of ``df``: its first repeat's row (lowest ``repeat``; the index is that row's), with
    ``n_repeats`` (its trials), ``same_outcome`` (they agree on the outcome), ``identical`` (and on the column
    ``transcript``, the hash of the model's replies, where the caller reads it: a topic names the large text
    columns it reads) and ``unit_trials`` (every trial id of the unit, for a provenance record). The rows keep
    ``df``'s order of first repeats."""
    if df.empty:
        return df.assign(**{c: pd.Series(dtype=object) for c in UNIT_COLUMNS})
    ids = unit_ids(df)
    order = ids.to_frame("_unit")
    if "repeat" in df.columns:
        order["_repeat"] = pd.to_numeric(df["repeat"], errors="coerce")
    order["_pos"] = np.arange(len(df))
    order = order.sort_values([c for c in ("_unit", "_repeat", "_pos") if c in order.columns], kind="stable")
    first = order.drop_duplicates("_unit").sort_values("_pos", kind="stable")
    units = first["_unit"].to_numpy()
    by_unit = order["_unit"]

    def agree(columns: tuple[str, ...]) -> np.ndarray:
        same = pd.Series(True, index=pd.Index(units))
        for column in columns:
            if column in df.columns:
                values = df[column].astype(object).fillna("\x00").reindex(order.index)
                same &= (values.groupby(by_unit, sort=False).nunique() == 1).reindex(units)
        return same.to_numpy(dtype=bool)

    out = df.loc[first.index].copy()
    out["n_repeats"] = by_unit.value_counts().reindex(units).to_numpy(dtype=int)
    out["same_outcome"] = agree(("outcome", "passed"))
    out["identical"] = agree(("outcome", "passed", *([transcript] if transcript else [])))
    ids_of = (
        df["trial_id"].astype(str).reindex(order.index).groupby(by_unit, sort=False).agg(tuple).reindex(units)
        if "trial_id" in df.columns
        else pd.Series([()] * len(units))
    )
    out["unit_trials"] = list(ids_of)
    return out


def unit_trial_ids(units: pd.DataFrame) -> list[str]:
    """Every trial id of the units of ``units`` (rows of ``collapse_repeats``): what a number over them read."""
    return [t for ids in units["unit_trials"] for t in ids] if len(units) else []


@dataclass(frozen=True)
class Repeats:
    """How the repeats that cannot differ behaved: ``units`` run more than once, ``identical`` of them in outcome
    and transcript, ``same_outcome`` of them in outcome, ``trials`` their trials and ``runs`` the most runs of
    one; ``differ`` names each unit whose repeats were not identical (model, task, variant)."""

    units: int
    identical: int
    same_outcome: int
    trials: int
    runs: int
    differ: tuple[tuple[str, str, str], ...]


def repeats(units: pd.DataFrame) -> Repeats:
    """``Repeats`` of ``units`` (rows of ``collapse_repeats``)."""
    rerun = units[units["n_repeats"].astype(int) > 1] if len(units) else units
    if rerun.empty:
        return Repeats(0, 0, 0, 0, 0, ())
    differ = tuple(
        (str(m), str(t), str(v))
        for m, t, v, same in zip(
            rerun["model"], rerun["task_id"], rerun["variant"], rerun["identical"], strict=True
        )
        if not same
    )
    return Repeats(
        units=len(rerun),
        identical=int(rerun["identical"].astype(bool).sum()),
        same_outcome=int(rerun["same_outcome"].astype(bool).sum()),
        trials=int(rerun["n_repeats"].astype(int).sum()),
        runs=int(rerun["n_repeats"].astype(int).max()),
        differ=differ,
    )


def cluster_shares(units: pd.DataFrame, cluster: list[str] | None = None) -> pd.Series:
    """Each cluster's pass share over its units (index: ``cluster``, a model's task by default): the one outcome
    a rate or a test over clusters counts per cluster."""
    by = CLUSTER if cluster is None else cluster
    if units.empty:
        return pd.Series(dtype=float)
    ok = units["passed"].astype(bool).astype(float)
    return ok.groupby([units[c].astype(str) for c in by], sort=True).mean()
