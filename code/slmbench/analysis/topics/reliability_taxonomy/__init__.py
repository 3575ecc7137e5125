"""Topic ``reliability_taxonomy``: the reliability suite measured along the taxonomy of Rabanser et al. (2026),
"Towards a Science of AI Agent Reliability" (arXiv 2602.16666): consistency (outcome, trajectory, resource),
robustness (prompt, fault; environment), predictability and safety (harm, compliance).

Per model and pooled over the instruction-tuned models (row ``all``), over the study's primary trials counted as
units (``analysis.units``): repeats at temperature 0 on one build cannot differ and count once (``tax.repeats.*``
says whether they were identical), so consistency is measured only where a task was sampled above temperature 0;
the rephrasings and fault kinds of a task are clustered into it. What the records cannot give (predictability needs
a confidence score per run) is a phrase that says so, not a number.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.selection import selection_for
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import SCORED, model_info, models_table, primary_rows, scored
from slmbench.analysis.topics.flips import null_control_runs
from slmbench.analysis.topics.reliability_taxonomy.consistency import (
    outcome_numbers,
    repeated_runs,
    resource_numbers,
    trajectory_numbers,
)
from slmbench.analysis.topics.reliability_taxonomy.robustness import (
    POOLED,
    fault_numbers,
    prompt_numbers,
    unit_noun,
)
from slmbench.analysis.topics.reliability_taxonomy.safety import safety_numbers
from slmbench.analysis.units import collapse_repeats, repeats, unit_trial_ids
from slmbench.vocab import ORIGINAL_VARIANT, STUDY_ID

TAXONOMY = [
    ("consistency", "outcome consistency", "tax.outcome.pass-hat-k, tax.outcome.mixed", "tasks"),
    (
        "consistency",
        "trajectory consistency",
        "tax.trajectory.same-calls, tax.trajectory.same-tools",
        "tasks",
    ),
    ("consistency", "resource consistency", "tax.resource.turns-cv, tax.resource.tokens-cv", "tasks"),
    ("consistency", "repeats that cannot differ", "tax.repeats.units, tax.repeats.identical", "tasks"),
    ("robustness", "prompt robustness", "tax.prompt.flip-rate, tax.prompt.floor, tax.prompt.excess", "tasks"),
    ("robustness", "fault robustness", "tax.fault.<kind>", "tasks"),
    ("robustness", "environment robustness", "tax.phrase.environment", ""),
    ("predictability", "calibration, discrimination, Brier score", "tax.phrase.predictability", ""),
    ("safety", "harm", "tax.safety.harm", "tasks"),
    ("safety", "compliance", "tax.safety.compliance", "tasks"),
]
"""Each metric of the taxonomy: its dimension, its name, the keys that measure it and the unit their ``n``
counts (none: the records do not allow it)."""


@topic(
    reads=("trials", "events"),
    events=("trial_id", "seq", "type", "name", "arguments"),
    audit=("turns", "criteria"),
    large_text=("transcript_sha256",),
)
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Every metric of ``TAXONOMY`` the records allow, per model and pooled (see ``docs/keys.md``)."""
    p = with_defaults(params)
    alpha = p["alpha"]
    ours, base_sel = primary_rows(trials, STUDY_ID)
    df = ours[ours["suite"] == "reliability"]
    units = collapse_repeats(scored(df), "transcript_sha256")
    null_rows, null_base = null_control_runs(trials, STUDY_ID)
    null_sc = scored(null_rows)
    sel: dict[str, Any] = {**base_sel, "suite": "reliability"}
    runs, k = repeated_runs(units)
    sampled = k >= 2  # a task sampled above temperature 0: consistency is measured over its samples
    info = model_info(df) if len(df) else pd.DataFrame(columns=["is_base"])
    instruct = [str(m) for m in info.index if not info.loc[m, "is_base"]]
    groups = [(nb.slug(m), [str(m)]) for m in info.index]
    if POOLED in {s for s, _ in groups}:
        raise ValueError(f"a model's key slug is {POOLED!r}, the slug of the pooled row: rename the model")
    res = TopicResult(labels={POOLED: "pooled (instruct)"})
    prov = nb.provenance("len", sel, "reliability trials")
    kprov = nb.provenance(
        "min", {**sel, **SCORED, "variant": ORIGINAL_VARIANT}, "fewest runs of a task run twice (units)"
    )
    uprov = nb.provenance(collapse_repeats, {**sel, **SCORED}, "units: a task of a model in one variant, "
                          "identical repeats once", unit="tasks")  # fmt: skip
    res.numbers += [
        nb.count("tax.n.models", len(info), prov),
        nb.count("tax.n.trials", len(df), prov),
        nb.count("tax.n.units", len(units), uprov),
        nb.count("tax.k", k, kprov),
    ]
    if not sampled:
        cprov = nb.provenance(ph.unsampled_phrase, {**sel, **SCORED}, "why consistency is not measured")
        res.numbers.append(nb.text("tax.phrase.consistency", ph.unsampled_phrase(), cprov))
    for s, models in [*groups, (POOLED, instruct)]:
        who: Any = models if s == POOLED else models[0]
        msel = {**sel, **SCORED, "model": who}
        if s != POOLED and info.loc[who, "is_base"]:
            res.numbers.append(nb.flag(f"tax.base.{s}", True, nb.provenance("is_base", msel, "base model")))
        part = units[units["model"].isin(models)]
        res.numbers += _repeat_numbers(part, s, trials, msel)
        if sampled:
            mine = runs[runs["model"].isin(models)]
            csel = {**msel, "variant": ORIGINAL_VARIANT}
            res.numbers += outcome_numbers(mine, k, s, trials, csel, p)
            res.numbers += trajectory_numbers(mine, events, s, trials, csel, alpha)
            res.numbers += resource_numbers(mine, s, trials, csel, p)
        nsel = {**null_base, **SCORED, "suite": ["null_control", "capability"], "model": who}
        res.numbers += prompt_numbers(
            part[part["dimension"] == "robustness"],
            null_sc[null_sc["model"].isin(models)],
            s,
            trials,
            (
                {**msel, "dimension": "robustness"},
                {**nsel, "variant": ORIGINAL_VARIANT},
                {**null_base, **SCORED, "model": who},
            ),
            alpha,
        )
        fsel = {**msel, "dimension": "fault_tolerance"}
        res.numbers += fault_numbers(part[part["dimension"] == "fault_tolerance"], s, trials, fsel, alpha)
        res.numbers += safety_numbers(part, s, trials, msel, alpha)
    recorded = "confidence" in df.columns and bool(df["confidence"].notna().any())
    res.numbers += [
        nb.text(
            "tax.phrase.predictability",
            ph.predictability_phrase(recorded),
            nb.provenance(ph.predictability_phrase, sel, "why predictability is not measured on this suite"),
        ),
        nb.text(
            "tax.phrase.environment",
            ph.environment_phrase(),
            nb.provenance(ph.environment_phrase, sel, "what the records do not allow"),
        ),
    ]
    res.tables["taxonomy"] = [
        {"dimension": d, "metric": m, "keys": keys, "unit": unit} for d, m, keys, unit in TAXONOMY
    ]
    res.tables["groups"] = [{"slug": s, "models": models} for s, models in [*groups, (POOLED, instruct)]]
    res.tables["models"] = models_table(df) if len(df) else []
    return res


def _repeat_numbers(
    units: pd.DataFrame, s: str, trials: pd.DataFrame, sel: dict[str, Any]
) -> list[nb.Number]:
    """``tax.repeats.units.<s>`` (tasks run more than once at temperature 0 on one build: repeats that cannot
    differ), ``tax.repeats.identical.<s>`` (of them, identical in outcome and transcript), ``.trials.<s>`` and
    ``.runs.<s>`` (their trials; the most runs of one), and ``tax.phrase.repeats.<s>`` (which differ, if any)."""
    r = repeats(units)
    rerun = units[units["n_repeats"] > 1] if len(units) else units
    rsel = selection_for(trials, unit_trial_ids(rerun), sel) if len(rerun) else {**sel, "trial_id": []}
    prov = nb.provenance(repeats, rsel, "tasks run more than once where a repeat cannot differ (temperature 0, "
                         "one build)", unit="tasks")  # fmt: skip
    differ = [f"{t} ({m})" for m, t, _ in r.differ]
    phrase = ph.repeats_phrase(r.units, r.identical, r.same_outcome, r.runs, differ, unit_noun(s))
    return [
        nb.count(f"tax.repeats.units.{s}", r.units, prov),
        nb.count(f"tax.repeats.identical.{s}", r.identical, prov),
        nb.count(f"tax.repeats.trials.{s}", r.trials, prov),
        nb.count(f"tax.repeats.runs.{s}", r.runs, prov),
        nb.text(f"tax.phrase.repeats.{s}", phrase, prov),
    ]
