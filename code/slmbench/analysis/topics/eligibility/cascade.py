"""The cascade on tool selection and reranking: BM25 answers unless its top-1 minus top-2 score is below a
threshold chosen on calibration, then the model answers; its accuracy and the share of items sent to the model,
against BM25 alone and the model alone (``elig.<task>.<config>.cascade.…``)."""

from __future__ import annotations

import math
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.stats_threshold import cascade_choice, reciprocal_rank, tune_cascade
from slmbench.analysis.topics.eligibility.common import PKG, finite, provenance, threshold_number
from slmbench.analysis.topics.eligibility.items import records
from slmbench.analysis.topics.eligibility.runs import Run


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
    kc = sum(bool(a["right"]) if c else bool(a["base_correct"]) for a, c in zip(test, calls, strict=True))
    casc, called = wilson_interval(kc, n, alpha), wilson_interval(sum(calls), n, alpha)
    ok = is_eligible(kc, n, base_acc, 0.0, alpha) if n else False
    key = run.key
    prov = provenance(
        f"{PKG}.stats_threshold.tune_cascade", run.tuned.selection,
        "BM25 unless its top-1 minus top-2 score is below the calibration-chosen threshold, then the model",
        alpha=alpha,
    )  # fmt: skip
    out = [
        threshold_number(f"{key}.cascade.threshold", cut.threshold, prov),
        *nb.rate_numbers(f"{key}.cascade.acc", casc, prov),
        *nb.rate_numbers(f"{key}.cascade.called", called, prov),
        nb.flag(f"{key}.cascade.eligible", ok, prov),
        nb.rate(f"{key}.cascade.gain", casc.rate - base_acc if n else math.nan, prov),
    ]
    bm = wilson_interval(sum(bool(a["base_correct"]) for a in test), n, alpha)
    bprov = provenance(
        f"{PKG}.stats_rates.wilson_interval", run.test.selection, "BM25 alone on the same test items"
    )
    out += [nb.rate(f"{key}.baseline.lo", bm.lo, bprov), nb.rate(f"{key}.baseline.hi", bm.hi, bprov)]
    row.update(
        cascade_threshold=finite(cut.threshold), cascade_k=kc, cascade_acc=finite(casc.rate),
        cascade_lo=finite(casc.lo), cascade_hi=finite(casc.hi), called=finite(called.rate),
        called_lo=finite(called.lo), called_hi=finite(called.hi), cascade_eligible=ok, bm25_acc=finite(bm.rate),
        bm25_lo=finite(bm.lo), bm25_hi=finite(bm.hi), model_acc=row["acc"],
    )  # fmt: skip
    if run.task == "reranking" and n:
        rr = [
            reciprocal_rank(a["ranking"] if c else a["base_ranking"], str(a["label"]))
            for a, c in zip(test, calls, strict=True)
        ]
        out.append(nb.stat(f"{key}.cascade.mrr", sum(rr) / n, prov))
        row["cascade_mrr"] = sum(rr) / n
    return out
