"""The cascade on tool selection and reranking: BM25 answers unless its top-1 minus top-2 score is below a
threshold chosen on calibration, then the model answers; its accuracy and the share of items sent to the model,
against the model alone and against BM25 alone, paired by item (exact McNemar), and whether it is BM25 exactly
(the model asked on no item, or answering as BM25 on every item it was asked) (``elig.<task>.<config>.cascade.…``;
the counts over cascades are ``cascade_summary``'s)."""

from __future__ import annotations

import math
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.stats_tests import bh_adjust, paired_outcomes
from slmbench.analysis.stats_threshold import cascade_choice, reciprocal_rank, tune_cascade
from slmbench.analysis.topics.eligibility.common import (
    STUDY,
    TOPIC,
    finite,
    provenance,
    task_slug,
    threshold_number,
)
from slmbench.analysis.topics.eligibility.items import records
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.vocab import ELIGIBILITY_TASKS

MCNEMAR = paired_outcomes


def cascade(run: Run, base_acc: float, alpha: float, row: dict[str, Any]) -> list[Number]:
    """The cascade's threshold, accuracy, share of model calls and eligibility (added to ``row``)."""
    cal, test = run.calibration.rows, records(run.test.rows)
    cut = tune_cascade(
        [float(m) for m in cal["base_margin"]],
        [bool(c) for c in cal["base_correct"]],
        [bool(r) for r in cal["right"]],
    )
    calls = cascade_choice([float(a["base_margin"]) for a in test], cut.threshold)
    n = len(test)
    right = [bool(a["right"]) if c else bool(a["base_correct"]) for a, c in zip(test, calls, strict=True)]
    kc = sum(right)
    casc, called = wilson_interval(kc, n, alpha), wilson_interval(sum(calls), n, alpha)
    ok = is_eligible(kc, n, base_acc, 0.0, alpha) if n else False
    key = run.key
    vs_bm25 = paired_outcomes(right, [bool(a["base_correct"]) for a in test])
    exactly = all(a["prediction"] == a["base_prediction"] for a, c in zip(test, calls, strict=True) if c)
    prov = provenance(
        tune_cascade, run.tuned.selection,
        "BM25 unless its top-1 minus top-2 score is below the calibration-chosen threshold, then the model",
        alpha=alpha,
    )  # fmt: skip
    out = [
        threshold_number(f"{key}.cascade.threshold", cut.threshold, prov),
        *nb.rate_numbers(f"{key}.cascade.acc", casc, prov),
        *nb.rate_numbers(f"{key}.cascade.called", called, prov),
        nb.flag(f"{key}.cascade.eligible", ok, prov),
        nb.rate(f"{key}.cascade.gain", casc.rate - base_acc if n else math.nan, prov),
        nb.count(f"{key}.cascade.n-tied", cut.tied, prov),
    ]
    vprov = provenance(
        MCNEMAR, run.tuned.selection, "the cascade against BM25 alone on the same test items, exact McNemar"
    )
    out += [
        nb.count(f"{key}.cascade.vs-bm25.n.only-cascade", vs_bm25.only_first, vprov),
        nb.count(f"{key}.cascade.vs-bm25.n.only-bm25", vs_bm25.only_second, vprov),
        nb.pvalue(f"{key}.cascade.vs-bm25.p", vs_bm25.p, vprov),
        nb.flag(f"{key}.cascade.bm25-exactly", exactly, vprov),
    ]
    bm = wilson_interval(sum(bool(a["base_correct"]) for a in test), n, alpha)
    bprov = provenance(wilson_interval, run.test.selection, "BM25 alone on the same test items")
    out += [nb.rate(f"{key}.baseline.lo", bm.lo, bprov), nb.rate(f"{key}.baseline.hi", bm.hi, bprov)]
    row.update(
        cascade_threshold=finite(cut.threshold), cascade_k=kc, cascade_acc=finite(casc.rate),
        cascade_lo=finite(casc.lo), cascade_hi=finite(casc.hi), called=finite(called.rate),
        called_lo=finite(called.lo), called_hi=finite(called.hi), cascade_eligible=ok, bm25_acc=finite(bm.rate),
        bm25_lo=finite(bm.lo), bm25_hi=finite(bm.hi), model_acc=row["acc"], cascade_tied=cut.tied,
        vs_bm25_only_cascade=vs_bm25.only_first, vs_bm25_only_bm25=vs_bm25.only_second,
        vs_bm25_p=finite(vs_bm25.p), bm25_exactly=exactly, bm25_k=bm.k,
    )  # fmt: skip
    if run.task == "reranking" and n:
        rr = [
            reciprocal_rank(a["ranking"] if c else a["base_ranking"], str(a["label"]))
            for a, c in zip(test, calls, strict=True)
        ]
        out.append(nb.stat(f"{key}.cascade.mrr", sum(rr) / n, prov))
        row["cascade_mrr"] = sum(rr) / n
    return out


def _against_bm25(row: dict[str, Any]) -> str:
    """``worse``, ``equal`` or ``better``: the cascade's test accuracy against BM25 alone on the same items."""
    k, b = row["cascade_k"], row["bm25_k"]
    return "worse" if k < b else ("better" if k > b else "equal")


def cascade_summary(runs: list[Run], rows: list[dict[str, Any]], alpha: float) -> list[Number]:
    """Over the cascades (``runs`` and their table ``rows``, in one order): BH across them of the paired test
    against BM25 alone (``<key>.cascade.vs-bm25.padj``, ``.sig``), and overall and per task how many are worse
    than, equal to or better than BM25 alone, significantly so, BM25 exactly, decided by a tie-break, and the
    range of the share of items the model was asked (``elig.n.cascade.…``, ``elig.<t>.n.cascade.…``,
    ``elig.<t>.cascade.called.min``/``.max``)."""
    ps = [math.nan if r["vs_bm25_p"] is None else float(r["vs_bm25_p"]) for r in rows]
    p_adj, reject = bh_adjust(ps, alpha)
    out: list[Number] = []
    for run, row, pa, sig in zip(runs, rows, p_adj, reject, strict=True):
        row.update(vs_bm25=_against_bm25(row), vs_bm25_padj=finite(pa), vs_bm25_sig=sig)
        prov = provenance(
            bh_adjust, run.tuned.selection,
            f"the cascade against BM25 alone, exact McNemar adjusted across {len(rows)} cascades", alpha=alpha,
        )  # fmt: skip
        out += [
            nb.pvalue(f"{run.key}.cascade.vs-bm25.padj", pa, prov),
            nb.flag(f"{run.key}.cascade.vs-bm25.sig", sig, prov),
            nb.text(f"{run.key}.cascade.vs-bm25", row["vs_bm25"], prov),
        ]
    prov = provenance(TOPIC, {"study": STUDY}, "counts over the cascades", alpha=alpha)
    out += _counts("elig.n.cascade", rows, prov)
    for task in ELIGIBILITY_TASKS:
        part = [r for r in rows if r["task"] == task]
        if not part:
            continue
        t = task_slug(task)
        tprov = provenance(TOPIC, {"study": STUDY, "task": task}, f"cascades on {task}", alpha=alpha)
        out += [
            nb.count(f"elig.{t}.n.cascade", len(part), tprov),
            *_counts(f"elig.{t}.n.cascade", part, tprov),
        ]
        called = [r["called"] for r in part if r["called"] is not None]
        for name, value in (("min", min(called, default=math.nan)), ("max", max(called, default=math.nan))):
            out.append(nb.rate(f"elig.{t}.cascade.called.{name}", value, tprov))
    return out


def _counts(prefix: str, rows: list[dict[str, Any]], prov: dict[str, Any]) -> list[Number]:
    out = [
        nb.count(f"{prefix}.{v}", sum(r["vs_bm25"] == v for r in rows), prov)
        for v in ("worse", "equal", "better")
    ]
    return [
        *out,
        nb.count(
            f"{prefix}.sig-worse", sum(r["vs_bm25_sig"] and r["vs_bm25"] == "worse" for r in rows), prov
        ),
        nb.count(
            f"{prefix}.sig-better", sum(r["vs_bm25_sig"] and r["vs_bm25"] == "better" for r in rows), prov
        ),
        nb.count(f"{prefix}.bm25-exactly", sum(r["bm25_exactly"] for r in rows), prov),
        nb.count(f"{prefix}.tied", sum(r["cascade_tied"] > 1 for r in rows), prov),
    ]
