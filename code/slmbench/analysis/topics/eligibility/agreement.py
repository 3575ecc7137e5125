"""The agreement of each task's second labelling pass with its labels: Cohen's kappa, and a phrase that also
covers a missing pass (``elig.<task>.kappa…``, ``elig.phrase.kappa.<task>``)."""

from __future__ import annotations

from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.topics.eligibility.common import STUDY, provenance, task_slug
from slmbench.vocab import ELIGIBILITY_TASKS


def kappa_numbers(kappa: dict[str, dict[str, Any]]) -> list[Number]:
    """Cohen's kappa of each task's second labelling pass (``{"kappa", "n", "agree", "file"}`` by task)."""
    out: list[Number] = []
    for task in ELIGIBILITY_TASKS:
        t = task_slug(task)
        k = kappa.get(task)
        sel = {"study": STUDY, "task": task, "file": k["file"] if k else None}
        prov = provenance(
            "slmbench.eligibility.kappa.cohen_kappa",
            sel,
            "second labelling pass vs the labels",
            unit="label pairs",
        )
        if k is None:
            out.append(
                Number(f"elig.phrase.kappa.{t}", "pending", "not yet measured (second pass pending)", prov)
            )
            continue
        out += [
            nb.stat(f"elig.{t}.kappa", k["kappa"], prov),
            nb.count(f"elig.{t}.kappa.n", k["n"], prov),
            nb.count(f"elig.{t}.kappa.disagree", k["n"] - k["agree"], prov),
        ]
        text = f"$\\kappa = {nb.fmt_stat(k['kappa'])}$ over {k['n']} items"
        out.append(Number(f"elig.phrase.kappa.{t}", k["kappa"], text, prov))
    return out
