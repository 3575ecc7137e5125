"""An independent labelling pass that is blind by construction, and its agreement with the data sets' labels.

The labeller is shown, per task, only the rubric and the items' text, shuffled and under opaque codes: no
labels, no ids (whose order follows how the items were written), no categories, variants or ``hard`` flags, no
notes and no earlier pass. ``prepare`` writes what the labeller sees (``items_shown.jsonl``, ``rubric_shown.md``)
and the code-to-id key (``codes.jsonl``) into ``<task>/independent/``; the labeller writes ``labels.jsonl``
there, keyed by code, and that file is kept as it came. ``agreement`` joins it to the items through the key.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slmbench.eligibility.kappa import LabelFileError, cohen_kappa
from slmbench.vocab import EligibilityTask

SHOWN_FIELDS: dict[EligibilityTask, tuple[str, ...]] = {
    "command_approval": ("command",),
    "memory_write": ("turns",),
    "reranking": ("query", "turns"),
    "tool_selection": ("request", "tools"),
}
"""The item fields a labeller sees, per task (in the order the preparation shuffles the tasks)."""
LABEL_FIELD: dict[EligibilityTask, str] = {
    "command_approval": "label",
    "memory_write": "label",
    "reranking": "relevant",
    "tool_selection": "label",
}
CATEGORY_FIELD = "category"
FOLDER = "independent"


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON Lines file; a bad line is an error naming file:line."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise LabelFileError(f"{path}:{number}: not JSON: {exc.msg}") from None
    return rows


def prepare(data_dir: Path, rubrics: dict[EligibilityTask, str], seed: int) -> dict[EligibilityTask, Path]:
    """Write each task's blind folder: shuffled items under codes, the rubric given, the key; one generator
    for all tasks, drawn in ``SHOWN_FIELDS`` order (so the same seed gives the same files)."""
    rng = random.Random(seed)
    out: dict[EligibilityTask, Path] = {}
    for task, fields in SHOWN_FIELDS.items():
        folder = data_dir / task / FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        items = read_jsonl(data_dir / task / "items.jsonl")
        rng.shuffle(items)
        shown, codes = [], []
        for item in items:
            code = f"x{rng.getrandbits(32):08x}"
            shown.append({"item": code, **{f: item[f] for f in fields}})
            codes.append({"item": code, "id": item["id"]})
        (folder / "items_shown.jsonl").write_text(_jsonl(shown), encoding="utf-8")
        (folder / "codes.jsonl").write_text(_jsonl(codes), encoding="utf-8")
        (folder / "rubric_shown.md").write_text(rubrics[task], encoding="utf-8")
        out[task] = folder
    return out


@dataclass
class BlindAgreement:
    """The independent pass against the data set's labels: label kappa, category kappa where both passes give
    one, per-category agreement (by the data set's category) and every disagreement."""

    task: str
    n: int
    agree: int
    kappa: float
    category_n: int = 0
    category_agree: int = 0
    category_kappa: float = float("nan")
    by_category: dict[str, tuple[int, int]] = field(default_factory=dict)
    disagreements: list[dict[str, Any]] = field(default_factory=list)


def blind_labels(folder: Path) -> dict[str, dict[str, Any]]:
    """Item id -> the independent pass's row, through the key; every code once, every item labelled."""
    key = {row["item"]: row["id"] for row in read_jsonl(folder / "codes.jsonl")}
    out: dict[str, dict[str, Any]] = {}
    path = folder / "labels.jsonl"
    for number, row in enumerate(read_jsonl(path), start=1):
        code = row.get("item")
        if code not in key:
            raise LabelFileError(f"{path}:{number}: field item: unknown code {code!r}")
        if key[code] in out:
            raise LabelFileError(f"{path}:{number}: field item: {code!r} labelled twice")
        out[key[code]] = row
    missing = sorted(set(key.values()) - set(out))
    if missing:
        raise LabelFileError(f"{path}: {len(missing)} item(s) not labelled, e.g. {missing[:3]}")
    return out


RESOLUTION = "resolution.jsonl"
"""``<task>/independent/resolution.jsonl``: each disagreement resolved by the rubric (first, independent,
resolved, reason). ``first_labels`` undoes it on ``items.jsonl`` and ``resolved_labels`` applies it, whichever
of the two ``items.jsonl`` keeps (the first, where the runs were scored with it)."""


def resolutions(data_dir: Path, task: EligibilityTask) -> list[dict[str, Any]]:
    """The recorded resolutions of ``task`` (none without a resolution file)."""
    path = data_dir / task / FOLDER / RESOLUTION
    return read_jsonl(path) if path.exists() else []


def first_labels(data_dir: Path, task: EligibilityTask) -> list[dict[str, Any]]:
    """The items as the first labeller left them: ``items.jsonl`` with every recorded resolution undone."""
    undo = {row["id"]: row["first"] for row in resolutions(data_dir, task)}
    return [{**item, **undo.get(item["id"], {})} for item in read_jsonl(data_dir / task / "items.jsonl")]


def resolved_labels(data_dir: Path, task: EligibilityTask) -> list[dict[str, Any]]:
    """The items after resolution: the first labels with every recorded resolution applied."""
    apply = {row["id"]: row["resolved"] for row in resolutions(data_dir, task)}
    return [{**item, **apply.get(item["id"], {})} for item in first_labels(data_dir, task)]


def pass_files(data_dir: Path, task: EligibilityTask) -> list[Path]:
    """The files ``agreement`` reads for ``task``: the items, the key, the labels and any resolution."""
    folder = data_dir / task / FOLDER
    files = [
        data_dir / task / "items.jsonl",
        folder / "codes.jsonl",
        folder / "labels.jsonl",
        folder / RESOLUTION,
    ]
    return [path for path in files if path.exists()]


def agreement(data_dir: Path, task: EligibilityTask, resolved: bool = False) -> BlindAgreement:
    """Compare ``<task>/independent/labels.jsonl`` with the first labels as they came (``resolved``: with the
    labels after resolution, ``resolved_labels``), ids in the items' order."""
    items = resolved_labels(data_dir, task) if resolved else first_labels(data_dir, task)
    blind = blind_labels(data_dir / task / FOLDER)
    name = LABEL_FIELD[task]
    first = [str(item[name]) for item in items]
    second = [str(blind[item["id"]].get(name)) for item in items]
    result = BlindAgreement(
        task, len(items), sum(a == b for a, b in zip(first, second, strict=True)), cohen_kappa(first, second)
    )
    with_category = [item for item in items if CATEGORY_FIELD in item and CATEGORY_FIELD in blind[item["id"]]]
    if with_category:
        a = [str(item[CATEGORY_FIELD]) for item in with_category]
        b = [str(blind[item["id"]][CATEGORY_FIELD]) for item in with_category]
        result.category_n, result.category_agree = len(a), sum(x == y for x, y in zip(a, b, strict=True))
        result.category_kappa = cohen_kappa(a, b)
    for item in items:
        row = blind[item["id"]]
        group = str(item.get(CATEGORY_FIELD, item[name] if task != "reranking" else "all"))
        n, agree = result.by_category.get(group, (0, 0))
        same_label = str(item[name]) == str(row.get(name))
        same = same_label and (CATEGORY_FIELD not in item or item[CATEGORY_FIELD] == row.get(CATEGORY_FIELD))
        result.by_category[group] = (n + 1, agree + int(same))
        if not same:
            result.disagreements.append(
                {
                    "id": item["id"],
                    "first": {k: item[k] for k in (name, CATEGORY_FIELD) if k in item},
                    "independent": {k: row[k] for k in (name, CATEGORY_FIELD, "note") if k in row},
                }
            )
    return result
