"""Each configuration on each task, on the test split: accuracy (accuracy@1 for reranking, and MRR) with its
Wilson interval, the baseline's accuracy on the same items, and eligibility, the Wilson lower bound above the
baseline's accuracy (also with the stated margin), and beside it the paired test against the baseline on the
same items (``paired``) (``elig.<task>.<config>.…``)."""

from __future__ import annotations

import math
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.stats_threshold import reciprocal_rank
from slmbench.analysis.topics.eligibility.common import finite, provenance
from slmbench.analysis.topics.eligibility.paired import against_baseline, paired_numbers
from slmbench.analysis.topics.eligibility.runs import Run


def baseline_accuracy(run: Run) -> float:
    """The baseline's accuracy on the run's test items (nan without items)."""
    test = run.test.rows
    return int(test["base_correct"].sum()) / len(test) if len(test) else math.nan


def config_numbers(
    run: Run, base_acc: float, planned_test: int, alpha: float, margin: float
) -> tuple[list[Number], dict[str, Any]]:
    """The numbers of one configuration on one task (``base_acc``: the baseline's accuracy on the same items;
    ``planned_test``: the task's test items), and its table row."""
    key, sel, test = run.key, run.test.selection, run.test.rows
    n = len(test)
    k = int(test["right"].sum())
    acc = wilson_interval(k, n, alpha)
    what = f"{run.model}/{run.prompt}/{run.quant} on {run.task}"
    wprov = provenance(wilson_interval, sel, f"test accuracy of {what}", alpha=alpha)
    eprov = provenance(
        is_eligible, sel, "Wilson lower bound beats the baseline on the same test items",
        alpha=alpha, margin=margin,
    )  # fmt: skip
    eligible = is_eligible(k, n, base_acc, 0.0, alpha) if n else False
    eligible_m = is_eligible(k, n, base_acc, margin, alpha) if n else False
    params_b = run.header.get("params_b")
    out = nb.rate_numbers(f"{key}.acc", acc, wprov)
    out += [
        nb.rate(f"{key}.baseline", base_acc, eprov),
        nb.rate(f"{key}.gap", acc.lo - base_acc if n else math.nan, eprov),
        nb.flag(f"{key}.eligible", eligible, eprov),
        nb.flag(f"{key}.eligible-margin", eligible_m, eprov),
        nb.flag(f"{key}.complete", n == planned_test, provenance("len", sel, "every test item scored")),
        nb.size(
            f"{key}.params",
            math.nan if params_b is None else float(params_b),
            provenance("header", sel, f"parameters of {run.model} (billions), from the run's header"),
        ),
    ]
    row: dict[str, Any] = {
        "key": key, "task": run.task, "model": run.model, "prompt": run.prompt, "quant": run.quant,
        "params_b": params_b, "instruct": run.header.get("instruct"), "k": k, "n": n,
        "acc": finite(acc.rate), "lo": finite(acc.lo), "hi": finite(acc.hi), "baseline": finite(base_acc),
        "gap": finite(acc.lo - base_acc) if n else None, "eligible": eligible, "eligible_margin": eligible_m,
        "complete": n == planned_test,
    }  # fmt: skip
    out += paired_numbers(key, against_baseline(run.test), run.test, row)
    if run.task == "reranking":
        ranks = [reciprocal_rank(r, str(g)) for r, g in zip(test["ranking"], test["label"], strict=True)]
        mrr = sum(ranks) / n if n else math.nan
        rprov = provenance(reciprocal_rank, sel, "mean reciprocal rank of the relevant turn")
        out.append(nb.stat(f"{key}.mrr", mrr, rprov))
        row["mrr"] = finite(mrr)
    return out, row
