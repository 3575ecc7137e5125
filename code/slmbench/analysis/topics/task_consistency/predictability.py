"""Predictability of the topic ``task_consistency``: how well a trial's confidence (the geometric-mean probability
of the tokens the model generated, ``tidy.rows.confidence``) predicts its success, per model and trial set, by
``stats_calibration`` (Brier score, AUROC, ECE over ``ECE_BINS`` equal-width bins) with intervals from resampling
tasks (the samples of one task are not independent). Trials without a confidence are left out and counted."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_calibration import ECE_BINS, clustered_calibration, reliability_bins
from slmbench.analysis.topics.task_consistency import phrases as ph

PREFIX = "tcons.cal"
SETS = ("primary", "samples")
"""The trial sets, each measured on its own: the primary condition's trials at the build's lowest temperature (one
per task) and the samples above T = 0 (k per task)."""
SET_TEXT = {
    "primary": "the primary condition's trials at the lowest temperature on the build, one per task",
    "samples": "the samples above temperature 0 on the build, k per task",
}
MEASURE_TEXT = {
    "brier": "Brier score (mean squared difference of confidence and success)",
    "auroc": "AUROC of confidence against success (Mann-Whitney U over passed x failed trials)",
    "ece": f"expected calibration error over {ECE_BINS} equal-width bins of confidence on [0, 1]",
}


def predictability_numbers(
    rows: pd.DataFrame, name: str, s: str, trials: pd.DataFrame, base: dict[str, Any], p: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """One model's predictability on one trial set ``name``: ``tcons.cal.<name>.<s>.<measure>`` (+ ``.lo .hi``) for
    ``brier``, ``auroc``, ``ece``; ``.n`` (trials with a confidence), ``.n-passed``, ``.n-tasks``, ``.n-missing``
    (trials without one); ``.auroc.resamples`` (resamples of tasks with both outcomes, over which the AUROC's interval is taken),
    ``.auroc.text`` (the AUROC with its interval, or why it is undefined), ``.discrimination`` (whether that
    interval lies above or below one half); and per non-empty
    bin ``b`` of the reliability diagram ``.bin<b>.confidence``, ``.bin<b>.passed``, ``.bin<b>.n`` (and the rows of
    the figure's table)."""
    has = rows["confidence"].notna() if "confidence" in rows else pd.Series(False, index=rows.index)
    known = rows[has]
    conf = known["confidence"].to_numpy(dtype=float)
    ok = known["passed"].to_numpy(dtype=bool)
    sel = selection_for(trials, known["trial_id"], base)
    key = f"{PREFIX}.{name}.{s}"
    got = clustered_calibration(
        conf,
        ok,
        known["task_id"].astype(str).to_numpy(),
        n_resamples=p["n_boot"],
        seed=p["bootstrap_seed"],
        alpha=p["alpha"],
    )
    n, n_passed = len(known), int(ok.sum())
    alone = 1 in (n_passed, n - n_passed)  # the AUROC is one trial's rank: no interval
    out: list[Number] = []
    for measure, b in got.items():
        prov = nb.provenance(
            clustered_calibration,
            sel,
            f"{MEASURE_TEXT[measure]}, over {SET_TEXT[name]}; tasks resampled",
            measure=measure,
            bins=ECE_BINS,
            bootstrap_seed=p["bootstrap_seed"],
            n_boot=p["n_boot"],
        )
        lo, hi = (math.nan, math.nan) if measure == "auroc" and alone else b.interval
        out += [
            nb.stat(f"{key}.{measure}{x}", v, prov, digits=3)
            for x, v in (("", b.estimate), (".lo", lo), (".hi", hi))
        ]
    cprov = nb.provenance("len", sel, f"trials with a confidence, of {SET_TEXT[name]}")
    a = got["auroc"]
    out += [
        nb.count(f"{key}.n", n, cprov),
        nb.count(f"{key}.n-passed", n_passed, cprov),
        nb.count(
            f"{key}.n-tasks",
            int(known["task_id"].nunique()),
            nb.provenance("nunique", sel, "tasks", unit="tasks"),
        ),
        nb.count(
            f"{key}.n-missing",
            int((~has).sum()),
            nb.provenance("len", base, f"trials without a confidence, of {SET_TEXT[name]}, left out"),
        ),
        nb.count(f"{key}.auroc.resamples", a.n_valid, cprov),
        nb.text(
            f"{key}.auroc.text",
            ph.auroc_phrase(n, n_passed, a.estimate, *a.interval, a.n_valid, a.n_resamples),
            cprov,
        ),
        nb.text(f"{key}.discrimination", ph.discrimination_phrase(n, n_passed, *a.interval), cprov),
    ]
    bprov = nb.provenance(
        reliability_bins, sel, f"reliability diagram over {ECE_BINS} equal-width bins", bins=ECE_BINS
    )
    table: list[dict[str, Any]] = []
    for i, point in enumerate(reliability_bins(conf, ok)):
        at = int(round(point.lo * ECE_BINS))
        out += [
            nb.stat(f"{key}.bin{at}.confidence", point.confidence, bprov, digits=3),
            nb.rate(f"{key}.bin{at}.passed", point.passed, bprov),
            nb.count(f"{key}.bin{at}.n", point.n, bprov),
        ]
        table.append({"bin": at, "lo": point.lo, "hi": point.hi, "n": point.n, "confidence": point.confidence,
                      "passed": point.passed, "order": i})  # fmt: skip
    return out, table
