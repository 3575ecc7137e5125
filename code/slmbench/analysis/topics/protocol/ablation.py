"""Every paired comparison of protocols and limits: accuracy per side, McNemar, outcome and class changes, pooled
and per model (``proto.cmp.<cmp>.…``), and the phrases that summarise them. The per-model tests of one comparison
are one family: their p-values are Benjamini-Hochberg adjusted over its models (``.mcnemar.padj``), and the
per-model phrases read the adjusted p."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import paired, phrases
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.paired import block, cross_cpu
from slmbench.analysis.stats_tests import bh_adjust
from slmbench.analysis.topics.protocol.comparisons import FAMILIES, Comparison, changed_class, comparisons
from slmbench.analysis.topics.protocol.conditions import SCOPE

_PAIRED = paired.paired


class _Outcome(NamedTuple):
    """What one comparison hands back to the summary: its phrase, its pooled row, its pairs across CPUs and all
    its pairs."""

    phrase: str
    pooled: dict[str, Any]
    n_cross: int
    n_pairs: int


def ablation(res: TopicResult, trials: pd.DataFrame, alpha: float, margin: float) -> None:
    """Every paired comparison: pooled and per model, outcome changes and class changes, and the TOST of
    equivalence within ``margin`` (``paired.block``)."""
    table: list[dict[str, Any]] = []
    summary: dict[str, list[str]] = {family: [] for family in FAMILIES}
    crossing: dict[str, tuple[int, int]] = {}
    mechanism_models: set[str] = set()
    alone: list[str] = []
    for cmp in comparisons(trials):
        outcome = _comparison(res, trials, cmp, alpha, margin, table)
        condition = cmp.name.split(" vs ")[0]
        if cmp.family == "mechanism":
            mechanism_models |= set(cmp.base.rows["model"].astype(str)) & set(
                cmp.other.rows["model"].astype(str)
            )
            row = outcome.pooled
            label = f"{cmp.added.replace('_', ' ')} alone" if cmp.added else f"the {condition} protocol"
            gain = phrases.gain_phrase(label, row["only_primary"], row["only_other"], row["p"], "task pair")
            summary["mechanism"].append(gain)
            if cmp.added:
                alone.append(gain)
        else:
            summary[cmp.family].append(f"{condition}: {outcome.phrase}")
        if not cmp.is_rerun:  # a rerun crosses machines by design
            crossing[cmp.name] = (outcome.n_cross, outcome.n_pairs)
    res.tables["comparisons"] = table
    ablations = summary["ablation"] + summary["limit"]
    prov = nb.provenance(_PAIRED, dict(SCOPE), "every ablation")
    text = "; ".join(ablations) if ablations else "no ablation of the full protocol has been run yet"
    res.numbers.append(nb.text("proto.phrase.ablations", text, prov))
    if summary["mechanism"]:
        mprov = nb.provenance(_PAIRED, dict(SCOPE), "every mechanism run against the mechanism base")
        res.numbers.append(nb.text("proto.phrase.mechanisms", "; ".join(summary["mechanism"]), mprov))
        res.numbers.append(nb.text("proto.phrase.mechanisms-alone", "; ".join(alone), mprov))
        ordered = sorted(mechanism_models)
        names = ", ".join(ordered[:-1]) + (" and " if len(ordered) > 1 else "") + ordered[-1]
        res.numbers.append(nb.text("proto.phrase.mechanism-models", names, mprov))
    res.numbers.append(nb.text("proto.phrase.cross-cpu", phrases.cross_cpu_phrase(crossing), prov))


def _comparison(
    res: TopicResult,
    trials: pd.DataFrame,
    cmp: Comparison,
    alpha: float,
    margin: float,
    table: list[dict[str, Any]],
) -> _Outcome:
    """One comparison's numbers and table rows."""
    sides = cmp.sides(trials)
    pairs = sides.pairs(cmp.base.rows, cmp.other.rows)
    pooled = sides.within({"model": sorted(pairs["model"].unique())})  # a list, even of one model
    prefix = f"proto.cmp.{cmp.key}"
    both = pooled.both(pairs)
    nums, row = block(prefix, pairs, pooled, cmp.name, alpha, both, margin)
    res.numbers += nums
    desc = f"paired trials whose failure class changed, {cmp.name}"
    prov = nb.provenance(_PAIRED, both, desc, unit="pairs", comparison=cmp.name)
    res.numbers.append(nb.count(f"{prefix}.n.class-changed", changed_class(pairs), prov))
    cprov = {
        **prov,
        "description": f"paired trials whose two sides ran on different kinds of CPU, {cmp.name}",
    }
    n_cross = int(cross_cpu(pairs).sum())
    res.numbers.append(nb.count(f"{prefix}.n.cross-cpu", n_cross, cprov))
    condition, reference = cmp.name.split(" vs ")
    phrase = phrases.change_phrase(row["only_primary"], row["only_other"], row["p"], reference, condition)
    res.numbers.append(nb.text(f"{prefix}.phrase", phrase, prov))
    first = {"comparison": cmp.name, "key": cmp.key, "family": cmp.family, "model": "pooled"}
    pooled_row = {**first, **row, "class_changed": changed_class(pairs)}
    table.append(pooled_row)
    per_model = []
    for model, part in pairs.groupby("model", sort=True):
        mkey = f"{prefix}.{nb.slug(model)}"
        mboth = sides.both(part)
        nums, row = block(mkey, part, sides, cmp.name, alpha, mboth, margin)
        res.numbers += nums
        per_model.append((model, mkey, mboth, part, row))
    p_adj, _ = bh_adjust([row["p"] for *_, row in per_model], alpha)
    family = phrases.family_phrase(sum(math.isfinite(p) for p in p_adj), "model")
    for (model, mkey, mboth, part, row), pa in zip(per_model, p_adj, strict=True):
        aprov = nb.provenance(
            bh_adjust, mboth, f"exact McNemar p, Benjamini-Hochberg over the models of {cmp.name}", unit="pairs",
            alpha=alpha,
        )  # fmt: skip
        res.numbers.append(nb.pvalue(f"{mkey}.mcnemar.padj", pa, aprov))
        mphrase = phrases.change_phrase(
            row["only_primary"], row["only_other"], row["p"], reference, condition, pa, family
        )
        res.numbers.append(nb.text(f"{mkey}.phrase", mphrase, {**prov, "selection": mboth}))
        table.append({**first, "model": model, **row, "p_adj": pa, "class_changed": changed_class(part)})
    return _Outcome(phrase, pooled_row, n_cross, len(pairs))
