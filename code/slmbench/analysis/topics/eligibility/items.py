"""The topic's two tables, which every sub-analysis selects from: the baselines' predictions (one row per item of
a task) and the runs' answers (one row per item of a run, beside the baseline's prediction for that item).

Columns of the answers: ``study``, ``file``, ``task``, ``model``, ``prompt``, ``quant``, ``id``, ``split``,
``stratum`` (tool selection: the item's source, ``own`` or ``bfcl``), ``label``, ``prediction``, ``right``
(prediction = label), ``margin``, ``ranking``, ``in_prompt`` (a few-shot example), and the baseline's
``base_prediction``, ``base_correct``, ``base_margin``, ``base_ranking``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis.topics.eligibility.common import STUDY, EligibilityInputError

BASELINE_COLUMNS = ["study", "task", "id", "split", "stratum", "label", "correct", "margin", "ranking"]
ANSWER_COLUMNS = [
    "study", "file", "task", "model", "prompt", "quant", "id", "split", "stratum", "label", "prediction", "right",
    "margin", "ranking", "in_prompt", "base_prediction", "base_correct", "base_margin", "base_ranking",
]  # fmt: skip
Config = tuple[str, str, str, str]
"""A run's configuration on a task: (model, prompt, quantisation, task)."""


def baseline_index(doc: dict[str, Any] | None) -> dict[str, dict[str, dict[str, Any]]]:
    """Task -> item id -> the baseline's prediction, from the baselines' document."""
    if not doc:
        return {}
    return {task: {row["id"]: row for row in part["items"]} for task, part in doc.get("tasks", {}).items()}


def baseline_table(base: dict[str, dict[str, dict[str, Any]]]) -> pd.DataFrame:
    """One row per item of every task the baselines cover."""
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
            })  # fmt: skip
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as dicts, in table order."""
    return rows.to_dict("records")  # type: ignore[return-value]
