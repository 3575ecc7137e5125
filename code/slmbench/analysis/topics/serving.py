"""Topic ``serving``: the same GGUF files in-process and behind a server that applies its own chat template and
tool-call parser, paired task by task (the serving stack as a measured factor); and one file run by two models of
the study, one in-process and one served (``common.twins``: keys ``twin.*``).

The served trials are the shards the plan ran for this comparison (config.yaml's ``serving_comparison``: the
primary protocol at the lowest temperature); each pairs with the in-process trial of the same model, task,
variant, temperature and repeat in the primary condition's first run on the same kind of CPU (the primary run
where the served trials ran on the study's ``primary_build``), by ``analysis.paired`` (exact McNemar per model and
pooled). Per pair it also counts the tool calls: those the in-process harness accepted, those the served harness accepted, those
the server returned as ``tool_calls``, and, where the server returned its raw generated text, the calls our
repaired parser reads in that text and how many of them the server's parser dropped or changed (name or
arguments differ) or added (``harness.served``, counted per trial by tidy).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.paired import Role, Sides, comparison
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import primary_rows
from slmbench.analysis.topics.common.twins import twin_comparison
from slmbench.vocab import STUDY_ID

STUDY = STUDY_ID
COMPARISON = "serving"
"""The plan's part whose shards this topic pairs with the primary results (``slmbench.run.roles``)."""
IN_PROCESS = "in-process"
CALL_COLUMNS = ["n_tool_calls", "server_calls", "raw_calls", "calls_changed", "calls_dropped", "calls_added"]
"""Each trial's call counts the topic reads (tidy: ``n_tool_calls``, ``SERVED_COLUMNS``)."""
_WILSON = wilson_interval
_SUM = "sum"


def other_rows(trials: pd.DataFrame, primary: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The trials the plan ran for the serving comparison (``comparison`` = ``serving``) of the models with
    primary results, behind one server (the first by name where several ran), and that server."""
    if primary.empty or "comparison" not in trials.columns or "server" not in trials.columns:
        return trials.iloc[0:0], None
    ours = trials[
        (trials["study"] == STUDY) & (trials["comparison"] == COMPARISON) & trials["server"].notna()
    ]
    ours = ours[ours["model"].isin(primary["model"].unique())]
    if ours.empty:
        return ours, None
    server = str(sorted(ours["server"].astype(str).unique())[0])
    return ours[ours["server"] == server], server


def in_process_rows(trials: pd.DataFrame, served: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The in-process side of the served trials: for each model and kind of CPU they ran on, the primary
    condition's first run in-process on that kind of CPU (``cpu_primary``: the primary run where that kind is the
    study's ``primary_build``), so that no pair crosses builds; and the selection that names them."""
    select: dict[str, Any] = {"study": STUDY, "cpu_primary": True}
    if served.empty or "cpu_primary" not in trials.columns:
        return trials.iloc[0:0], select
    ran = set(zip(served["model"].astype(str), served["build"].astype(str), strict=True))
    ours = trials[(trials["study"] == STUDY) & trials["cpu_primary"].fillna(False).astype(bool)]
    where = pd.Series(
        list(zip(ours["model"].astype(str), ours["build"].astype(str), strict=True)), index=ours.index
    )
    return ours[where.isin(ran)], select


def pair_calls(trials: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per pair: its key, both outcomes and each side's call counts (``<column>_p``, ``<column>_o``)."""
    out = pairs[["model", "task_id", "variant", "repeat", "p_pass", "o_pass"]].reset_index(drop=True)
    for side in ("_p", "_o"):
        if f"row{side}" in pairs:
            rows = trials.iloc[pairs[f"row{side}"].to_numpy()]
        else:
            rows = trials.set_index("trial_id").loc[pairs[f"trial_id{side}"]]
        values = rows.reindex(columns=CALL_COLUMNS).reset_index(drop=True).astype(float)
        out = out.join(values.add_suffix(side))
    return out


def _total(column: pd.Series) -> int:
    return int(column.fillna(0).sum())


def calls_phrase(raw: int, dropped: int, changed: int, server: str) -> str:
    """What the server's parser made of the calls our parser reads in its raw text, as a clause."""
    if raw == 0:
        return f"{server} returned no raw text with a call in it to compare its parser with ours"
    if dropped + changed == 0:
        return f"{server}'s parser returned every one of the {plural_calls(raw)} our parser reads in its raw text"
    lost = [
        f"{verb} {phrases.count_word(k)}" for verb, k in (("dropped", dropped), ("changed", changed)) if k
    ]
    return f"of the {plural_calls(raw)} our parser reads in {server}'s raw text, its own parser {' and '.join(lost)}"


def plural_calls(n: int) -> str:
    return phrases.plural(n, "call")


def calls_block(
    prefix: str, calls: pd.DataFrame, sides: Sides, pairs: pd.DataFrame, alpha: float
) -> list[Number]:
    """Call counts of a set of pairs (``calls`` row by row with ``pairs``): accepted per side, returned by the
    server, read in its raw text, and the shares of those the server dropped or changed (Wilson, over the calls
    read in the raw text). A count of trials selects exactly those trials."""
    select: dict[Role, dict[str, Any]] = {role: sides.of(pairs, role) for role in ("primary", "other")}

    def prov(role: Role, what: str) -> dict[str, Any]:
        return nb.provenance(_SUM, select[role], what, unit="calls")

    def served(mask: pd.Series, what: str) -> dict[str, Any]:
        return nb.provenance(_SUM, sides.of(pairs[mask.to_numpy()], "other"), what, unit="trials")

    has_raw = calls["raw_calls_o"].notna()
    affected = (calls["calls_dropped_o"].fillna(0) + calls["calls_changed_o"].fillna(0)) > 0
    raw = _total(calls["raw_calls_o"])
    out = [
        nb.count(f"{prefix}.primary", _total(calls["n_tool_calls_p"]), prov("primary", "calls accepted")),
        nb.count(f"{prefix}.other", _total(calls["n_tool_calls_o"]), prov("other", "calls accepted")),
        nb.count(f"{prefix}.returned", _total(calls["server_calls_o"]), prov("other", "calls returned")),
        nb.count(f"{prefix}.raw", raw, prov("other", "calls read in the server's raw text")),
        nb.count(f"{prefix}.added", _total(calls["calls_added_o"]), prov("other", "calls the server added")),
        nb.count(f"{prefix}.n.raw-trials", int(has_raw.sum()), served(has_raw, "trials with raw text")),
        nb.count(
            f"{prefix}.n.trials-affected", int(affected.sum()), served(affected, "trials with a call lost")
        ),
    ]
    for name in ("dropped", "changed"):
        r = wilson_interval(_total(calls[f"calls_{name}_o"]), raw, alpha)
        wprov = nb.provenance(
            _WILSON, select["other"], f"share of the calls in the raw text the server {name}", unit="calls"
        )
        out += nb.rate_numbers(f"{prefix}.{name}", r, wprov)
    return out


@topic(reads=("trials",))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Paired accuracy in-process and served, per model and pooled, and the calls the server's parser dropped
    or changed."""
    p = with_defaults(params)
    ours = primary_rows(trials, STUDY)[0]
    other, server = other_rows(trials, ours)
    primary, psel = in_process_rows(trials, other)
    names = (IN_PROCESS, server or "server")
    sides = Sides(trials, psel, {"study": STUDY, "comparison": COMPARISON, "server": server})
    pairs = sides.pairs(primary, other)
    res = comparison("srv", pairs, sides, names, p)
    calls = pair_calls(trials, pairs)
    res.numbers += calls_block("srv.calls", calls, sides, pairs, p["alpha"])
    raw, dropped, changed = (_total(calls[c]) for c in ("raw_calls_o", "calls_dropped_o", "calls_changed_o"))
    prov = nb.provenance(_SUM, sides.of(pairs, "other"), "the server's calls against ours", unit="calls")
    res.numbers.append(nb.text("srv.phrase.calls", calls_phrase(raw, dropped, changed, names[1]), prov))
    for model in sorted(pairs["model"].unique()):
        mine = (pairs["model"] == model).to_numpy()
        res.numbers += calls_block(
            f"srv.model.{nb.slug(model)}.calls", calls[mine], sides, pairs[mine], p["alpha"]
        )
    res.tables["calls"] = [{str(k): v for k, v in row.items()} for row in calls.to_dict(orient="records")]
    twins = twin_comparison(trials, ours[~ours["model"].isin(set(other["model"]))], p)
    res.numbers += twins.numbers
    res.tables.update(twins.tables)
    res.labels.update(twins.labels)
    return res
