"""Tool selection per item source (the project's own items, the BFCL items), beside the pooled numbers: each
configuration's accuracy with its Wilson interval, the baseline's accuracy on the same items, the Wilson rule's
verdict and the paired test against the baseline (BH across the configuration-source grid)
(``elig.tool-selection.<config>.source.<s>.…``, ``elig.tool-selection.n.source.<s>.…``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, finite, provenance, task_slug
from slmbench.analysis.topics.eligibility.paired import adjusted, against_baseline, paired_numbers
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.analysis.topics.eligibility.tasks import SOURCE_TASK


def sources_of(run: Run) -> list[str]:
    """The item sources of the run's test items (the ``stratum`` of tool selection), sorted."""
    return sorted({str(s) for s in run.test.rows["stratum"]})


def source_numbers(run: Run, alpha: float) -> tuple[list[Number], list[dict[str, Any]]]:
    """Per source of a tool-selection run: accuracy, the baseline, eligibility and the paired test; the rows of
    table ``sources`` (with ``selection``, the items' selection, for the adjustment)."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    for source in sources_of(run):
        items = run.test.where({"stratum": source})
        test = items.rows
        n, k = len(test), int(test["right"].sum())
        base = int(test["base_correct"].sum()) / n if n else math.nan
        acc = wilson_interval(k, n, alpha)
        ok = is_eligible(k, n, base, 0.0, alpha) if n else False
        key = f"{run.key}.source.{nb.slug(source)}"
        what = f"{run.model}/{run.prompt}/{run.quant} on the {source} items of {run.task}"
        wprov = provenance(wilson_interval, items.selection, f"test accuracy of {what}")
        eprov = provenance(
            is_eligible, items.selection,
            "Wilson lower bound beats the baseline on the same items", alpha=alpha,
        )  # fmt: skip
        row: dict[str, Any] = {
            "key": key, "config_key": run.key, "model": run.model, "prompt": run.prompt, "quant": run.quant,
            "source": source, "k": k, "n": n, "acc": finite(acc.rate), "lo": finite(acc.lo), "hi": finite(acc.hi),
            "baseline": finite(base), "eligible": ok, "selection": items.selection,
        }  # fmt: skip
        out += nb.rate_numbers(f"{key}.acc", acc, wprov)
        out += [nb.rate(f"{key}.baseline", base, eprov), nb.flag(f"{key}.eligible", ok, eprov)]
        out += paired_numbers(key, against_baseline(items), items, row)
        rows.append(row)
    return out, rows


def source_grid(rows: Sequence[dict[str, Any]], alpha: float) -> list[Number]:
    """BH across every configuration-source row; per source, the configurations eligible, significantly better
    and significantly worse than the baseline on those items (``elig.tool-selection.n.source.<s>.…``)."""
    out = adjusted([r["key"] for r in rows], rows, [r.pop("selection") for r in rows], alpha)
    t = task_slug(SOURCE_TASK)
    for source in sorted({r["source"] for r in rows}):
        part = [r for r in rows if r["source"] == source]
        prov = provenance(TOPIC, {"study": STUDY, "task": SOURCE_TASK, "stratum": source}, f"{source} items")
        s = nb.slug(source)
        out += [
            nb.count(f"elig.{t}.n.source.{s}.configs", len(part), prov),
            nb.count(f"elig.{t}.n.source.{s}.eligible", sum(r["eligible"] for r in part), prov),
            nb.count(f"elig.{t}.n.source.{s}.better", sum(r["paired_better"] for r in part), prov),
            nb.count(
                f"elig.{t}.n.source.{s}.worse",
                sum(r["paired_sig"] and not r["paired_better"] for r in part),
                prov,
            ),
        ]
    return out
