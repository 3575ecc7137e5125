"""How much of each model's failure is the protocol: legacy failures that pass under full, the failures that
remain under full by class, passes through the closing turn (``proto.attr.<m>.…``), and the appendix's
example trials."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.paired import Sides
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics.protocol.conditions import FULL, LEGACY, condition_rows, scored_rows
from slmbench.vocab import FAILURE_CLASSES

_WILSON = wilson_interval
MECHANISMS: dict[str, str] = {
    "answer-tool": "answered through the answer tool",
    "closing-turn": "answered in the closing turn",
    "stuck": "was told that it repeated a call",
    "text": "answered in plain text",
}
"""What the full-protocol trial of a gained pair (failed under legacy, passed under full) used, read from its record:
the channel of its answer and whether a stuck observation was sent. A trial counts under its answer's channel and,
where it was told it was stuck, also under ``stuck``."""
EXAMPLE_KINDS = ("legacy-failed", "full-passed", "full-capability-failure")
"""The appendix's example transcripts per instruction-tuned model, in order: a task that failed under legacy
and passed under full (both trials of the pair), and a capability failure that remains under full."""


def attribution(res: TopicResult, trials: pd.DataFrame, alpha: float) -> None:
    """Per model: failures under legacy that pass under full (protocol), and the failures that remain."""
    legacy = condition_rows(trials, LEGACY, reruns=True)
    paired_full = condition_rows(trials, FULL, reruns=True)
    sides = Sides(trials, legacy.selection, paired_full.selection)
    pairs = sides.pairs(legacy.rows, paired_full.rows)
    full = scored_rows(trials, FULL)
    rows: list[dict[str, Any]] = []
    for model, part in pairs.groupby("model", sort=True):
        failed = part[~part["p_pass"]]
        fixed = int(failed["o_pass"].sum())
        r = wilson_interval(fixed, len(failed), alpha)
        key = f"proto.attr.{nb.slug(model)}"
        desc = "share of legacy failures that pass under the full protocol"
        prov = nb.provenance(_WILSON, sides.both(failed), desc, unit="pairs")
        res.numbers += nb.rate_numbers(f"{key}.protocol-share", r, prov)
        mine = full.where({"model": str(model)})
        remaining = mine.where({"passed": False})
        row = {"model": model, "legacy_failures": len(failed), "fixed": fixed, "remaining": len(remaining)}
        for cls in FAILURE_CLASSES:
            k = int((remaining.rows["failure_class"] == cls).sum())
            r_cls = wilson_interval(k, len(remaining), alpha)
            cls_prov = nb.provenance(_WILSON, remaining.selection, f"share of {cls}")
            res.numbers.append(nb.rate(f"{key}.remaining.{nb.slug(cls)}", r_cls.rate, cls_prov))
            row[cls] = r_cls.rate
        rprov = nb.provenance("len", remaining.selection, "failed trials under the full protocol")
        res.numbers.append(nb.count(f"{key}.remaining.n", len(remaining), rprov))
        passed = part[part["o_pass"]]
        closing = int(_side_column(trials, passed, "_o", "closing_answer").astype(bool).sum())
        desc = "passes of the paired full-protocol trials whose answer came in the closing turn"
        cprov = nb.provenance("count", sides.of(passed, "other"), desc, unit="pairs")
        res.numbers.append(nb.count(f"{key}.closing-passes", closing, cprov))
        row["closing_passes"] = closing
        rows.append(row)
    res.tables["attribution"] = rows
    res.tables["mechanisms"] = mechanisms(res, trials, sides, pairs)
    res.tables["examples"] = examples(trials, pairs)


def mechanisms(
    res: TopicResult, trials: pd.DataFrame, sides: Sides, pairs: pd.DataFrame
) -> list[dict[str, Any]]:
    """Which condition each gained pair's full-protocol trial actually used (``MECHANISMS``), and how its legacy
    trial ended, per instruction-tuned model and pooled over them (``proto.mech.<m|all>.…``; unit: task pairs)."""
    if not {"answer_channel", "n_stuck"} <= set(trials.columns):  # a table tidied before the records said it
        return []
    instruct = pairs[~pairs["is_base"].astype(bool)] if "is_base" in pairs else pairs
    gained_all = instruct[~instruct["p_pass"] & instruct["o_pass"]]
    rows: list[dict[str, Any]] = []
    groups = [(str(m), part) for m, part in gained_all.groupby("model", sort=True, observed=True)]
    for name, gained in [*groups, ("all", gained_all)]:
        channel = _side_column(trials, gained, "_o", "answer_channel").astype(object)
        stuck = _side_column(trials, gained, "_o", "n_stuck").fillna(0).astype(int) > 0
        legacy_end = _side_column(trials, gained, "_p", "stop_reason").astype(object)
        used = {
            "answer-tool": channel == "final_answer_tool",
            "closing-turn": channel == "closing_turn",
            "stuck": stuck,
            "text": channel == "text",
        }
        key = f"proto.mech.{nb.slug(name)}"
        sel = sides.of(gained, "other")
        res.numbers.append(
            nb.count(
                f"{key}.n", len(gained), nb.provenance("len", sel, "pairs gained under full", unit="pairs")
            )
        )
        row: dict[str, Any] = {"model": name, "gained": len(gained)}
        for mech, mask in used.items():
            desc = f"gained pairs whose full-protocol trial {MECHANISMS[mech]}"
            res.numbers.append(
                nb.count(f"{key}.{mech}", int(mask.sum()), nb.provenance("count", sel, desc, unit="pairs"))
            )
            row[mech] = int(mask.sum())
        turn_limit = int((legacy_end == "max_turns").sum())
        desc = "gained pairs whose legacy trial stopped at the turn limit"
        res.numbers.append(
            nb.count(
                f"{key}.legacy-turn-limit",
                turn_limit,
                nb.provenance("count", sides.of(gained, "primary"), desc, unit="pairs"),
            )
        )
        row["legacy_turn_limit"] = turn_limit
        rows.append(row)
    return rows


def examples(trials: pd.DataFrame, pairs: pd.DataFrame) -> list[dict[str, Any]]:
    """The trials of the appendix's examples (``EXAMPLE_KINDS``), by a fixed rule over the full-vs-legacy
    pairs of each instruction-tuned model: the first such task by task id."""
    out: list[dict[str, Any]] = []
    if pairs.empty:
        return out
    ids = {side: _trial_ids(trials, pairs, side) for side in ("_p", "_o")}
    pairs = pairs.assign(id_p=ids["_p"], id_o=ids["_o"]).sort_values(["model", "task_id"])
    for model, mine in pairs[~pairs["is_base"].astype(bool)].groupby("model", sort=True, observed=True):
        fixed = mine[~mine["p_pass"] & mine["o_pass"]]
        if len(fixed):
            first = fixed.iloc[0]
            for kind, side in zip(EXAMPLE_KINDS[:2], ("id_p", "id_o"), strict=True):
                out.append(
                    {"model": model, "task_id": first["task_id"], "kind": kind, "trial_id": first[side]}
                )
        remaining = mine[mine["failure_class_o"] == "capability"]
        if len(remaining):
            row = remaining.iloc[0]
            out.append(
                {"model": model, "task_id": row["task_id"], "kind": EXAMPLE_KINDS[2], "trial_id": row["id_o"]}
            )
    return out


def _trial_ids(trials: pd.DataFrame, pairs: pd.DataFrame, side: str) -> list[str]:
    """One side's trial ids of ``pairs``."""
    return [str(t) for t in _side_column(trials, pairs, side, "trial_id")]


def _side_column(trials: pd.DataFrame, pairs: pd.DataFrame, side: str, column: str) -> pd.Series:
    """``column`` of one side's trials of ``pairs`` (from their row positions in ``trials`` where the pairs carry
    them, else by trial id)."""
    if f"row{side}" in pairs:
        return pd.Series(trials[column].to_numpy()[pairs[f"row{side}"].to_numpy()], index=pairs.index)
    if f"{column}{side}" in pairs:
        return pairs[f"{column}{side}"]
    by_id = trials.set_index("trial_id")[column]
    return pd.Series(by_id.reindex(pairs[f"trial_id{side}"]).to_numpy(), index=pairs.index)
