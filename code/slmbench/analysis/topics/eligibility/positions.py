"""Reranking answers by position: how often each turn number is answered against how often it is the relevant one,
and two position-debiased scores computed from the recorded answers (``elig.reranking.<config>.pos.…``, table
``positions``; the counts over configurations are ``positions_summary``'s):

* per turn number, how often it was answered and how often rightly (``.pos.at.<n>``: ``answered/correct``);
* the accuracy of a constant chooser that always answers the configuration's most frequent turn number, and
  accuracy corrected for chance (Cohen's kappa of answers against gold positions: 0 is what the position habit
  alone earns);
* the prior-debiased answer (``stats_positions``): the configuration's recorded candidate scores with its position
  prior, estimated on the calibration split (few-shot examples left out), divided out; its accuracy, its most
  frequent answer and its share, and the Wilson rule against BM25 on the same items; only for runs whose scores are
  every candidate's likelihood (``LIKELIHOOD_RULES``).

Scoring each turn on its own (pointwise) would need new model runs; nothing here runs a model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_positions import (
    chance_corrected,
    debiased_answer,
    mode_position,
    position_counts,
    position_prior,
)
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, finite, provenance, task_slug
from slmbench.analysis.topics.eligibility.items import records
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.eligibility.scorer import SCORING_RULE

POSITION_TASK = "reranking"
"""The task whose answers are positions (turn numbers)."""
LIKELIHOOD_RULES = frozenset({SCORING_RULE})
"""Scoring rules whose recorded scores are every candidate's likelihood, so a prior can be divided out of them
(not the Ollama rule's, whose scores for candidates not generated are first-token bounds)."""


def cell(answered: int, correct: int) -> str:
    """A position's table cell: how often it was answered, and how often rightly (``answered/correct``)."""
    return f"{answered}/{correct}"


def position_numbers(run: Run, alpha: float) -> tuple[list[Number], dict[str, Any]]:
    """A reranking run's position numbers and its row of table ``positions`` (with every position's counts)."""
    test = records(run.test.rows)
    answers = [str(a["prediction"]) for a in test]
    gold = [str(a["label"]) for a in test]
    n = len(test)
    counts = position_counts(answers, gold)
    mode = mode_position(answers)
    by_pos = {c.position: c for c in counts}
    mode_n = by_pos[mode].answered if mode else 0
    const = wilson_interval(by_pos[mode].gold if mode else 0, n, alpha)
    share = wilson_interval(mode_n, n, alpha)
    kappa = chance_corrected(answers, gold)
    sel = run.test.selection
    cprov = provenance(position_counts, sel, "answers per turn number against the relevant turn numbers")
    kprov = provenance(chance_corrected, sel, "accuracy corrected for chance agreement (Cohen's kappa)")
    key = f"{run.key}.pos"
    out = [
        nb.text(f"{key}.mode", mode or "none", cprov),
        *nb.rate_numbers(f"{key}.mode-share", share, cprov),
        *nb.rate_numbers(f"{key}.constant.acc", const, cprov),
        nb.stat(f"{key}.kappa", kappa, kprov),
    ]
    for c in counts:
        at = f"{key}.at.{nb.slug(c.position)}"
        out += [
            nb.count(f"{at}.answered", c.answered, cprov),
            nb.count(f"{at}.correct", c.correct, cprov),
            nb.text(at, cell(c.answered, c.correct), cprov),
        ]
    base = sum(bool(a["base_correct"]) for a in test) / n if n else math.nan
    row: dict[str, Any] = {
        "key": run.key, "task": run.task, "model": run.model, "prompt": run.prompt, "quant": run.quant,
        "params_b": run.header.get("params_b"), "n": n, "acc": finite(sum(a == g for a, g in zip(answers, gold, strict=True)) / n) if n else None,
        "mode": mode, "mode_share": finite(share.rate), "constant_acc": finite(const.rate), "kappa": finite(kappa),
        "debiased_acc": None, "debiased_mode": None, "debiased_mode_share": None, "debiased_kappa": None,
        "debiased_eligible": False, "baseline": finite(base),
        "positions": [
            {"position": c.position, "answered": c.answered, "gold": c.gold, "correct": c.correct} for c in counts
        ],
    }  # fmt: skip
    if run.header.get("scoring") in LIKELIHOOD_RULES:
        out += debiased_numbers(run, base, alpha, row)
    return out, row


def debiased_numbers(run: Run, base: float, alpha: float, row: dict[str, Any]) -> list[Number]:
    """The prior-debiased answers of a run whose scores are every candidate's likelihood: accuracy, most frequent
    answer and its share, kappa and the Wilson rule against BM25 (``base``) (added to ``row``)."""
    test = records(run.test.rows)
    gold = [str(a["label"]) for a in test]
    n = len(test)
    prior = position_prior([a["scores"] for a in records(run.calibration.rows) if a["scores"]])
    debiased = [debiased_answer(a["scores"], prior) if a["scores"] else str(a["prediction"]) for a in test]
    kd = sum(d == g for d, g in zip(debiased, gold, strict=True))
    dacc = wilson_interval(kd, n, alpha)
    ok = is_eligible(kd, n, base, 0.0, alpha) if n else False
    dmode = mode_position(debiased)
    dshare = wilson_interval(sum(d == dmode for d in debiased), n, alpha)
    dkappa = chance_corrected(debiased, gold)
    dprov = provenance(
        debiased_answer, run.tuned.selection,
        "recorded scores with the position prior of the calibration split (few-shot examples left out) divided out",
        alpha=alpha,
    )  # fmt: skip
    key = f"{run.key}.pos.debiased"
    row.update(
        debiased_acc=finite(dacc.rate), debiased_mode=dmode, debiased_mode_share=finite(dshare.rate),
        debiased_kappa=finite(dkappa), debiased_eligible=ok,
    )  # fmt: skip
    return [
        *nb.rate_numbers(f"{key}.acc", dacc, dprov),
        nb.text(f"{key}.mode", dmode or "none", dprov),
        *nb.rate_numbers(f"{key}.mode-share", dshare, dprov),
        nb.flag(f"{key}.eligible", ok, dprov),
        nb.stat(f"{key}.kappa", dkappa, dprov),
    ]


def positions_summary(rows: Sequence[dict[str, Any]]) -> list[Number]:
    """Over the reranking configurations: the gold positions' most frequent turn number and its share, the
    largest share of one answered turn number, how many configurations put half their answers or more on one turn
    number, how many score above chance, and how many the debiasing made more accurate or eligible."""
    t = task_slug(POSITION_TASK)
    prov = provenance(TOPIC, {"study": STUDY, "task": POSITION_TASK}, "reranking configurations by position")
    out = [nb.count(f"elig.{t}.pos.n.configs", len(rows), prov)]
    if not rows:
        return out
    top = max(rows, key=lambda r: (r["mode_share"] or 0.0, r["key"]))
    gold_counts = {p["position"]: p["gold"] for p in rows[0]["positions"] if p["gold"]}
    gold_mode = min(gold_counts, key=lambda p: (-gold_counts[p], int(p) if p.isdigit() else 0))
    out += [
        nb.text(f"elig.{t}.pos.gold-mode", gold_mode, prov),
        nb.rate(f"elig.{t}.pos.gold-mode-share", gold_counts[gold_mode] / rows[0]["n"], prov),
        *[nb.count(f"elig.{t}.pos.gold.at.{nb.slug(p)}", k, prov) for p, k in gold_counts.items()],
        nb.rate(f"elig.{t}.pos.max-mode-share", top["mode_share"], prov),
        nb.text(
            f"elig.{t}.pos.max-mode-share.config", f"{top['model']}, {top['prompt']}, {top['quant']}", prov
        ),
        nb.text(f"elig.{t}.pos.max-mode-share.mode", str(top["mode"]), prov),
        nb.count(f"elig.{t}.pos.n.half-on-one", sum((r["mode_share"] or 0) >= 0.5 for r in rows), prov),
        nb.count(f"elig.{t}.pos.n.above-chance", sum((r["kappa"] or 0) > 0 for r in rows), prov),
        nb.stat(f"elig.{t}.pos.max-kappa", max(r["kappa"] or 0.0 for r in rows), prov),
    ]
    debiased = [r for r in rows if r["debiased_acc"] is not None]
    if debiased:
        out += [
            nb.count(f"elig.{t}.pos.n.debiased", len(debiased), prov),
            nb.count(
                f"elig.{t}.pos.n.debiased-higher",
                sum(r["debiased_acc"] > (r["acc"] or 0) for r in debiased),
                prov,
            ),
            nb.count(
                f"elig.{t}.pos.n.debiased-eligible", sum(bool(r["debiased_eligible"]) for r in debiased), prov
            ),
            nb.rate(f"elig.{t}.pos.max-debiased-acc", max(r["debiased_acc"] for r in debiased), prov),
        ]
    return out
