"""Counts over the configuration-task pairs (eligible, diagnosed, cascades), the best configuration of each task
and the phrases the text prints (``elig.n.…``, ``elig.<task>.best…``, ``elig.phrase.…``)."""

from __future__ import annotations

import math
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_threshold import CASCADE_TIE_BREAK, MARGIN_TIE_BREAK
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, count_phrase, provenance, task_slug
from slmbench.vocab import BINARY_TASKS, ELIGIBILITY_TASKS

PAIR = "configuration--task pair"


def _eligible_phrase(k: int, n: int) -> str:
    return count_phrase(k, n, PAIR, "was eligible" if k == 1 else "were eligible")


def _diagnosis_phrase(failing: int, n_cal: int, n_cap: int) -> str:
    if not failing:
        return "no binary-task configuration failed the bar"
    cal = "was a calibration failure" if n_cal == 1 else "were calibration failures"
    cap = "was a capability failure" if n_cap == 1 else "were capability failures"
    return f"of the {failing} failing binary-task configurations, {n_cal} {cal} and {n_cap} {cap}"


def summary(rows: list[dict[str, Any]], margin: float) -> tuple[list[Number], dict[str, Any]]:
    """The counts and phrases over every configuration-task row, and the provenance they share."""
    prov = provenance(TOPIC, {"study": STUDY}, "counts over configuration-task pairs")
    n_el = sum(r["eligible"] for r in rows)
    n_elm = sum(r["eligible_margin"] for r in rows)
    out = [
        nb.rate("elig.margin", margin, prov),
        nb.count("elig.n.models", len({r["model"] for r in rows}), prov),
        nb.count("elig.n.prompts", len({r["prompt"] for r in rows}), prov),
        nb.count("elig.n.quants", len({r["quant"] for r in rows}), prov),
        nb.count("elig.n.configs", len({(r["model"], r["prompt"], r["quant"]) for r in rows}), prov),
        nb.count("elig.n.pairs", len(rows), prov),
        nb.count("elig.n.incomplete", sum(not r["complete"] for r in rows), prov),
        nb.count("elig.n.eligible", n_el, prov),
        nb.count("elig.n.eligible-margin", n_elm, prov),
    ]
    failing = [r for r in rows if r["task"] in BINARY_TASKS and not r["eligible"]]
    n_cal = sum(r["diagnosis"] == "calibration" for r in failing)
    n_cap = sum(r["diagnosis"] == "capability" for r in failing)
    multi = [r for r in rows if r["task"] not in BINARY_TASKS]
    beats_model = sum((r["cascade_acc"] or 0) > (r["acc"] or 0) for r in multi)
    out += [
        nb.count("elig.n.diag.failing", len(failing), prov),
        nb.count("elig.n.diag.calibration", n_cal, prov),
        nb.count("elig.n.diag.capability", n_cap, prov),
        nb.count("elig.n.diag.configs", sum(r["task"] in BINARY_TASKS for r in rows), prov),
        nb.count("elig.n.diag.tied", sum(r.get("tuned_tied", 1) > 1 for r in rows), prov),
        nb.count("elig.n.diag.tie-matters", sum(bool(r.get("tie_matters")) for r in rows), prov),
        nb.text("elig.phrase.tie-break", MARGIN_TIE_BREAK, prov),
        nb.text("elig.phrase.tie-break-cascade", CASCADE_TIE_BREAK, prov),
        nb.count("elig.n.cascade", len(multi), prov),
        nb.count("elig.n.cascade.eligible", sum(r["cascade_eligible"] for r in multi), prov),
        nb.count("elig.n.cascade.beats-model", beats_model, prov),
        nb.count("elig.n.model-eligible-multi", sum(r["eligible"] for r in multi), prov),
        nb.text("elig.phrase.eligible", _eligible_phrase(n_el, len(rows)), prov),
        nb.text("elig.phrase.eligible-margin", _eligible_phrase(n_elm, len(rows)), prov),
        nb.text("elig.phrase.diagnosis", _diagnosis_phrase(len(failing), n_cal, n_cap), prov),
    ]
    return out, prov


def best_per_task(rows: list[dict[str, Any]]) -> list[Number]:
    """Per task: the configurations run, how many are eligible, and the one with the highest lower bound."""
    out: list[Number] = []
    for task in ELIGIBILITY_TASKS:
        part = [r for r in rows if r["task"] == task and r["n"]]
        t = task_slug(task)
        tprov = provenance(TOPIC, {"study": STUDY, "task": task}, f"configurations on {task}")
        out += [
            nb.count(f"elig.{t}.n.configs", len(part), tprov),
            nb.count(f"elig.{t}.n.eligible", sum(r["eligible"] for r in part), tprov),
            nb.count(f"elig.{t}.n.eligible-margin", sum(r["eligible_margin"] for r in part), tprov),
        ]
        best: dict[str, Any] = (
            max(part, key=lambda r: (r["lo"] or -1.0, r["acc"] or -1.0, r["key"])) if part else {}
        )
        name = f"{best['model']}, {best['prompt']}, {best['quant']}" if best else "no configuration"
        out.append(nb.text(f"elig.{t}.best", name, tprov))
        for part_name in ("acc", "lo", "gap"):
            value = best.get(part_name)
            out.append(nb.rate(f"elig.{t}.best.{part_name}", math.nan if value is None else value, tprov))
    return out
