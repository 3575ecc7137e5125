"""Each configuration against its baseline on the same test items, paired by item (exact McNemar on the items
right for one side only), with Benjamini-Hochberg across every configuration-task pair the section reports,
beside the Wilson rule of ``configs`` (``elig.<task>.<config>.paired.…``, ``elig.n.paired.…``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import Selected
from slmbench.analysis.stats_tests import Paired, bh_adjust, paired_outcomes
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, finite, provenance, task_slug
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.vocab import ELIGIBILITY_TASKS

MCNEMAR = paired_outcomes
BH = bh_adjust


def against_baseline(items: Selected) -> Paired:
    """The model's and the baseline's outcomes on the same items (the model first)."""
    return paired_outcomes(list(items.rows["right"]), list(items.rows["base_correct"]))


def paired_numbers(key: str, pair: Paired, items: Selected, row: dict[str, Any]) -> list[Number]:
    """``<key>.paired.n.only-model``, ``.n.only-baseline`` and ``.p`` (exact McNemar) of ``pair``, computed on
    ``items``; the same in ``row`` (``paired_only_model``, ``paired_only_baseline``, ``paired_p``)."""
    prov = provenance(MCNEMAR, items.selection, "model against its baseline on the same items, exact McNemar")
    row.update(
        paired_only_model=pair.only_first, paired_only_baseline=pair.only_second, paired_p=finite(pair.p)
    )
    return [
        nb.count(f"{key}.paired.n.only-model", pair.only_first, prov),
        nb.count(f"{key}.paired.n.only-baseline", pair.only_second, prov),
        nb.pvalue(f"{key}.paired.p", pair.p, prov),
    ]


def adjusted(
    keys: Sequence[str], rows: Sequence[dict[str, Any]], selections: Sequence[dict[str, Any]], alpha: float
) -> list[Number]:
    """Benjamini-Hochberg across ``rows`` (their ``paired_p``; nan: no discordant item, no test):
    ``<key>.paired.padj``, ``.sig`` (adjusted p below alpha) and ``.better`` (significant, the model ahead),
    also set in each row (``paired_padj``, ``paired_sig``, ``paired_better``)."""
    ps = [float("nan") if r["paired_p"] is None else float(r["paired_p"]) for r in rows]
    p_adj, reject = bh_adjust(ps, alpha)
    out: list[Number] = []
    for key, row, sel, pa, sig in zip(keys, rows, selections, p_adj, reject, strict=True):
        better = sig and row["paired_only_model"] > row["paired_only_baseline"]
        row.update(paired_padj=finite(pa), paired_sig=sig, paired_better=better)
        prov = provenance(BH, sel, f"exact McNemar adjusted across {len(rows)} comparisons", alpha=alpha)
        out += [
            nb.pvalue(f"{key}.paired.padj", pa, prov),
            nb.flag(f"{key}.paired.sig", sig, prov),
            nb.flag(f"{key}.paired.better", better, prov),
        ]
    return out


def grid_numbers(runs: Sequence[Run], rows: Sequence[dict[str, Any]], alpha: float) -> list[Number]:
    """The adjustment across every configuration-task pair (``runs`` and their table ``rows``, in one order) and
    the counts over them, beside the Wilson rule: ``elig.n.paired.…`` and per task ``elig.<t>.n.paired.…``."""
    out = adjusted([r.key for r in runs], rows, [r.test.selection for r in runs], alpha)
    prov = provenance(TOPIC, {"study": STUDY}, "paired tests over configuration-task pairs", alpha=alpha)
    out += _counts("elig.n.paired", rows, prov)
    for task in ELIGIBILITY_TASKS:
        part = [r for r in rows if r["task"] == task]
        tprov = provenance(TOPIC, {"study": STUDY, "task": task}, f"paired tests on {task}", alpha=alpha)
        out += _counts(f"elig.{task_slug(task)}.n.paired", part, tprov)
    return out


def _counts(prefix: str, rows: Sequence[dict[str, Any]], prov: dict[str, Any]) -> list[Number]:
    def n(cond: Any) -> int:
        return sum(bool(cond(r)) for r in rows)

    return [
        nb.count(f"{prefix}.tests", n(lambda r: r["paired_p"] is not None), prov),
        nb.count(f"{prefix}.better", n(lambda r: r["paired_better"]), prov),
        nb.count(f"{prefix}.worse", n(lambda r: r["paired_sig"] and not r["paired_better"]), prov),
        nb.count(
            f"{prefix}.eligible-not-better", n(lambda r: r["eligible"] and not r["paired_better"]), prov
        ),
        nb.count(
            f"{prefix}.better-not-eligible", n(lambda r: r["paired_better"] and not r["eligible"]), prov
        ),
    ]
