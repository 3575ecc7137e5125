"""Topic ``task_consistency``: outcome consistency and predictability on every capability task, on one build.

It reads the runs on one build by tidy's ``build_part`` column (``vocab.BUILD_PARTS``): the samples above T = 0
(``sampling``: ``k`` per task, each drawn with its own seed) and the primary condition's trials at the build's
lowest temperature (``primary``: one per task, since a repeat at T = 0 on one build cannot differ and is never a
sample). Without samples the topic computes nothing (its template says nothing).

- Outcome consistency (``outcome``), per model with samples: pass^j and pass@j for j = 1..k (unbiased estimators,
  ``stats_passk``) averaged over the tasks that have all k samples, with percentile intervals from resampling
  tasks; the share of those tasks with mixed outcomes (Wilson, unit tasks).
- Whether confidence can be computed from the records (``forced``): the teacher-forcing reports named by
  ``params["forced"]``, totalled.
- Predictability (``predictability``), per model and trial set (the primary trials, the samples): how well the
  trial's confidence (``tidy.rows.confidence``) predicts its success, with ``stats_calibration``'s Brier score,
  AUROC and ECE and task-resampled intervals.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_calibration import ECE_BINS
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import SCORED, models_table, scored
from slmbench.analysis.topics.task_consistency.forced import forced_numbers
from slmbench.analysis.topics.task_consistency.outcome import outcome_numbers, samples_per_task
from slmbench.analysis.topics.task_consistency.predictability import SETS, predictability_numbers
from slmbench.vocab import STUDY_ID

SUITE = "capability"
"""The suite whose every task the topic measures."""
PREFIX = "tcons"


def build_rows(trials: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any], dict[str, Any]]:
    """The scored samples and the scored primary trials at the lowest temperature of the runs on one build (on
    ``SUITE``), with the selections that name them."""
    if "build_part" not in trials.columns:
        return trials.iloc[0:0], trials.iloc[0:0], {}, {}
    ours = trials[(trials["study"] == STUDY_ID) & (trials["suite"] == SUITE) & trials["build_part"].notna()]
    base = {"study": STUDY_ID, "suite": SUITE, **SCORED}
    samples = scored(ours[ours["build_part"] == "sampling"])
    primary = scored(ours[ours["build_part"] == "primary"])
    t0 = float(primary["temperature"].min()) if len(primary) else 0.0
    primary = primary[primary["temperature"] == t0]
    return (
        samples,
        primary,
        {**base, "build_part": "sampling"},
        {**base, "build_part": "primary", "temperature": t0},
    )


@topic(reads=("trials", "forced"), part="build_run")
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Outcome consistency and predictability on every capability task on one build (see the module docstring
    and ``docs/keys.md``); nothing where no sample above T = 0 was recorded."""
    p = with_defaults(params)
    samples, primary, ssel, psel = build_rows(trials)
    res = TopicResult()
    res.numbers += forced_numbers(list(p.get("forced") or []))
    if samples.empty:
        return res
    k = samples_per_task(samples)
    kprov = nb.provenance("max", ssel, "samples of each task (the most any task has)")
    res.numbers += [
        nb.count(f"{PREFIX}.k", k, kprov),
        nb.count(f"{PREFIX}.n.models", int(samples["model"].nunique()), kprov),
        nb.stat(f"{PREFIX}.temperature.samples", float(samples["temperature"].iloc[0]), kprov, digits=1),
    ]
    if len(primary):
        tprov = nb.provenance("min", psel, "the lowest temperature of the primary condition on the build")
        res.numbers.append(
            nb.stat(f"{PREFIX}.temperature.primary", float(primary["temperature"].iloc[0]), tprov, digits=1)
        )
    passk: list[dict[str, Any]] = []
    for model, mine in samples.groupby("model", sort=True, observed=True):
        nums, rows = outcome_numbers(mine, k, nb.slug(model), trials, {**ssel, "model": model}, p)
        res.numbers += nums
        passk += [{"model": str(model), **r} for r in rows]
    res.numbers.append(
        nb.count(f"{PREFIX}.cal.bins", ECE_BINS, nb.provenance("len", ssel, "equal-width bins of confidence"))
    )
    bins: list[dict[str, Any]] = []
    sets = {"primary": (primary, psel), "samples": (samples, ssel)}
    for name in SETS:
        rows_of_set, sel = sets[name]
        for model, mine in rows_of_set.groupby("model", sort=True, observed=True):
            nums, brows = predictability_numbers(
                mine, name, nb.slug(model), trials, {**sel, "model": model}, p
            )
            res.numbers += nums
            bins += [{"model": str(model), "set": name, **b} for b in brows]
    res.tables["pass_k"] = passk
    res.tables["reliability_bins"] = bins
    res.tables["models"] = models_table(pd.concat([primary, samples]))
    return res
