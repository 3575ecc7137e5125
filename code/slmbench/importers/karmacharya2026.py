"""Importer of the published nine-model Ollama study (Karmacharya, 2026) into the trials schema.

Capability rows come from ``raw/v2/capability_*.json`` (31 tasks, T=0), the temperature sweep from
``raw/tempsweep_*.json``, and reliability rows from the dimension blocks of ``raw/report_*.json``. The
consistency block publishes only a per-task success rate over ``num_runs`` runs; it is expanded into runs
(marked ``derived_from_rate``) only when ``rate * runs`` is a whole number.
"""

from __future__ import annotations

import json
import logging
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench import vocab

logger = logging.getLogger(__name__)

STUDY = "karmacharya2026"
COLUMNS = [
    "trial_id", "study", "suite", "task_id", "group", "dimension", "variant", "model", "params_b", "is_base",
    "temperature", "seed", "repeat", "scaffold", "parser_mode", "outcome", "passed", "partial",
    "failure_class", "failure_class_clock_first", "refused", "turns", "wall_s", "prompt_tokens",
    "completion_tokens", "n_tool_calls", "n_refusals", "peak_rss_mb", "answer", "source_file", "source_line",
    "derived_from_rate",
]  # fmt: skip
SUMMARY_COLUMNS = [
    "model", "accuracy", "consistency_score", "robustness_score", "fault_tolerance_score", "safety_score",
    "composite_reliability",
]  # fmt: skip
DIMENSIONS = ("consistency_score", "robustness_score", "fault_tolerance_score", "safety_score")
_PERTURBATION_VARIANT = {"typo": "typos"}


class ImportErrorDetail(ValueError):
    """A raw file of the study is missing a field or holds a wrong value."""


def params_from_tag(tag: str) -> float:
    """Parameter count in billions from an Ollama tag: ``llama3.2:1b`` -> 1.0, ``phi3.5:3.8b`` -> 3.8."""
    m = re.search(r":(\d+(?:\.\d+)?)([bm])\b", tag.lower())
    if not m:
        raise ValueError(f"no parameter count in model tag {tag!r}")
    value = float(m.group(1))
    return value / 1000.0 if m.group(2) == "m" else value


def _get(obj: Any, field: str, path: Path, where: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(obj, dict) or field not in obj:
        raise ImportErrorDetail(f"{path}: {where}: missing field {field!r}")
    value = obj[field]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is float and isinstance(value, bool)):
        raise ImportErrorDetail(f"{path}: {where}.{field}: expected {kind}, got {value!r}")
    return value


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ImportErrorDetail(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ImportErrorDetail(f"{path}: expected a JSON object at the top level")
    return data


def _row(model: str, rel: str, line: int, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        study=STUDY, model=model, params_b=params_from_tag(model), is_base=False, source_file=rel,
        source_line=line, derived_from_rate=False, seed=None, repeat=0, variant="original",
    )  # fmt: skip
    row.update(fields)
    passed = bool(row["passed"])
    row["outcome"] = "success" if passed else "failure"
    if row["partial"] is None:
        row["partial"] = 1.0 if passed else 0.0
    row["trial_id"] = "/".join(
        [
            STUDY,
            model,
            row["suite"],
            row["dimension"] or "-",
            f"t{row['temperature']:g}",
            row["task_id"],
            row["variant"],
            str(row["repeat"]),
        ]
    )
    return row


def _capability(path: Path, rel: str, sweep: bool) -> list[dict[str, Any]]:
    data = _load(path)
    model = _get(data, "model", path, "top", str)
    temperature = _get(data, "temperature", path, "top", float)
    rows = []
    for i, task in enumerate(_get(data, "per_task", path, "top", list)):
        where = f"per_task[{i}]"
        task_id = _get(task, "task_id", path, where, str)
        fields: dict[str, Any] = {
            "suite": "capability",
            "task_id": task_id,
            "group": task_id.rsplit("-", 1)[0],
            "temperature": temperature,
            "passed": _get(task, "correctness", path, where, bool),
            "partial": _get(task, "score", path, where, float),
        }
        if not sweep:
            fields["turns"] = _get(task, "steps", path, where, int)
            fields["wall_s"] = _get(task, "duration_ms", path, where, float) / 1000.0
        rows.append(_row(model, rel, i, **fields))
    return rows


def _reliability(path: Path, rel: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    data = _load(path)
    model = _get(data, "model", path, "top", str)
    summary = _get(data, "summary", path, "top", dict)
    srow = {"model": model, **{c: _get(summary, c, path, "summary", float) for c in SUMMARY_COLUMNS[1:]}}
    base: dict[str, Any] = {"suite": "reliability", "temperature": 0.0}
    rows: list[dict[str, Any]] = []

    def rel_row(line: int, task: str, dim: str, **fields: Any) -> None:
        rows.append(_row(model, rel, line, **base, task_id=task, group=dim, dimension=dim, **fields))

    cons = _get(data, "consistency", path, "top", dict)
    for i, task in enumerate(cons.get("per_task", [])):
        where = f"consistency.per_task[{i}]"
        name = _get(task, "task", path, where, str)
        runs = _get(task, "num_runs", path, where, int)
        rate = _get(task, "success_rate", path, where, float)
        k = rate * runs
        if runs < 1 or not math.isclose(k, round(k), abs_tol=1e-9):
            raise ImportErrorDetail(
                f"{path}: {where}.success_rate: {rate} x {runs} runs is not a whole number"
            )
        for r in range(runs):
            rel_row(i, name, "consistency", repeat=r, passed=r < round(k), derived_from_rate=True)
    rob = _get(data, "robustness", path, "top", dict)
    for i, task in enumerate(rob.get("per_task", [])):
        where = f"robustness.per_task[{i}]"
        name = _get(task, "task", path, where, str)
        rel_row(i, name, "robustness", passed=_get(task, "baseline_success", path, where, bool))
        results = _get(task, "perturbation_results", path, where, dict)
        scores = task.get("perturbation_scores", {})
        for pert in sorted(results):
            ok = _get(results, pert, path, f"{where}.perturbation_results", bool)
            partial = scores.get(pert)
            rel_row(
                i,
                name,
                "robustness",
                variant=_PERTURBATION_VARIANT.get(pert, pert),
                passed=ok,
                partial=partial,
            )
    ft = _get(data, "fault_tolerance", path, "top", dict)
    for i, task in enumerate(ft.get("per_task", [])):
        where = f"fault_tolerance.per_task[{i}]"
        name = _get(task, "task", path, where, str)
        results = _get(task, "fault_results", path, where, dict)
        scores = task.get("fault_scores", {})
        for fault in sorted(results):
            ok = _get(results, fault, path, f"{where}.fault_results", bool)
            rel_row(
                i, name, "fault_tolerance", variant=f"fault_{fault}", passed=ok, partial=scores.get(fault)
            )
    saf = _get(data, "safety", path, "top", dict)
    for i, test in enumerate(saf.get("per_test", [])):
        where = f"safety.per_test[{i}]"
        safe = _get(test, "safe", path, where, bool)
        rel_row(i, _get(test, "test_id", path, where, str), "safety", passed=safe, refused=safe)
    per_task = [d for d in vocab.DIMENSIONS if d != "safety"]  # safety reports per test
    for block in per_task:
        if "per_task" not in data[block]:
            logger.warning("%s: %s has no per-task results (%s)", path, block, data[block].get("notes", ""))
    return rows, srow


def import_study(root: Path) -> pd.DataFrame:
    """All trials of the study under ``root`` (the folder holding ``raw/``), in the trials schema."""
    rows, _ = _import(root)
    return rows


def import_summary(root: Path) -> pd.DataFrame:
    """The published per-model summary (dimension scores and composite reliability)."""
    _, summary = _import(root)
    return summary


def _display(path: Path, root: Path) -> str:
    """The path as recorded in ``source_file``: relative to the working directory when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.relative_to(root))


def _import(root: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    raw = root / "raw"
    cap_files = sorted((raw / "v2").glob("capability_*.json"))
    sweep_files = sorted(raw.glob("tempsweep_*.json"))
    report_files = sorted(raw.glob("report_*.json"))
    if not cap_files or not report_files:
        raise ImportErrorDetail(f"{raw}: expected v2/capability_*.json and report_*.json files")
    rows: list[dict[str, Any]] = []
    summaries: list[dict[str, Any]] = []
    for p in cap_files:
        rows += _capability(p, _display(p, root), sweep=False)
    for p in sweep_files:
        rows += _capability(p, _display(p, root), sweep=True)
    for p in report_files:
        r, s = _reliability(p, _display(p, root))
        rows += r
        summaries.append(s)
    trials = pd.DataFrame(rows, columns=COLUMNS)
    dupes = trials["trial_id"][trials["trial_id"].duplicated()]
    if len(dupes):
        raise ImportErrorDetail(f"{root}: duplicate trials {sorted(dupes)[:3]}")
    trials = trials.astype({"params_b": float, "temperature": float, "partial": float, "repeat": int})
    trials = trials.astype({"source_line": int, "passed": bool, "is_base": bool, "derived_from_rate": bool})
    trials = trials.astype({"wall_s": float, "turns": "Int64"})
    logger.info("imported %d trials of %d models", len(trials), trials["model"].nunique())
    summary = pd.DataFrame(summaries, columns=SUMMARY_COLUMNS).sort_values("model", ignore_index=True)
    return trials.sort_values("trial_id", ignore_index=True), summary
