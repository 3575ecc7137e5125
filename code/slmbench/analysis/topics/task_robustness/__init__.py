"""Topic ``task_robustness``: prompt robustness, fault robustness and safety on every task, from the runs on one
build (``build_run``: at T = 0, each task once).

- Prompt robustness, per instruction-tuned model: each capability task's original run against its three
  paraphrases (``prompt``: flips and accuracies with task-cluster bootstrap intervals, an exact sign test on the
  task-level difference).
- Fault robustness, per model and fault kind: each task's original run against its faulted run (``faults``:
  discordant tasks both ways, exact McNemar, Benjamini-Hochberg across every model and kind).
- Safety, per model: harm over the harm tasks and compliance over the compliance tasks, apart (``safety``:
  Wilson over tasks).

Every number's ``n`` counts tasks or pairs (its provenance says which). A block has no numbers where the records
hold no run on one build of its kind (``trob.n.models`` is then 0).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.selection import selection_for
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import SCORED, models_table
from slmbench.analysis.topics.task_robustness.faults import fault_numbers, fault_tests
from slmbench.analysis.topics.task_robustness.prompt import prompt_numbers
from slmbench.analysis.topics.task_robustness.rows import build_run_rows, perturbed_pairs, safety_runs
from slmbench.analysis.topics.task_robustness.safety import safety_numbers
from slmbench.vocab import PERTURBATIONS, STUDY_ID

PARAPHRASE, FAULT = PERTURBATIONS
"""The perturbations this topic reads."""


@topic(reads=("trials",), part="build_run")
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Every number of the module docstring's three blocks, per model (see ``docs/keys.md``)."""
    p = with_defaults(params)
    alpha = p["alpha"]
    rows = build_run_rows(trials, STUDY_ID)
    base: dict[str, Any] = {"study": STUDY_ID, "build_run": True, **SCORED}
    res = TopicResult()
    para, fault, safety = perturbed_pairs(rows, PARAPHRASE), perturbed_pairs(rows, FAULT), safety_runs(rows)
    read = pd.concat([para, fault, safety], ignore_index=True)
    ids = (
        {*read["trial_id"].astype(str), *read["trial_id_base"].dropna().astype(str)}
        if "trial_id_base" in read
        else set(read.get("trial_id", pd.Series(dtype=object)).astype(str))
    )
    sel = selection_for(trials, ids, base) if ids else {**base, "trial_id": []}
    prov = nb.provenance(
        "len", sel, "models with a paraphrased, faulted or safety run on one build", unit="trials"
    )
    res.numbers.append(nb.count("trob.n.models", read["model"].nunique() if len(read) else 0, prov))
    if read.empty:
        return res
    res.tables["models"] = models_table(rows[rows["model"].isin(set(read["model"].astype(str)))])
    prompt_rows: list[dict[str, Any]] = []
    tests = []
    safety_rows: list[dict[str, Any]] = []
    for model in sorted(set(read["model"].astype(str))):
        s = nb.slug(model)
        mine = para[para["model"].astype(str) == model]
        if len(mine):
            nums, row = prompt_numbers(mine, s, trials, {**base, "model": model}, p)
            res.numbers += nums
            prompt_rows.append({"model": model, **row})
        tests += fault_tests(fault[fault["model"].astype(str) == model], model)
        runs = safety[safety["model"].astype(str) == model]
        if len(runs):
            nums, row = safety_numbers(runs, s, trials, {**base, "model": model}, alpha)
            res.numbers += nums
            safety_rows.append({"model": model, **row})
    if prompt_rows:
        sel = selection_for(trials, {*para["trial_id"], *para["trial_id_base"]}, base)
        cprov = nb.provenance("count", sel, "models with paraphrased runs, and of them those with a flip")
        res.numbers += [
            nb.count("trob.prompt.n.models", len(prompt_rows), cprov),
            nb.count("trob.prompt.n.models-flipped", sum((r["flip"] or 0) > 0 for r in prompt_rows), cprov),
        ]
        res.tables["prompt"] = prompt_rows
    if tests:
        nums, fault_rows = fault_numbers(tests, trials, base, alpha)
        res.numbers += nums
        res.tables["faults"] = fault_rows
    if safety_rows:
        sel = selection_for(trials, safety["trial_id"], base)
        sprov = nb.provenance(
            "count", sel, "models with safety runs; of them with a harm, with an over-refusal"
        )
        res.numbers += [
            nb.count("trob.safety.n.models", len(safety_rows), sprov),
            nb.count("trob.safety.n.models-harm", sum((r["harm"] or 0) > 0 for r in safety_rows), sprov),
            nb.count(
                "trob.safety.n.models-over-refusal",
                sum((r["over-refusal"] or 0) > 0 for r in safety_rows),
                sprov,
            ),
        ]
        res.tables["safety"] = safety_rows
    return res
