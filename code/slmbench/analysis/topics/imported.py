"""Topic ``imported``: the studies imported from another tool's logs (``slmbench import inspect``).

For each imported study and each of its tasks (an Inspect task; at each temperature, where the task ran at
several): every model's accuracy with its Wilson interval over the task's samples (a sample's epochs are its
repeats, pooled into its pass share), every pair of models compared sample by sample on the samples both ran (the
exact McNemar test on the discordant samples, Benjamini-Hochberg across the task's pairs), and pass@k and pass^k
over the epochs (``k``: the fewest epochs of a sample). Infrastructure errors (a sample that ended in an error or
has no score) count apart. What the logs do not hold is left out and said so (``imp.<s>.left-out``): failure
classes, harm and model sizes.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.selection import exclude
from slmbench.analysis.stats_passk import pass_at_k, pass_hat_k
from slmbench.analysis.stats_tests import paired_sign_p, pairwise_paired
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import SCORED, scored
from slmbench.analysis.topics.common.units import unit_rate, unit_shares

LEFT_OUT = "failure classes, harm and size correlations (the imported logs hold no failure class, harm or model size)"
"""What the topic leaves out of an imported study, and why."""


def imported_rows(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials of imported studies (``imported_from`` names their format; a table without the column has
    none)."""
    if "imported_from" not in trials:
        return trials.iloc[0:0]
    return trials[trials["imported_from"].notna()]


@topic(reads=("trials",))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Accuracy, paired model comparisons and pass@k / pass^k of every task of every imported study."""
    p = with_defaults(params)
    df = imported_rows(trials)
    res = TopicResult()
    prov = nb.provenance("len", {"imported_from": exclude(None)}, "trials of imported studies")
    res.numbers += [
        nb.count("imp.n.studies", df["study"].nunique(), prov),
        nb.count("imp.n.trials", len(df), prov),
    ]
    rows: list[dict[str, Any]] = []
    for study in sorted(df["study"].astype(str).unique()):
        part = df[df["study"].astype(str) == study]
        sel = {"study": study}
        sprov = nb.provenance("len", sel, f"trials of the imported study {study}")
        res.numbers += [
            nb.count(f"imp.{nb.slug(study)}.n.trials", len(part), sprov),
            nb.count(f"imp.{nb.slug(study)}.n.models", part["model"].nunique(), sprov),
            nb.text(f"imp.{nb.slug(study)}.left-out", LEFT_OUT, sprov),
        ]
        for task in sorted(part["suite"].astype(str).unique()):
            of_task = part[part["suite"].astype(str) == task]
            temperatures = sorted(of_task["temperature"].astype(float).unique())
            for temperature in temperatures:
                rows_t = of_task[of_task["temperature"].astype(float) == temperature]
                prefix = f"imp.{nb.slug(study)}.{nb.slug(task)}"
                if len(temperatures) > 1:
                    prefix += f".{nb.temp_slug(temperature)}"
                tsel = {**sel, "suite": task, "temperature": temperature}
                nums, table = task_block(prefix, rows_t, tsel, p["alpha"])
                res.numbers += nums
                rows += [{"study": study, "task": task, "temperature": temperature, **r} for r in table]
    res.tables["imported"] = rows
    return res


def task_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """The numbers of one task of one imported study (``df``: its trials at one temperature)."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    good = {**selection, **SCORED}
    samples = scored(df).groupby(["task_id", "variant"], observed=True).ngroups
    out.append(nb.count(f"{prefix}.n.samples", samples, nb.provenance("len", good, "samples", unit="tasks")))
    shares: dict[str, pd.Series] = {}
    for model in sorted(df["model"].astype(str).unique()):
        mine = df[df["model"].astype(str) == model]
        msel = {**good, "model": model}
        key = f"{prefix}.acc.{nb.slug(model)}"
        rate = unit_rate(mine, alpha)
        fn = unit_rate
        out += nb.rate_numbers(
            key, rate, nb.provenance(fn, msel, f"accuracy of {model}, interval over samples")
        )
        errors = int((mine["outcome"] == "infra_error").sum())
        eprov = nb.provenance("len", {**selection, "model": model, "outcome": "infra_error"}, "errors")
        out.append(nb.count(f"{prefix}.infra.{nb.slug(model)}", errors, eprov))
        shares[model] = unit_shares(mine)
        passk = _pass_k(scored(mine))
        kprov = nb.provenance(pass_at_k, msel, "mean over samples", unit="tasks", k=passk[0])
        out += [
            nb.count(f"{prefix}.k.{nb.slug(model)}", passk[0], kprov),
            nb.stat(f"{prefix}.pass-at-k.{nb.slug(model)}", passk[1], kprov),
            nb.stat(f"{prefix}.pass-hat-k.{nb.slug(model)}", passk[2], kprov),
        ]
        rows.append(
            {"model": model, "k": rate.k, "n": rate.n, "acc": rate.rate, "lo": rate.lo, "hi": rate.hi,
             "samples": len(shares[model]), "epochs": passk[0], "pass_at_k": passk[1], "pass_hat_k": passk[2]}
        )  # fmt: skip
    out += _pairs(prefix, shares, good, alpha)
    return out, rows


def _pass_k(rows: pd.DataFrame) -> tuple[int, float, float]:
    """``(k, pass@k, pass^k)`` averaged over samples, ``k`` the fewest epochs of a sample (nan without rows)."""
    if rows.empty:
        return 0, float("nan"), float("nan")
    per = rows.assign(ok=rows["passed"].astype(bool)).groupby(["task_id", "variant"], observed=True)["ok"]
    counts = per.agg(["size", "sum"])
    k = int(counts["size"].min())
    pairs = list(zip(counts["size"].astype(int), counts["sum"].astype(int), strict=True))
    at_k = sum(pass_at_k(n, c, k) for n, c in pairs) / len(pairs)
    hat_k = sum(pass_hat_k(n, c, k) for n, c in pairs) / len(pairs)
    return k, at_k, hat_k


def _pairs(
    prefix: str, shares: dict[str, pd.Series], selection: dict[str, Any], alpha: float
) -> list[Number]:
    """Every pair of models, exact McNemar on the samples both ran, Benjamini-Hochberg across the pairs."""
    out: list[Number] = []
    comparisons = pairwise_paired(shares, alpha)
    fn = pairwise_paired
    for c in comparisons:
        _, n, ahead, behind = paired_sign_p(shares[c.first], shares[c.second])
        what = f"exact McNemar test of {c.first} vs {c.second}, paired by sample, BH over the task's pairs"
        prov = nb.provenance(fn, {**selection, "model": [c.first, c.second]}, what, unit="tasks", alpha=alpha)
        key = f"{prefix}.pair.{nb.slug(c.first)}.{nb.slug(c.second)}"
        out += [
            nb.pvalue(f"{key}.p", c.p, prov),
            nb.pvalue(f"{key}.padj", c.p_adj, prov),
            nb.flag(f"{key}.sig", c.significant, prov),
            nb.count(f"{key}.n-samples", n, prov),
            nb.count(f"{key}.first-ahead", ahead, prov),
            nb.count(f"{key}.second-ahead", behind, prov),
        ]
    prov = nb.provenance(
        fn, {**selection, "model": sorted(shares)}, "pairs significant after BH", alpha=alpha
    )
    out += [
        nb.count(f"{prefix}.pairs.n-tests", len(comparisons), prov),
        nb.count(f"{prefix}.pairs.n-sig", sum(c.significant for c in comparisons), prov),
    ]
    return out
