"""Topic ``context``: the same tasks with the configured context window and with a smaller one, paired.

Besides the paired comparison (``analysis.paired``), it reports how many trials stopped because the
conversation no longer fitted the window, and each model's peak resident memory under both windows (the
largest value its paired trials recorded: the model runs in-process, so this is the loaded model with its KV
cache), over the same paired tasks on both sides.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.paired import Sides, comparison
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import primary_rows
from slmbench.vocab import STUDY_ID

STUDY = STUDY_ID
OVERFLOW = "context_overflow"
COMPARISON = "context"
"""The plan's part whose shards this topic pairs with the primary results (``slmbench.run.roles``)."""


def other_rows(trials: pd.DataFrame, primary: pd.DataFrame) -> tuple[pd.DataFrame, int | None]:
    """The trials the plan ran for the context comparison (``comparison`` = ``context``) with its smallest
    window."""
    if primary.empty or "comparison" not in trials.columns:
        return trials.iloc[0:0], None
    ours = trials[(trials["study"] == STUDY) & (trials["comparison"] == COMPARISON) & trials["n_ctx"].notna()]
    if ours.empty:
        return ours, None
    smallest = int(ours["n_ctx"].min())
    return ours[ours["n_ctx"] == smallest], smallest


def _overflow(pairs: pd.DataFrame, sides: Sides, alpha: float) -> list[Number]:
    """Share of paired trials stopped by a context overflow, per condition."""
    out: list[Number] = []
    for role, col in (("primary", "stop_reason_p"), ("other", "stop_reason_o")):
        r = wilson_interval(int((pairs[col] == OVERFLOW).sum()), len(pairs), alpha)
        prov = nb.provenance(
            wilson_interval,
            sides.of(pairs, "primary" if role == "primary" else "other"),
            f"paired trials stopped by context overflow ({role})",
        )
        out += nb.rate_numbers(f"ctx.overflow.{role}", r, prov)
    overflowed = pairs[pairs["stop_reason_o"] == OVERFLOW]
    r = wilson_interval(int((overflowed["stop_reason_p"] == "max_turns").sum()), len(overflowed), alpha)
    prov = nb.provenance(
        wilson_interval,
        sides.both(overflowed),
        "of the pairs stopped by overflow in the smaller window, the share that hit the turn limit anyway",
        unit="pairs",
    )
    out += nb.rate_numbers("ctx.overflow.was-turn-limit", r, prov)
    return out


def _memory(
    primary: pd.DataFrame, other: pd.DataFrame, pairs: pd.DataFrame, trials: pd.DataFrame
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Peak resident memory (MB) per model under both windows, over the paired trials only (the compared
    tasks: a primary trial of another suite ran with other prompts and may need more memory)."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    keys = ["model", "suite", "task_id"]
    tasks = pairs[keys].astype(str).drop_duplicates()
    wanted = pd.MultiIndex.from_frame(tasks)
    primary, other = (
        df[pd.MultiIndex.from_frame(df[keys].astype(str)).isin(wanted)] for df in (primary, other)
    )
    for model in sorted(set(primary["model"]) & set(other["model"])):
        row: dict[str, Any] = {"model": model}
        for role, df in (("primary", primary), ("other", other)):
            part = df[df["model"] == model]
            rss = float(part["peak_rss_mb"].max()) if part["peak_rss_mb"].notna().any() else math.nan
            n_ctx = part["n_ctx"].dropna()
            row[f"{role}_rss_mb"] = rss
            row[f"{role}_n_ctx"] = int(n_ctx.iloc[0]) if len(n_ctx) else None
            msel = selection_for(trials, part["trial_id"], {"study": STUDY, "model": model})
            prov = nb.provenance("max", msel, f"peak resident memory, {role} window (MB)")
            out.append(nb.stat(f"ctx.rss.{nb.slug(model)}.{role}", rss, prov, digits=0))
        rows.append(row)
    return out, rows


@topic(reads=("trials",))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Paired accuracy under the two windows, overflow stops, and peak memory per window."""
    p = with_defaults(params)
    primary, psel = primary_rows(trials, STUDY)
    other, n_ctx = other_rows(trials, primary)
    configured = sorted({int(v) for v in primary.get("n_ctx", pd.Series(dtype=float)).dropna()})
    names = (
        f"n_ctx {'/'.join(map(str, configured))}" if configured else "configured window",
        f"n_ctx {n_ctx}" if n_ctx else "smaller window",
    )
    sides = Sides(trials, psel, {"study": STUDY, "comparison": COMPARISON, "n_ctx": n_ctx})
    pairs = sides.pairs(primary, other)
    res = comparison("ctx", pairs, sides, names, p)
    prov = nb.provenance("min", sides.both(pairs), "the smaller context window compared", unit="pairs")
    res.numbers.append(nb.count("ctx.other.n-ctx", n_ctx or 0, prov))
    res.numbers += _overflow(pairs, sides, p["alpha"])
    nums, rows = _memory(primary, other, pairs, trials)
    res.numbers += nums
    res.tables["memory"] = rows
    return res
