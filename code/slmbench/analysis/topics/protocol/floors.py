"""Which headline results hold under both legacy and full: the base-model floor, each instruction-tuned model
against the best base model paired by task, forbidden acts on safety tasks and the order of the models
(``proto.floor.<protocol>.…``; first repeat at the lowest temperature of each)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.paired import cells
from slmbench.analysis.selection import Selected
from slmbench.analysis.stats_tests import mcnemar_p
from slmbench.analysis.topics.common import floor_block, model_info
from slmbench.analysis.topics.protocol.conditions import FULL, LEGACY, scored_rows


def holds(res: TopicResult, trials: pd.DataFrame, alpha: float, margin: float) -> None:
    """Per protocol: the base-model floor rule of the capability topic (``floor_block``: which instruction-tuned
    models clear the best base model plus the margin), each instruction-tuned model against the best base model
    paired by task (exact McNemar), forbidden acts, and the order of the models by accuracy."""
    for protocol in (LEGACY, FULL):
        first = scored_rows(trials, protocol).where({"repeat": 0})
        df = first.rows
        prefix = f"proto.floor.{protocol}"
        info = model_info(df) if len(df) else pd.DataFrame(columns=["is_base"])
        rows: list[dict[str, Any]] = []
        for model in info.index:
            part = df[df["model"] == model]
            k, n = int(part["passed"].sum()), len(part)
            row = {"model": model, "is_base": bool(info.loc[model, "is_base"]), "k": k, "n": n}
            rows.append({**row, "unit_k": k, "units": n})  # one trial per task: a task is a unit
        res.numbers += floor_block(prefix, rows, df, first.selection, alpha, margin)
        res.numbers += _against_base(prefix, rows, first)
        res.numbers += _harm(prefix, protocol, list(info.index), first)
        ranked = sorted(rows, key=lambda r: (-(r["k"] / r["n"] if r["n"] else 0.0), r["model"]))
        order = ", ".join(f"{r['model']} ({r['k']}/{r['n']})" for r in ranked) or "no trials"
        oprov = nb.provenance("sorted", first.selection, f"models by accuracy under {protocol}")
        res.numbers.append(nb.text(f"{prefix}.order", order, oprov))


def _against_base(prefix: str, rows: list[dict[str, Any]], first: Selected) -> list[Number]:
    """Each instruction-tuned model against the most accurate base model, paired by task (exact McNemar)."""
    base = [r for r in rows if r["is_base"]]
    if not base:
        return []
    best_base = max(base, key=lambda r: r["k"] / r["n"] if r["n"] else 0.0)["model"]
    by_task = first.rows.pivot_table(index="task_id", columns="model", values="passed", aggfunc="first")
    out: list[Number] = []
    for row in rows:
        if row["is_base"]:
            continue
        both = by_task[[row["model"], best_base]].dropna().astype(bool)
        pairs = pd.DataFrame({"p_pass": both[row["model"]], "o_pass": both[best_base]})
        n_both, only_model, only_base, neither = cells(pairs)
        p_value = mcnemar_p(n_both, only_model, only_base, neither)
        selection = {**first.selection, "model": sorted({str(row["model"]), str(best_base)})}
        desc = f"{row['model']} against the base model {best_base}, paired by task"
        prov = nb.provenance(mcnemar_p, selection, desc, unit="pairs")
        mkey = f"{prefix}.{nb.slug(row['model'])}"
        out += [
            nb.pvalue(f"{mkey}.vs-base.p", p_value, prov),
            nb.count(f"{mkey}.vs-base.n.only-model", only_model, prov),
            nb.count(f"{mkey}.vs-base.n.only-base", only_base, prov),
        ]
    return out


def _harm(prefix: str, protocol: str, models: list[Any], first: Selected) -> list[Number]:
    """Per model, the safety tasks on which it carried out the forbidden act, of its safety tasks."""
    if "group" in first.rows:
        safety = first.where({"group": "safety"})
    else:  # a table without task groups has no safety tasks
        safety = Selected({**first.selection, "trial_id": []}, first.rows.iloc[0:0])
    out: list[Number] = []
    for model in models:
        mine = safety.where({"model": str(model)})
        harm = int(mine.rows["harm"].fillna(False).astype(bool).sum()) if "harm" in mine.rows else 0
        desc = f"safety tasks on which {model} carried out the forbidden act under {protocol}"
        prov = nb.provenance("sum", mine.selection, desc, unit="trials")
        out += [
            nb.count(f"{prefix}.{nb.slug(str(model))}.harm", harm, prov),
            nb.count(f"{prefix}.{nb.slug(str(model))}.harm.n", len(mine), prov),
        ]
    return out
