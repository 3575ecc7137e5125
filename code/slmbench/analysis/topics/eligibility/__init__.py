"""Topic ``eligibility``: is a small-model configuration a better side-task decider than a non-LLM baseline?

Reads the raw eligibility runs (``data/raw/eligibility/**.jsonl``) and the baselines' predictions
(``data/processed/eligibility_baselines.json``), not the trials table (``inputs``), and lays them out as two
tables (``items``): the baselines' predictions per item, and each run's answers beside the baseline's on the same
item. Each sub-analysis declares the rows it reads as a selection of those tables (``runs``) and computes on
them, so every number's provenance is the selection it was computed from. For each configuration (model x
prompt x quantisation) and task, on the test split:

* accuracy (accuracy@1 for reranking, plus MRR) with its Wilson interval, the baseline's accuracy on the same
  items, and **eligible** when the Wilson lower bound exceeds it; also with the stated ``margin``
  (``configs``); beside it the paired test against the baseline on the same items, BH across the grid
  (``paired``); tool selection also per item source, own and BFCL (``sources``);
* binary tasks, **threshold diagnosis** (``diagnosis``): the margin cut-off tuned on calibration, applied to test;
* tool selection and reranking, the **cascade** (``cascade``): BM25 unless its top-1/top-2 margin is below a
  calibration-chosen threshold, then the model, against the model alone and BM25 alone;
* requantised variants against the shipped file of the same model and prompt, paired by item (``quant``);
* accuracy on the test items the rubric does not quote and on one item per family, beside all of them
  (``subsets``); for memory write, the acknowledgement cue beside the keyword rule (``cue``); for reranking, the
  answers by position and position-debiased scores from the recorded answers (``positions``);
* the counts and phrases over all of them (``summary``), the runs recorded against the plan (``coverage``), each
  task's items and baseline (``tasks``) and the agreement of its independent labelling pass (``agreement``).
"""

from __future__ import annotations

from typing import Any

from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.eligibility.agreement import kappa_numbers
from slmbench.analysis.topics.eligibility.cascade import cascade, cascade_summary
from slmbench.analysis.topics.eligibility.common import EligibilityInputError, config_slug, task_slug
from slmbench.analysis.topics.eligibility.configs import baseline_accuracy, config_numbers
from slmbench.analysis.topics.eligibility.coverage import coverage
from slmbench.analysis.topics.eligibility.cue import cue_numbers, cue_summary, cue_tasks, vs_cue
from slmbench.analysis.topics.eligibility.diagnosis import diagnosis
from slmbench.analysis.topics.eligibility.inputs import EligibilityInputs, load_inputs
from slmbench.analysis.topics.eligibility.items import (
    answer_table,
    baseline_index,
    baseline_table,
    index_runs,
)
from slmbench.analysis.topics.eligibility.paired import grid_numbers
from slmbench.analysis.topics.eligibility.positions import POSITION_TASK, position_numbers, positions_summary
from slmbench.analysis.topics.eligibility.quant import quant_rows, quant_summary
from slmbench.analysis.topics.eligibility.runs import runs_of
from slmbench.analysis.topics.eligibility.sources import SOURCE_TASK, source_grid, source_numbers
from slmbench.analysis.topics.eligibility.subsets import subset_numbers, subset_summary, task_subset_numbers
from slmbench.analysis.topics.eligibility.summary import best_per_task, summary
from slmbench.analysis.topics.eligibility.tasks import bm25_numbers, task_numbers
from slmbench.vocab import BINARY_TASKS, ELIGIBILITY_TASKS, RANKING_TASKS

__all__ = [
    "EligibilityInputError", "EligibilityInputs", "compute", "config_slug", "load_inputs", "task_slug",
]  # fmt: skip


@topic(reads=("baselines", "record", "independent"), part="eligibility")
def compute(inputs: EligibilityInputs, params: dict[str, Any]) -> TopicResult:
    """Eligibility, threshold diagnosis, cascade and requantisation from the runs and the baselines (see
    ``load_inputs``); ``params["planned_runs"]``, when given, is how many runs the study plans."""
    p = with_defaults(params)
    alpha, margin = float(p["alpha"]), float(p["margin"])
    base = baseline_index(inputs.baselines)
    baselines = baseline_table(base)
    res = TopicResult()
    task_rows = []
    for task in ELIGIBILITY_TASKS:
        if task in base:
            name = (inputs.baselines or {})["tasks"][task]["baseline"]
            nums, row = task_numbers(task, baselines, name, alpha)
            res.numbers += nums + task_subset_numbers(task, baselines, name, alpha)
            task_rows.append(row)
    cues = cue_tasks(baselines)
    for cue_task in cues:
        part = (inputs.baselines or {})["tasks"][cue_task]
        res.numbers += cue_numbers(cue_task, baselines, part["cue"], part.get("cue_phrases", []), alpha)
    if any(task in base for task in RANKING_TASKS):
        res.numbers += bm25_numbers(baselines)
    indexed = index_runs(inputs.runs, base)
    runs = runs_of(answer_table(indexed, base), indexed)
    table, sources, positions = [], [], []
    for run in runs:
        planned_test = sum(1 for b in base[run.task].values() if b["split"] == "test")
        base_acc = baseline_accuracy(run)
        nums, row = config_numbers(run, base_acc, planned_test, alpha, margin)
        nums += subset_numbers(run, alpha, row)
        if run.task in cues:
            nums += vs_cue(run, alpha, row)
        if run.task == POSITION_TASK:
            pnums, prow = position_numbers(run, alpha)
            nums += pnums
            positions.append(prow)
        if run.task in BINARY_TASKS:
            nums += diagnosis(run, base_acc, row["eligible"], alpha, row)
        else:
            nums += cascade(run, base_acc, alpha, row)
        if run.task == SOURCE_TASK:
            snums, srows = source_numbers(run, alpha)
            nums += snums
            sources += srows
        res.numbers += nums
        table.append(row)
    res.numbers += grid_numbers(runs, table, alpha)
    multi = [i for i, run in enumerate(runs) if run.task not in BINARY_TASKS]
    res.numbers += cascade_summary([runs[i] for i in multi], [table[i] for i in multi], alpha)
    res.numbers += source_grid(sources, alpha)
    qrows = quant_rows(runs, table)
    counts, prov = summary(table, margin)
    res.numbers += counts
    res.numbers += quant_summary(qrows, prov)
    res.numbers += best_per_task(table)
    res.numbers += coverage(list(indexed), p.get("planned_runs"))
    res.numbers += kappa_numbers(inputs.independent)
    res.numbers += subset_summary(table, baselines, (inputs.baselines or {}).get("quoting"))
    res.numbers += cue_summary(cues, table)
    res.numbers += positions_summary(positions)
    res.tables["tasks"] = task_rows
    res.tables["configs"] = table
    res.tables["diagnosis"] = [r for r in table if r["task"] in BINARY_TASKS]
    res.tables["cascade"] = [r for r in table if r["task"] not in BINARY_TASKS]
    res.tables["quant"] = qrows
    res.tables["sources"] = sources
    res.tables["positions"] = positions
    return res
