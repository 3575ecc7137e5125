"""Repeats under the full protocol: accuracy over the tasks (each task's pass share over its repeats, identical
T = 0 repeats on one build counted once), pass@k and pass^k per model and temperature, and at the lowest
temperature how often two runs of one task differ (``proto.rep.<m>.<t>.…``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_passk import pass_at_k, pass_hat_k
from slmbench.analysis.stats_rates import wilson_share_interval
from slmbench.analysis.topics.protocol.conditions import FULL, scored_rows
from slmbench.analysis.units import cluster_shares, collapse_repeats

_SHARE = wilson_share_interval


def repeats(res: TopicResult, trials: pd.DataFrame, alpha: float) -> None:
    """Under full at its usual limits and every temperature: accuracy, pass@k, pass^k; at the lowest,
    transcript divergence. (A limit ablation's shard is not one more repeat.)"""
    ours = scored_rows(trials, FULL, all_temperatures=True)
    lowest = trials["temperature"].min()
    rows: list[dict[str, Any]] = []
    compared: list[str] = []  # the models whose repeats at the lowest temperature are compared
    for (model, temp_value), part in ours.groups("model", "temperature"):
        temp = float(temp_value)
        key = f"proto.rep.{nb.slug(model)}.{nb.temp_slug(temp)}"
        shares = cluster_shares(collapse_repeats(part.rows), ["task_id"])
        lo, hi = _SHARE(float(shares.sum()), len(shares), alpha)
        rate = float(shares.mean()) if len(shares) else float("nan")
        prov = nb.provenance(_SHARE, part.selection, "accuracy: mean over tasks of each task's pass share over its "
                             "repeats (identical repeats on one build once)", unit="tasks", alpha=alpha)  # fmt: skip
        res.numbers += [
            nb.rate(f"{key}.acc", rate, prov),
            nb.rate(f"{key}.acc.lo", lo, prov),
            nb.rate(f"{key}.acc.hi", hi, prov),
            nb.count(f"{key}.acc.n", len(shares), prov),
        ]
        per_task = part.rows.groupby("task_id")["passed"].agg(["sum", "count"])
        k = int(per_task["count"].min())
        kprov = nb.provenance(pass_at_k, part.selection, "mean over tasks", k=k)
        counts = list(zip(per_task["count"].astype(int), per_task["sum"].astype(int), strict=True))
        at_k = sum(pass_at_k(n, c, k) for n, c in counts) / len(counts)
        hat_k = sum(pass_hat_k(n, c, k) for n, c in counts) / len(counts)
        res.numbers += [
            nb.count(f"{key}.k", k, kprov),
            nb.rate(f"{key}.pass-at-k", at_k, kprov),
            nb.rate(f"{key}.pass-hat-k", hat_k, kprov),
        ]
        row = {"model": model, "temperature": temp, "k": k, "acc": rate, "lo": lo, "hi": hi}
        row.update({"pass_at_k": at_k, "pass_hat_k": hat_k, "n": len(shares)})
        if temp == lowest:
            n_pairs, divergent, outcome_flips = repeat_pairs(part.rows)
            compared += [str(model)] if n_pairs else []
            desc = "pairs of T=0 repeats of one task with different transcripts"
            dprov = nb.provenance("count", part.selection, desc, unit="pairs")
            res.numbers += [
                nb.count(f"{key}.n.repeat-pairs", n_pairs, dprov),
                nb.count(f"{key}.n.divergent", divergent, dprov),
                nb.count(f"{key}.n.flips", outcome_flips, dprov),
            ]
            row.update({"repeat_pairs": n_pairs, "divergent": divergent, "flips": outcome_flips})
        rows.append(row)
    res.tables["repeats"] = rows
    swept: dict[str, list[float]] = {}
    for row in rows:
        swept.setdefault(str(row["model"]), []).append(float(row["temperature"]))  # type: ignore[arg-type]
    sprov = nb.provenance("sorted", ours.selection, "temperatures per model")
    sweep = {m: sorted(t) for m, t in swept.items() if len(t) > 1}
    res.numbers.append(nb.text("proto.phrase.sweep", phrases.sweep_phrase(sweep), sprov))
    t0 = [r for r in rows if r.get("repeat_pairs")]
    pairs, divergent = sum(r["repeat_pairs"] for r in t0), sum(r["divergent"] for r in t0)
    at_lowest = ours.where({"temperature": float(lowest), "model": compared})
    desc = "pairs of T=0 repeats with different transcripts, all models"
    dprov = nb.provenance("count", at_lowest.selection, desc, unit="pairs")
    res.numbers += [
        nb.count("proto.rep.n.repeat-pairs", pairs, dprov),
        nb.count("proto.rep.n.divergent", divergent, dprov),
    ]
    phrase = phrases.determinism_phrase(divergent, pairs, len(t0))
    res.numbers.append(nb.text("proto.phrase.determinism", phrase, dprov))


def repeat_pairs(part: pd.DataFrame) -> tuple[int, int, int]:
    """Over every pair of repeats of one task (and variant): how many pairs, how many with different transcripts
    (a missing transcript differs from every other) and how many with different outcomes."""
    key = ["task_id", "variant"]
    runs = part.assign(ok=part["passed"].astype(bool)).groupby(key, sort=False)["ok"].agg(["size", "sum"])
    n, passed = runs["size"].to_numpy(), runs["sum"].to_numpy()
    same = part.groupby([*key, "transcript_sha256"], sort=False, dropna=True).size().to_numpy()
    pairs = int((n * (n - 1) // 2).sum())
    return pairs, pairs - int((same * (same - 1) // 2).sum()), int((passed * (n - passed)).sum())
