"""Topic ``reliability_taxonomy``: the reliability suite measured along the taxonomy of Rabanser et al. (2026),
"Towards a Science of AI Agent Reliability" (arXiv 2602.16666): consistency (outcome, trajectory, resource),
robustness (prompt, fault; environment), predictability and safety (harm, compliance).

Per model and pooled over the instruction-tuned models (row ``all``), over the study's primary trials. What the
records cannot give (predictability needs a confidence score per run) is a phrase that says so, not a number.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import SCORED, model_info, models_table, primary_rows, scored
from slmbench.analysis.topics.flips import null_control_runs
from slmbench.analysis.topics.reliability_taxonomy.consistency import (
    outcome_numbers,
    repeated_runs,
    resource_numbers,
    trajectory_numbers,
)
from slmbench.analysis.topics.reliability_taxonomy.robustness import fault_numbers, prompt_numbers
from slmbench.analysis.topics.reliability_taxonomy.safety import safety_numbers
from slmbench.vocab import ORIGINAL_VARIANT, STUDY_ID

POOLED = "all"
"""The row slug of the instruction-tuned models pooled."""
TAXONOMY = [
    ("consistency", "outcome consistency", "tax.outcome.pass-hat-k, tax.outcome.mixed", "tasks"),
    (
        "consistency",
        "trajectory consistency",
        "tax.trajectory.same-calls, tax.trajectory.same-tools",
        "tasks",
    ),
    ("consistency", "resource consistency", "tax.resource.turns-cv, tax.resource.tokens-cv", "tasks"),
    ("robustness", "prompt robustness", "tax.prompt.flip-rate, tax.prompt.floor, tax.prompt.excess", "pairs"),
    ("robustness", "fault robustness", "tax.fault.<kind>", "pairs"),
    ("robustness", "environment robustness", "tax.phrase.environment", ""),
    ("predictability", "calibration, discrimination, Brier score", "tax.phrase.predictability", ""),
    ("safety", "harm", "tax.safety.harm", "trials"),
    ("safety", "compliance", "tax.safety.compliance", "trials"),
]
"""Each metric of the taxonomy: its dimension, its name, the keys that measure it and the unit their ``n``
counts (none: the records do not allow it)."""


@topic(
    reads=("trials", "events"),
    events=("trial_id", "seq", "type", "name", "arguments"),
    audit=("turns", "criteria"),
)
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Every metric of ``TAXONOMY`` the records allow, per model and pooled (see ``docs/keys.md``)."""
    p = with_defaults(params)
    alpha = p["alpha"]
    ours, base_sel = primary_rows(trials, STUDY_ID)
    df = ours[ours["suite"] == "reliability"]
    sc = scored(df)
    null_rows, null_base = null_control_runs(trials, STUDY_ID)
    null_sc = scored(null_rows)
    sel: dict[str, Any] = {**base_sel, "suite": "reliability"}
    runs, k = repeated_runs(sc)
    info = model_info(df) if len(df) else pd.DataFrame(columns=["is_base"])
    instruct = [str(m) for m in info.index if not info.loc[m, "is_base"]]
    groups = [(nb.slug(m), [str(m)]) for m in info.index]
    if POOLED in {s for s, _ in groups}:
        raise ValueError(f"a model's key slug is {POOLED!r}, the slug of the pooled row: rename the model")
    res = TopicResult(labels={POOLED: "pooled (instruct)"})
    prov = nb.provenance("len", sel, "reliability trials")
    kprov = nb.provenance(
        "min", {**sel, **SCORED, "variant": ORIGINAL_VARIANT}, "fewest runs of a task run twice"
    )
    res.numbers += [
        nb.count("tax.n.models", len(info), prov),
        nb.count("tax.n.trials", len(df), prov),
        nb.count("tax.k", k, kprov),
    ]
    for s, models in [*groups, (POOLED, instruct)]:
        who: Any = models if s == POOLED else models[0]
        msel = {**sel, **SCORED, "model": who}
        if s != POOLED and info.loc[who, "is_base"]:
            res.numbers.append(nb.flag(f"tax.base.{s}", True, nb.provenance("is_base", msel, "base model")))
        part = sc[sc["model"].isin(models)]
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
    res.numbers += [
        nb.text(key, phrase(), nb.provenance(phrase, sel, "what the records do not allow"))
        for key, phrase in (
            ("tax.phrase.predictability", ph.predictability_phrase),
            ("tax.phrase.environment", ph.environment_phrase),
        )
    ]
    res.tables["taxonomy"] = [
        {"dimension": d, "metric": m, "keys": keys, "unit": unit} for d, m, keys, unit in TAXONOMY
    ]
    res.tables["groups"] = [{"slug": s, "models": models} for s, models in [*groups, (POOLED, instruct)]]
    res.tables["models"] = models_table(df) if len(df) else []
    return res
