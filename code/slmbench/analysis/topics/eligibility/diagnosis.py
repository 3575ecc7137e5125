"""Threshold diagnosis of a binary-task configuration: the margin cut-off with the most correct calibration items
(few-shot examples left out), applied to test; a configuration that fails the bar is a ``calibration`` failure
if the tuned cut-off makes it eligible, else a ``capability`` failure (``elig.<task>.<config>.tuned.…``); with how
many candidate cut-offs tied at the best calibration accuracy (``.tuned.n-tied``: above 1 the tie-break chose) and
whether another of them would have scored differently on test (``.tuned.tie-matters``)."""

from __future__ import annotations

from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.stats_threshold import apply_margin, tied_margins, tune_margin
from slmbench.analysis.topics.eligibility.common import finite, provenance, threshold_number
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.eligibility.datasets import POSITIVE


def diagnosis(run: Run, base_acc: float, eligible: bool, alpha: float, row: dict[str, Any]) -> list[Number]:
    """The tuned cut-off, the test accuracy under it and the failure's class (added to ``row``)."""
    pos = POSITIVE[run.task]  # type: ignore[index]
    cal, test = run.calibration.rows, run.test.rows
    cal_m, cal_y = [float(m) for m in cal["margin"]], [lab == pos for lab in cal["label"]]
    test_m, test_y = [float(m) for m in test["margin"]], [lab == pos for lab in test["label"]]
    cut = tune_margin(cal_m, cal_y)
    n = len(test)
    kt = apply_margin(test_m, test_y, cut.threshold)
    tuned = wilson_interval(kt, n, alpha)
    tie_matters = any(apply_margin(test_m, test_y, t) != kt for t in tied_margins(cal_m, cal_y))
    tuned_ok = is_eligible(kt, n, base_acc, 0.0, alpha) if n else False
    diagnosed = "eligible" if eligible else ("calibration" if tuned_ok else "capability")
    prov = provenance(
        tune_margin, run.tuned.selection,
        "margin cut-off with the most correct calibration items (few-shot examples excluded), applied to test",
        alpha=alpha,
    )  # fmt: skip
    row.update(
        threshold=finite(cut.threshold), threshold_text=str(cut.threshold), tuned_k=kt, tuned_acc=finite(tuned.rate),
        tuned_lo=finite(tuned.lo), tuned_hi=finite(tuned.hi), tuned_eligible=tuned_ok, diagnosis=diagnosed,
        n_cal=cut.n, tuned_tied=cut.tied, tie_matters=tie_matters,
    )  # fmt: skip
    return [
        threshold_number(f"{run.key}.tuned.threshold", cut.threshold, prov),
        *nb.rate_numbers(f"{run.key}.tuned.acc", tuned, prov),
        nb.flag(f"{run.key}.tuned.eligible", tuned_ok, prov),
        nb.text(f"{run.key}.diagnosis", diagnosed, prov),
        nb.count(f"{run.key}.tuned.n-tied", cut.tied, prov),
        nb.flag(f"{run.key}.tuned.tie-broken", cut.tied > 1, prov),
        nb.flag(f"{run.key}.tuned.tie-matters", tie_matters, prov),
    ]
