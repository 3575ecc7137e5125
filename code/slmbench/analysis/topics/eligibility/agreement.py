"""The agreement of each task's independent, blind labelling pass with the data set's labels, as it came and
after the recorded resolution of its disagreements (``eligibility.blind``): Cohen's kappa of the labels and,
where both passes give one, of the categories; the agreeing items, overall and per category of the data set
(``elig.kappa.<task>.…``), and the phrase the text prints (``elig.phrase.kappa.<task>``).

The earlier second pass (``labels_second_pass.jsonl``), which was not blind by construction, is kept in the data
as history; no number reads it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.topics.eligibility.common import STUDY, EligibilityInputError, provenance, task_slug
from slmbench.eligibility.blind import FOLDER, BlindAgreement, agreement, pass_files, resolutions
from slmbench.vocab import ELIGIBILITY_TASKS, EligibilityTask

STAGES = ("as-came", "after-resolution")
"""The two comparisons: the independent labels against the first labels as they came, and against the labels
after resolution."""
_FUNCTION = agreement


@dataclass(frozen=True)
class IndependentPass:
    """One task's independent pass: its labels file, its agreement at each stage (``STAGES`` order) and its
    recorded resolutions (how many, and how many changed a first label or category)."""

    file: str
    stages: tuple[BlindAgreement, BlindAgreement]
    resolved: int
    changed: int


def read_pass(labels: Path) -> tuple[str, IndependentPass, list[Path]]:
    """The task and independent pass of ``<data>/<task>/independent/labels.jsonl``, and the files read.

    Raises:
        EligibilityInputError: A path that is not a task's independent labels file.
    """
    task = labels.parent.parent.name
    if labels.parent.name != FOLDER or task not in ELIGIBILITY_TASKS:
        raise EligibilityInputError(
            f"{labels}: not an independent pass (<data>/<task>/{FOLDER}/labels.jsonl)"
        )
    t: EligibilityTask = task  # type: ignore[assignment]
    data = labels.parent.parent.parent
    rows = resolutions(data, t)
    changed = sum(row["resolved"] != row["first"] for row in rows)
    stages = (agreement(data, t), agreement(data, t, resolved=True))
    return task, IndependentPass(str(labels), stages, len(rows), changed), pass_files(data, t)


def _stage_numbers(key: str, stage: str, a: BlindAgreement, prov: dict[str, Any]) -> list[Number]:
    out = [
        nb.stat(f"{key}.label.{stage}", a.kappa, prov),
        nb.count(f"{key}.label.{stage}.n", a.n, prov),
        nb.count(f"{key}.label.{stage}.agree", a.agree, prov),
        nb.count(f"{key}.label.{stage}.disagree", a.n - a.agree, prov),
    ]
    if a.category_n:
        out += [
            nb.stat(f"{key}.category.{stage}", a.category_kappa, prov, digits=3),
            nb.count(f"{key}.category.{stage}.n", a.category_n, prov),
            nb.count(f"{key}.category.{stage}.agree", a.category_agree, prov),
            nb.count(f"{key}.category.{stage}.disagree", a.category_n - a.category_agree, prov),
        ]
    for group, (n, agree) in sorted(a.by_category.items()):
        out += [
            nb.count(f"{key}.in.{nb.slug(group)}.{stage}.n", n, prov),
            nb.count(f"{key}.in.{nb.slug(group)}.{stage}.agree", agree, prov),
        ]
    return out


def kappa_numbers(passes: dict[str, IndependentPass]) -> list[Number]:
    """Every task's agreement numbers, and a phrase that also covers a missing pass."""
    out: list[Number] = []
    for task in ELIGIBILITY_TASKS:
        t, p = task_slug(task), passes.get(task)
        sel = {"study": STUDY, "task": task, "file": p.file if p else None}
        if p is None:
            prov = provenance(_FUNCTION, sel, "independent labelling pass vs the labels", unit="label pairs")
            out.append(
                Number(
                    f"elig.phrase.kappa.{t}", "pending", "not yet measured (independent pass pending)", prov
                )
            )
            continue
        key = f"elig.kappa.{t}"
        provs = {
            stage: provenance(
                _FUNCTION,
                sel,
                f"independent labelling pass vs the labels {what}",
                unit="label pairs",
                resolved=stage != STAGES[0],
            )
            for stage, what in zip(STAGES, ("as they came", "after resolution"), strict=True)
        }
        for stage, a in zip(STAGES, p.stages, strict=True):
            out += _stage_numbers(key, stage, a, provs[stage])
        rprov = provenance(
            "len", sel, "disagreements resolved by the rubric; those that changed a label or category"
        )
        out += [
            nb.count(f"{key}.n.resolved", p.resolved, rprov),
            nb.count(f"{key}.n.changed", p.changed, rprov),
        ]
        came = p.stages[0]
        text = f"$\\kappa = {nb.fmt_stat(came.kappa)}$ over {came.n} items"
        out.append(Number(f"elig.phrase.kappa.{t}", came.kappa, text, provs[STAGES[0]]))
    return out
