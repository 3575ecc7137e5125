"""The topic's two tables, which every sub-analysis selects from: the baselines' predictions (one row per item of
a task) and the runs' answers (one row per item of a run, beside the baseline's prediction for that item).

Columns of the answers: ``study``, ``file``, ``task``, ``model``, ``prompt``, ``quant``, ``id``, ``split``,
``stratum`` (tool selection: the item's source, ``own`` or ``bfcl``), ``label``, ``prediction``, ``right``
(prediction = label), ``margin``, ``ranking``, ``in_prompt`` (a few-shot example), and the baseline's
``base_prediction``, ``base_correct``, ``base_margin``, ``base_ranking``; and two facts of the item, how its
rubric quotes it (``quoted``: ``verbatim``, ``part``, ``none``; ``unknown`` where the baselines do not say) and
whether it stands for its family (``family_rep``: the first test item of its family by id, so one per family;
a family is a base command with its rewrites, any other item its own); and, for memory write, whether the
acknowledgement cue is right on it (``cue_correct``; None for other tasks); and the run's candidate ``scores``.
The baselines' table also holds ``family`` and, for memory write, the acknowledgement cue's ``cue_prediction``,
``cue_correct`` and ``cue_fired``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis.topics.eligibility.common import STUDY, EligibilityInputError

BASELINE_COLUMNS = [
    "study", "task", "id", "split", "stratum", "label", "correct", "margin", "ranking", "family", "quoted",
    "family_rep", "cue_prediction", "cue_correct", "cue_fired",
]  # fmt: skip
ANSWER_COLUMNS = [
    "study", "file", "task", "model", "prompt", "quant", "id", "split", "stratum", "label", "prediction", "right",
    "margin", "ranking", "in_prompt", "base_prediction", "base_correct", "base_margin", "base_ranking", "quoted",
    "family_rep", "cue_correct", "scores",
]  # fmt: skip
UNKNOWN = "unknown"
"""``quoted`` of an item whose baselines' document does not say how its rubric quotes it."""
Config = tuple[str, str, str, str]
"""A run's configuration on a task: (model, prompt, quantisation, task)."""


def baseline_index(doc: dict[str, Any] | None) -> dict[str, dict[str, dict[str, Any]]]:
    """Task -> item id -> the baseline's prediction, from the baselines' document."""
    if not doc:
        return {}
    return {task: {row["id"]: row for row in part["items"]} for task, part in doc.get("tasks", {}).items()}


def family_representatives(base: dict[str, dict[str, dict[str, Any]]]) -> set[tuple[str, str]]:
    """(task, id) of each family's first test item by id (an item without a recorded family is its own)."""
    first: dict[tuple[str, str], str] = {}
    for task, items in base.items():
        for b in items.values():
            if b["split"] != "test":
                continue
            fam = (task, str(b.get("family") or b["id"]))
            if fam not in first or b["id"] < first[fam]:
                first[fam] = b["id"]
    return {(task, item) for (task, _), item in first.items()}


def baseline_table(base: dict[str, dict[str, dict[str, Any]]]) -> pd.DataFrame:
    """One row per item of every task the baselines cover."""
    reps = family_representatives(base)
    rows = [
        {
            "study": STUDY,
            "task": task,
            "id": b["id"],
            "split": b["split"],
            "stratum": str(b.get("stratum", "")),
            "label": str(b["label"]),
            "correct": bool(b["correct"]),
            "margin": b.get("margin"),
            "ranking": b.get("ranking"),
            "family": str(b.get("family") or b["id"]),
            "quoted": str(b.get("quoted") or UNKNOWN),
            "family_rep": (task, b["id"]) in reps,
            "cue_prediction": b.get("cue"),
            "cue_correct": None if b.get("cue") is None else str(b["cue"]) == str(b["label"]),
            "cue_fired": None if b.get("cue") is None else b.get("cue_rule") is not None,
        }  # fmt: skip
        for task, items in base.items()
        for b in items.values()
    ]
    return pd.DataFrame(rows, columns=BASELINE_COLUMNS)


def index_runs(
    runs: list[dict[str, Any]], base: dict[str, dict[str, dict[str, Any]]]
) -> dict[Config, dict[str, Any]]:
    """The runs by configuration (sorted).

    Raises:
        EligibilityInputError: Two runs of one configuration, or a run of a task without baselines.
    """
    out: dict[Config, dict[str, Any]] = {}
    for run in runs:
        h = run["header"]
        cfg = (h["model"], h["prompt"], h["quant"], h["task"])
        if cfg in out:
            raise EligibilityInputError(f"{run['file']} repeats the configuration of {out[cfg]['file']}")
        if h["task"] not in base:
            raise EligibilityInputError(f"{run['file']}: no baseline predictions for task {h['task']}")
        out[cfg] = run
    return dict(sorted(out.items()))


def answer_table(
    runs: dict[Config, dict[str, Any]], base: dict[str, dict[str, dict[str, Any]]]
) -> pd.DataFrame:
    """One row per item of every run, beside the baseline's prediction for it.

    Raises:
        EligibilityInputError: An item without a baseline prediction, or whose split or label differs from it.
    """
    reps = family_representatives(base)
    rows = []
    for (model, prompt, quant, task), run in runs.items():
        for r in run["items"]:
            b = base[task].get(r["id"])
            if b is None:
                raise EligibilityInputError(f"{run['file']}: item {r['id']} has no baseline prediction")
            if b["split"] != r["split"] or str(b["label"]) != str(r["label"]):
                raise EligibilityInputError(
                    f"{run['file']}: item {r['id']} differs from the baselines in split or label"
                )
            rows.append({
                "study": STUDY, "file": run["file"], "task": task, "model": model, "prompt": prompt, "quant": quant,
                "id": r["id"], "split": r["split"], "stratum": str(r.get("stratum", "")), "label": str(r["label"]),
                "prediction": str(r["prediction"]), "right": str(r["prediction"]) == str(r["label"]),
                "margin": r.get("margin"), "ranking": r.get("ranking"), "in_prompt": bool(r.get("in_prompt")),
                "base_prediction": str(b["prediction"]), "base_correct": bool(b["correct"]),
                "base_margin": b.get("margin"), "base_ranking": b.get("ranking"),
                "quoted": str(b.get("quoted") or UNKNOWN), "family_rep": (task, r["id"]) in reps,
                "cue_correct": None if b.get("cue") is None else str(b["cue"]) == str(b["label"]),
                "scores": r.get("scores"),
            })  # fmt: skip
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as dicts, in table order."""
    return rows.to_dict("records")  # type: ignore[return-value]
