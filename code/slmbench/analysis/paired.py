"""Two conditions of the same tasks, paired trial by trial: accuracies, McNemar, bootstrap, failure shift.

A pair is one (model, suite, task, variant, temperature, repeat) run under the study's primary condition
and under one other condition (another scaffold, a smaller context window), neither an infrastructure error.
Every pooled key is emitted whatever the data (``n/a`` without pairs), so the paper never meets an undefined
key; per-model keys exist for models with pairs.

Each side's numbers select exactly that side's paired trials (``Sides``); numbers over pairs (the difference,
McNemar, the bootstrap) count pairs and select the trials of both sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.paired_failures import failure_shares, no_accepted_call
from slmbench.analysis.selection import Condition, Selection, holds_ids, positions_of, rows_of, selection_at
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap
from slmbench.analysis.stats_equivalence import Equivalence, tost_paired_binary
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.stats_tests import mcnemar_p
from slmbench.vocab import DEFAULT_EQUIVALENCE_MARGIN

PAIR_KEY: list[str] = ["model", "suite", "task_id", "variant", "temperature", "repeat"]
_KEEP = ["passed", "failure_class", "stop_reason", "n_tool_calls", "cpu", "build", "rerun"]
_RUN = ["build", "rerun"]
"""Where a trial ran beyond its key: a side may hold one trial per key on each build (a rerun)."""
_WILSON = wilson_interval
_MCNEMAR = mcnemar_p
_TOST = tost_paired_binary
_BOOT = cluster_bootstrap
Role = Literal["primary", "other"]


def _merged(first: Condition, second: Condition) -> Condition | None:
    """One condition that both conditions meet (plain values only), or None."""
    if first == second:
        return first
    if isinstance(first, dict) or isinstance(second, dict):
        return None
    values = [
        *(first if isinstance(first, list) else [first]),
        *(second if isinstance(second, list) else [second]),
    ]
    return sorted(set(values), key=str)


@dataclass(frozen=True)
class Sides:
    """The trials table the pairs come from and a selection that picks each condition's trials (a superset of
    the paired ones: the study and the scaffold, window or protocol of that side)."""

    trials: pd.DataFrame
    primary: Selection
    other: Selection

    def of(self, pairs: pd.DataFrame, role: Role, failed: bool = False) -> Selection:
        """The selection of exactly one side's trials of ``pairs`` (with ``failed``: its failed ones)."""
        rows = pairs[~pairs["p_pass" if role == "primary" else "o_pass"]] if failed else pairs
        return selection_at(self.trials, self._positions(rows, role), getattr(self, role))

    def pairs(self, first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
        """``paired(first, second)`` with each side's row position in ``trials`` (``row_p``, ``row_o``) in place
        of its trial id: selecting a part of the pairs then needs no trial-id lookup (at a million trials,
        hundreds of lookups took seconds). The positions come from the frames' index where they are rows of
        ``trials`` (their trial ids checked), else from their trial ids; trial ids are kept where the table's
        are not unique."""
        found = [self._rows(frame) for frame in (first, second)]
        if any(rows is None for rows in found):
            return paired(first, second)
        pairs = paired(*(frame.assign(row=rows) for frame, rows in zip((first, second), found, strict=True)))
        return pairs.drop(columns=["trial_id_p", "trial_id_o"])

    def _rows(self, frame: pd.DataFrame) -> np.ndarray | None:
        """Each row's position in ``trials``: by its index label when the frame's rows are rows of ``trials``
        (checked by trial id), else by trial id; None where ``trials``' trial ids are not unique."""
        if self.trials.index.is_unique:
            rows = self.trials.index.get_indexer(frame.index)
            if (rows >= 0).all() and holds_ids(self.trials, rows, frame["trial_id"]):
                return rows
        return rows_of(self.trials, frame["trial_id"])

    def _positions(self, pairs: pd.DataFrame, role: Role | Literal["both"]) -> np.ndarray:
        """Sorted row positions in ``trials`` of one side's trials of ``pairs``, or of both sides'."""
        sides = ("_p", "_o") if role == "both" else ("_p" if role == "primary" else "_o",)
        if all(f"row{side}" in pairs for side in sides):
            return np.unique(np.concatenate([pairs[f"row{side}"].to_numpy() for side in sides]))
        return positions_of(self.trials, pd.concat([pairs[f"trial_id{side}"] for side in sides]))

    def within(self, extra: Selection) -> Sides:
        """The same sides narrowed by ``extra`` on both (e.g. the models pooled)."""
        return Sides(self.trials, {**self.primary, **extra}, {**self.other, **extra})

    def both(self, pairs: pd.DataFrame) -> Selection:
        """The selection of exactly the trials of both sides of ``pairs``."""
        base = {
            column: cond
            for column in self.primary.keys() & self.other.keys()
            if (cond := _merged(self.primary[column], self.other[column])) is not None
        }
        return selection_at(self.trials, self._positions(pairs, "both"), base)


def paired(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """One row per pair: the key, model info, ``p_pass``/``o_pass``, each side's failure class and trial id
    (``trial_id_p``/``trial_id_o``).

    ``first`` holds the primary condition's trials, ``second`` the other condition's; infra errors are
    dropped from both before pairing. Where a side ran a key more than once (a rerun on another kind of CPU),
    the pair is the one whose two trials ran on one kind of CPU, else the one of the original runs.
    """
    cols = [c for c in (*_KEEP, "trial_id", "row") if c in first.columns and c in second.columns]
    a = first.loc[first["outcome"] != "infra_error", [*PAIR_KEY, *cols, "params_b", "is_base"]]
    b = second.loc[second["outcome"] != "infra_error", [*PAIR_KEY, *cols]]
    run = [c for c in _RUN if c in cols]
    for frame, name in ((a, "first"), (b, "second")):
        if frame.duplicated([*PAIR_KEY, *run]).any():
            raise ValueError(f"the {name} condition holds two trials of one key {PAIR_KEY + run}")
    both = _one_per_key(a.merge(b, on=PAIR_KEY, suffixes=("_p", "_o")))
    for c in ("failure_class", "stop_reason"):
        for side in ("_p", "_o"):
            if c + side not in both:
                both[c + side] = None
    return both.assign(
        p_pass=both["passed_p"].astype(bool), o_pass=both["passed_o"].astype(bool)
    ).reset_index(drop=True)


def cross_cpu(pairs: pd.DataFrame) -> pd.Series:
    """Per pair, whether its two trials ran on different builds (False where either is unknown): a native build
    is named by its kind of CPU, so for trials from before the portable build this is a different kind of CPU."""
    if "build_p" not in pairs or "build_o" not in pairs:
        return pd.Series(False, index=pairs.index)
    p, o = pairs["build_p"].astype(object), pairs["build_o"].astype(object)
    return p.notna() & o.notna() & (p != o)


def _one_per_key(both: pd.DataFrame) -> pd.DataFrame:
    """One candidate pair per key: two trials on one build first, then original runs before reruns."""
    if both.empty or not both.duplicated(PAIR_KEY).any():
        return both
    rank = pd.DataFrame(index=both.index)
    if "build_p" in both:
        p, o = both["build_p"].astype(object), both["build_o"].astype(object)
        rank["cross_cpu"] = ~(p.notna() & (p == o))  # an unknown build ranks with the crossing pairs
    for side in ("_p", "_o"):
        if f"rerun{side}" in both:
            rank[f"rerun{side}"] = both[f"rerun{side}"].notna()
    rank["order"] = np.arange(len(both))
    chosen = rank.sort_values(list(rank.columns)).index
    return both.loc[chosen].drop_duplicates(PAIR_KEY).sort_index()


def cells(pairs: pd.DataFrame) -> tuple[int, int, int, int]:
    """McNemar cells: both pass, only the primary, only the other, neither."""
    p, o = pairs["p_pass"], pairs["o_pass"]
    return int((p & o).sum()), int((p & ~o).sum()), int((~p & o).sum()), int((~p & ~o).sum())


def diff(pairs: pd.DataFrame) -> float:
    """Other-minus-primary accuracy over the pairs."""
    if pairs.empty:
        return math.nan
    return float(pairs["o_pass"].mean() - pairs["p_pass"].mean())


def _pooled_diff(draw: Draw) -> float:
    """``diff`` from the drawn models' counts (``n``, ``p``, ``o``: pairs, primary passes, other passes)."""
    n = draw["n"].sum()
    return float(draw["o"].sum() / n - draw["p"].sum() / n) if n else math.nan


def unit(pairs: pd.DataFrame) -> tuple[str, str]:
    """What one pair is, singular and plural: a task (one model's pairs, one per task), a task-model pair (one per
    task and model), or a paired trial (a task paired more than once: its variants or repeats)."""
    per_task = [c for c in ("model", "suite", "task_id") if c in pairs]
    if pairs.duplicated(per_task).any():
        return "paired trial", "paired trials"
    if pairs["model"].nunique() > 1:
        return "task--model pair", "task--model pairs"
    return "task", "tasks"


def equivalence(
    prefix: str, pairs: pd.DataFrame, selection: Selection, what: str, alpha: float, margin: float
) -> tuple[list[Number], Equivalence]:
    """TOST of the paired difference within ``margin`` (``stats_equivalence``): its ``1 - 2 alpha`` score interval
    (``<prefix>.diff.lo``/``.hi``), the TOST p, whether equivalence is shown, the margin, and the phrase
    (``<prefix>.equiv.…``). ``selection`` selects both sides' trials of ``pairs``."""
    _, only_p, only_o, _ = cells(pairs)
    eq = tost_paired_binary(only_p, only_o, len(pairs), margin, alpha)
    level = 1 - 2 * alpha
    prov = nb.provenance(
        _TOST,
        selection,
        f"TOST of the paired difference, {what} vs the primary condition, within the equivalence margin",
        unit="pairs",
        margin=margin,
        alpha=alpha,
        level=level,
    )
    text = phrases.equivalence_phrase(
        eq.n, unit(pairs), eq.difference, eq.lo, eq.hi, eq.p, margin, level, eq.equivalent
    )
    out = [
        nb.rate(f"{prefix}.diff.lo", eq.lo, prov),
        nb.rate(f"{prefix}.diff.hi", eq.hi, prov),
        nb.pvalue(f"{prefix}.equiv.p", eq.p, prov),
        nb.flag(f"{prefix}.equiv.shown", eq.equivalent, prov),
        nb.rate(f"{prefix}.equiv.margin", margin, prov),
        nb.text(f"{prefix}.equiv.phrase", text, prov),
    ]
    return out, eq


def block(
    prefix: str,
    pairs: pd.DataFrame,
    sides: Sides,
    what: str,
    alpha: float,
    both_sides: Selection | None = None,
    margin: float = DEFAULT_EQUIVALENCE_MARGIN,
) -> tuple[list[Number], dict[str, Any]]:
    """Both accuracies, the paired difference, the discordant counts, McNemar's p and the TOST of equivalence
    within ``margin`` (``equivalence``) of one set of pairs.

    Each accuracy selects its side's paired trials; the numbers over pairs select both sides' trials
    (``both_sides``: that selection, when the caller made it already).
    """
    both, only_p, only_o, neither = cells(pairs)
    n = len(pairs)
    rp = wilson_interval(both + only_p, n, alpha)
    ro = wilson_interval(both + only_o, n, alpha)
    out = nb.rate_numbers(
        f"{prefix}.primary.acc",
        rp,
        nb.provenance(_WILSON, sides.of(pairs, "primary"), "accuracy of the pairs, primary condition"),
    )
    out += nb.rate_numbers(
        f"{prefix}.other.acc",
        ro,
        nb.provenance(_WILSON, sides.of(pairs, "other"), f"accuracy of the pairs, {what}"),
    )
    p = mcnemar_p(both, only_p, only_o, neither) if n else math.nan
    mprov = nb.provenance(
        _MCNEMAR,
        sides.both(pairs) if both_sides is None else both_sides,
        f"exact McNemar test, {what} vs the primary condition",
        unit="pairs",
        exact=True,
    )
    out += [
        nb.count(f"{prefix}.n.pairs", n, mprov),
        nb.count(f"{prefix}.n.only-primary", only_p, mprov),
        nb.count(f"{prefix}.n.only-other", only_o, mprov),
        nb.rate(f"{prefix}.diff", diff(pairs), mprov),
        nb.pvalue(f"{prefix}.mcnemar.p", p, mprov),
    ]
    nums, eq = equivalence(prefix, pairs, mprov["selection"], what, alpha, margin)
    out += nums
    row = {
        "n": n, "only_primary": only_p, "only_other": only_o, "p": p, "diff_lo": eq.lo, "diff_hi": eq.hi,
        "equiv_p": eq.p, "equivalent": eq.equivalent,
    }  # fmt: skip
    for role, r in (("primary", rp), ("other", ro)):
        row.update({f"{role}_k": r.k, f"{role}_acc": r.rate, f"{role}_lo": r.lo, f"{role}_hi": r.hi})
    return out, row


def comparison(
    prefix: str,
    pairs: pd.DataFrame,
    sides: Sides,
    names: tuple[str, str],
    params: dict[str, Any],
) -> TopicResult:
    """Everything a paired comparison reports: pooled and per-model blocks, bootstrap, failure shares and the
    failed trials with no accepted call (``paired_failures``), and how many pairs crossed kinds of CPU
    (``<prefix>.n.cross-cpu``: greedy replies can differ between them).

    Args:
        prefix: Key prefix of the topic (``scaf``, ``ctx``).
        pairs: Output of ``paired``.
        sides: The trials table and the selection of each condition.
        names: Display names of the primary and the other condition.
        params: Topic parameters (``alpha``, ``bootstrap_seed``, ``n_boot``, ``equivalence_margin``).
    """
    alpha, seed, n_boot = params["alpha"], params["bootstrap_seed"], params["n_boot"]
    margin = float(params["equivalence_margin"])
    res = TopicResult()
    sel = sides.both(pairs)
    prov = nb.provenance(paired, sel, "the two conditions compared", unit="pairs")
    res.numbers += [
        nb.text(f"{prefix}.primary.name", names[0], prov),
        nb.text(f"{prefix}.other.name", names[1], prov),
        nb.count(f"{prefix}.n.models", pairs["model"].nunique(), prov),
        nb.count(f"{prefix}.n.tasks", pairs["task_id"].nunique(), prov),
        nb.count(f"{prefix}.n.cross-cpu", int(cross_cpu(pairs).sum()), prov),
    ]
    nums, row = block(prefix, pairs, sides, names[1], alpha, sel, margin)
    res.numbers += nums
    change = phrases.change_phrase(row["only_primary"], row["only_other"], row["p"], names[0], names[1])
    res.numbers.append(nb.text(f"{prefix}.phrase.change", change, prov))
    estimate = diff(pairs)
    # Each model's pair count and passes, once: a resample sums the drawn models' counts (the same difference
    # as over the stacked pairs: both means are counts over the pairs).
    per_model = pairs.groupby("model", sort=True).agg(
        n=("p_pass", "size"), p=("p_pass", "sum"), o=("o_pass", "sum")
    )
    boot = cluster_bootstrap(
        per_model.reset_index(),
        _pooled_diff,
        finding=lambda v: v != 0 and math.copysign(1, v) == math.copysign(1, estimate),
        n_resamples=n_boot,
        seed=seed,
        alpha=alpha,
    )
    bprov = nb.provenance(
        _BOOT,
        sel,
        "paired accuracy difference, models resampled",
        unit="pairs",
        bootstrap_seed=seed,
        alpha=alpha,
    )
    kept = boot.kept if math.isfinite(estimate) and estimate != 0 else math.nan
    res.numbers += [
        nb.rate(f"{prefix}.boot.diff.lo", boot.lo, bprov),
        nb.rate(f"{prefix}.boot.diff.hi", boot.hi, bprov),
        nb.rate(f"{prefix}.boot.diff.kept", kept, bprov),
        nb.count(f"{prefix}.boot.n-clusters", boot.n_clusters, bprov),
        nb.count(f"{prefix}.boot.n-valid", boot.n_valid, bprov),
        nb.text(
            f"{prefix}.phrase.boot",
            phrases.resampled_phrase(boot.lo, boot.hi, boot.n_clusters, boot.n_valid, n_boot),
            bprov,
        ),
    ]
    table: list[dict[str, Any]] = []
    for model, part in pairs.groupby("model", sort=True):
        key = f"{prefix}.model.{nb.slug(model)}"
        nums, row = block(key, part, sides, names[1], alpha, margin=margin)
        res.numbers += nums
        res.numbers += no_accepted_call(key, part, sides, names, alpha)
        info = part.iloc[0]
        bprov = nb.provenance("config is_base", sides.both(part), "base (non-instruct) model", unit="pairs")
        res.numbers.append(nb.flag(f"{key}.base", bool(info["is_base"]), bprov))
        table.append({"model": model, "params_b": info["params_b"], "is_base": bool(info["is_base"]), **row})
    res.tables["pairs"] = sorted(table, key=lambda r: (r["params_b"], r["model"]))
    nums, rows = failure_shares(prefix, pairs, sides, names, alpha)
    res.numbers += nums
    res.numbers += no_accepted_call(prefix, pairs, sides, names, alpha)
    res.tables["failure_classes"] = rows
    return res
