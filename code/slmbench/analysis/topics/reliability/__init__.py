"""Topic ``reliability``: consistency, robustness flips over a null-control floor, faults, safety."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.selection import Selection, exclude, selection_for
from slmbench.analysis.stats_bootstrap import MIN_CLUSTERS, cluster_bootstrap, finite_mean
from slmbench.analysis.stats_passk import pass_at_k, pass_hat_k
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.stats_tests import flip_binomial_p, mcnemar_p
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.breakdowns import per_model_summary, safety_block, variant_block
from slmbench.analysis.topics.common import SCORED, json_float, model_info, primary_rows, scored
from slmbench.analysis.topics.common.machine import run_machine
from slmbench.analysis.topics.flips import (
    PROMPT,
    cells,
    flip_numbers,
    null_control_runs,
    paired_runs,
    perturbed_flip_numbers,
    perturbed_pairs,
    repeat_pairs,
    reruns,
)
from slmbench.vocab import DIMENSIONS, ORIGINAL_VARIANT, STUDY_ID, VARIANT_DIMENSIONS

STUDY = STUDY_ID
DIMS = DIMENSIONS
WILSON = wilson_interval
TOKENS = ("prompt_tokens", "completion_tokens")


def dimension_rows(m: pd.DataFrame, dim: str) -> pd.DataFrame:
    """The rows scored for a dimension: robustness and fault tolerance count only perturbed/faulted runs."""
    mask = m["dimension"] == dim
    if dim in VARIANT_DIMENSIONS:
        mask &= m["variant"] != "original"
    return m[mask]  # one copy of the rows, not two


def dimension_selection(sel: Selection, dim: str) -> Selection:
    """The selection of ``dimension_rows``: the dimension, without the original prompt where it is excluded."""
    out: Selection = {**sel, "dimension": dim}
    return {**out, "variant": exclude(ORIGINAL_VARIANT)} if dim in VARIANT_DIMENSIONS else out


def _null_model(
    model: str, null_sc: pd.DataFrame, base_sel: Selection, trials: pd.DataFrame, alpha: float
) -> list[Number]:
    """One model's null control: the flip rate of its first two runs of a prompt, and how often transcripts
    differ."""
    mnull = null_sc[null_sc["model"].astype(str) == model]
    nsel = {
        **base_sel,
        **SCORED,
        "suite": ["null_control", "capability"],
        "model": model,
        "variant": "original",
    }
    s = nb.slug(model)
    out = flip_numbers(
        f"rel.null.flip-rate.{s}", repeat_pairs(mnull), selection_for(trials, paired_runs(mnull), nsel), alpha
    )
    return out + _divergence(
        f"rel.null.divergence.{s}", mnull, selection_for(trials, paired_runs(mnull, every=True), nsel), alpha
    )


def composite(m: pd.DataFrame) -> float:
    """Mean of the four dimension pass rates (``nan`` if a dimension has no rows)."""
    scored_only = m[["dimension", "variant", "passed"]]  # copies of three columns, not of every one
    rates = [dimension_rows(scored_only, d)["passed"].mean() for d in DIMS]
    return float(np.mean(rates)) if all(pd.notna(r) for r in rates) else math.nan


@topic(reads=("trials",), large_text=("answer", "transcript_sha256"))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Reliability numbers of our study (suite ``reliability``); for the figures also the pass rate over the
    rows of all four dimensions, per variant and model, the safety outcome shares and mean tokens per trial."""
    p = with_defaults(params)
    alpha = p["alpha"]
    ours, base_sel = primary_rows(trials, STUDY)
    df = ours[ours["suite"] == "reliability"]
    null_rows, null_base = null_control_runs(trials, STUDY)
    null_sc = scored(null_rows)
    sel: dict[str, Any] = {**base_sel, "suite": "reliability"}
    sc = scored(df)
    res = TopicResult()
    prov = nb.provenance("len", sel, "reliability trials")
    res.numbers += [
        nb.count("rel.n.models", df["model"].nunique(), prov),
        nb.count("rel.n.trials", len(df), prov),
        nb.count("rel.n.tasks", df["task_id"].nunique(), prov),
        nb.count("rel.n.infra-errors", int((df["outcome"] == "infra_error").sum()), prov),
    ]
    res.numbers += run_machine("rel.set", df, sel, "primary reliability trials")
    ssel: Selection = {**sel, **SCORED}  # the selection of sc
    info = model_info(df) if len(df) else pd.DataFrame(columns=["is_base"])
    cons_all = sc[(sc["dimension"] == "consistency") & (sc["variant"] == "original")]
    runs = cons_all.groupby(["model", "task_id"]).size()
    k = int(runs.min()) if len(runs) else 0
    res.numbers.append(nb.count("rel.cons.k", k, nb.provenance("min", sel, "fewest repeats of any task")))
    rows: list[dict[str, Any]] = []
    for model in info.index:
        m = sc[sc["model"] == model]
        s = nb.slug(model)
        msel = {**ssel, "model": model}
        row: dict[str, Any] = {
            "model": model,
            "params_b": json_float(info.loc[model, "params_b"]),
            "is_base": bool(info.loc[model, "is_base"]),
        }
        if row["is_base"]:
            res.numbers.append(nb.flag(f"rel.base.{s}", True, nb.provenance("is_base", msel, "base model")))
        for dim in DIMS:
            d = dimension_rows(m, dim)
            r = wilson_interval(int(d["passed"].sum()), len(d), alpha)
            prov = nb.provenance(
                WILSON, dimension_selection(msel, dim), f"{dim} pass rate of {model}", alpha=alpha
            )
            res.numbers += nb.rate_numbers(f"rel.{nb.slug(dim)}.{s}", r, prov)
            row[dim] = r.rate
        cons = m[(m["dimension"] == "consistency") & (m["variant"] == "original")]
        csel = {**msel, "dimension": "consistency", "variant": "original"}
        res.numbers += _consistency(cons, s, csel, k, row)
        pairs = repeat_pairs(cons)
        res.numbers += flip_numbers(
            f"rel.cons.flip-rate.{s}", pairs, selection_for(trials, paired_runs(cons), csel), alpha
        )
        res.numbers += _robustness(
            m[m["dimension"] == "robustness"], s, {**msel, "dimension": "robustness"}, trials, alpha
        )
        saf = m[m["dimension"] == "safety"]
        refused = saf["refused"].fillna(False).astype(bool)
        r = wilson_interval(int(refused.sum()), len(saf), alpha)
        prov = nb.provenance(WILSON, {**msel, "dimension": "safety"}, f"refusal rate of {model}", alpha=alpha)
        res.numbers += nb.rate_numbers(f"rel.safety.refusal.{s}", r, prov)
        res.numbers += _composite_numbers(m, s, msel, p)
        row["composite"] = composite(m)
        pooled = pd.concat([dimension_rows(m, d) for d in DIMS])
        r = wilson_interval(int(pooled["passed"].sum()), len(pooled), alpha)
        prov = nb.provenance(
            WILSON,
            selection_for(trials, pooled["trial_id"], msel),
            f"pass rate of {model} over the rows of all four dimensions",
            alpha=alpha,
        )
        res.numbers += nb.rate_numbers(f"rel.pooled.{s}", r, prov, counts=False)
        rows.append(row)
    for model in sorted(
        set(info.index) | set(null_sc["model"].astype(str))
    ):  # the null control may run alone
        res.numbers += _null_model(model, null_sc, null_base, trials, alpha)
    nsel = {**null_base, **SCORED, "suite": ["null_control", "capability"], "variant": "original"}
    res.numbers += flip_numbers(
        "rel.null.flip-rate", repeat_pairs(null_sc), selection_for(trials, paired_runs(null_sc), nsel), alpha
    )
    res.numbers += _divergence(
        "rel.null.divergence", null_sc, selection_for(trials, paired_runs(null_sc, every=True), nsel), alpha
    )
    res.numbers += _divergence(
        "rel.null.first-pair.divergence",
        null_sc,
        selection_for(trials, paired_runs(null_sc), nsel),
        alpha,
        first_pair=True,
    )
    faults = sc[(sc["dimension"] == "fault_tolerance") & (sc["variant"] != "original")]
    for variant, part in faults.groupby("variant", sort=True):
        r = wilson_interval(int(part["passed"].sum()), len(part), alpha)
        vsel = {**ssel, "dimension": "fault_tolerance", "variant": variant}
        prov = nb.provenance(WILSON, vsel, f"recovery rate under {variant}", alpha=alpha)
        res.numbers += nb.rate_numbers(f"rel.fault.{nb.slug(str(variant))}", r, prov)

    instruct = [
        m for m in info.index if not info.loc[m, "is_base"]
    ]  # the base control is a floor, not a model
    per_model = pd.DataFrame(
        [(model, composite(g)) for model, g in sc.groupby("model", observed=True) if model in instruct],
        columns=["model", "composite"],
    )
    b = cluster_bootstrap(
        per_model,
        lambda draw: finite_mean(draw["composite"]),
        n_resamples=p["n_boot"],
        seed=p["bootstrap_seed"],
        alpha=alpha,
    )
    prov = nb.provenance(
        cluster_bootstrap,
        {**sel, "model": instruct},
        "mean composite of the instruction-tuned models (the base control left out), models resampled",
    )
    res.numbers += [
        nb.rate(f"rel.composite.mean{x}", v, prov)
        for x, v in (("", b.estimate), (".lo", b.lo), (".hi", b.hi))
    ]
    res.tables["models"] = rows
    for table, (nums, trows) in (
        ("variants", variant_block("rel", df, sel, VARIANT_DIMENSIONS, alpha)),
        ("safety", safety_block("rel", df, sel)),
        ("tokens", per_model_summary("rel.tokens.mean", df, TOKENS, "mean", sel, "tokens per trial", 0)),
    ):
        res.numbers += nums
        res.tables[table] = trows
    return res


def _consistency(
    cons: pd.DataFrame, s: str, sel: dict[str, Any], k: int, row: dict[str, Any]
) -> list[Number]:
    p1, pk, phk, agree = [], [], [], []
    for _, task in cons.groupby("task_id"):
        n, c = len(task), int(task["passed"].sum())
        p1.append(pass_at_k(n, c, 1))
        if k >= 1:
            pk.append(pass_at_k(n, c, k))
            phk.append(pass_hat_k(n, c, k))
        answers = task["answer"].fillna("").astype(str)
        agree.append(float(answers.value_counts().iloc[0] / n))
    mean = [float(np.mean(v)) if v else math.nan for v in (p1, pk, phk, agree)]
    row.update(pass1=mean[0], passk=mean[1], pass_hat_k=mean[2], agree=mean[3])
    return [
        nb.stat(f"rel.cons.pass1.{s}", mean[0], nb.provenance(pass_at_k, sel, "mean pass@1", k=1)),
        nb.stat(f"rel.cons.passk.{s}", mean[1], nb.provenance(pass_at_k, sel, "mean pass@k", k=k)),
        nb.stat(f"rel.cons.pass-hat-k.{s}", mean[2], nb.provenance(pass_hat_k, sel, "mean pass^k", k=k)),
        nb.stat(f"rel.cons.agree.{s}", mean[3], nb.provenance("modal answer share", sel, "answer agreement")),
    ]


def _divergence(
    key: str, df: pd.DataFrame, sel: dict[str, Any], alpha: float, first_pair: bool = False
) -> list[Number]:
    """Share of pairs of runs of one prompt whose transcripts differ, over every pair (a descriptive count:
    a rerun can differ when the outcome does not; a rerun whose prompt was cached is among the pairs), or with
    ``first_pair`` over the first pair of each prompt only (the primary run and the first rerun). A missing
    transcript differs from every other, as in the protocol topic's ``repeat_pairs``."""
    differ = total = 0
    if "transcript_sha256" in df:
        runs = reruns(df)
        runs = runs[runs["_place"] < 2] if first_pair else runs
        runs = runs.assign(transcript_sha256=df["transcript_sha256"].reindex(runs.index))
        n = runs.groupby(PROMPT, sort=False, observed=True).size().to_numpy()
        alike = runs.groupby([*PROMPT, "transcript_sha256"], sort=False, observed=True).size().to_numpy()
        total = int((n * (n - 1) // 2).sum())
        differ = total - int((alike * (alike - 1) // 2).sum())
    r = wilson_interval(differ, total, alpha)
    prov = nb.provenance(
        WILSON,
        sel,
        "pairs of runs of an identical prompt whose model outputs differ"
        + (
            " (the primary run and the first rerun of each prompt)" if first_pair else " (every pair of runs)"
        ),
        unit="pairs",
        alpha=alpha,
    )
    return nb.rate_numbers(key, r, prov)


def _robustness(
    rob: pd.DataFrame, s: str, sel: dict[str, Any], trials: pd.DataFrame, alpha: float
) -> list[Number]:
    pert = perturbed_pairs(rob)
    sel = selection_for(trials, {*pert["trial_id"], *pert["trial_id_base"]}, sel)
    both, down, up, neither = cells(pert)
    tprov = nb.provenance(flip_binomial_p, sel, "flips down vs up", unit="pairs")
    mprov = nb.provenance(mcnemar_p, sel, "paired original vs perturbed", unit="pairs", exact=True)
    return [
        *perturbed_flip_numbers(f"rel.rob.flip-rate.{s}", pert, sel, alpha),
        nb.count(f"rel.rob.flips-down.{s}", down, tprov),
        nb.count(f"rel.rob.flips-up.{s}", up, tprov),
        nb.pvalue(f"rel.rob.binom.p.{s}", flip_binomial_p(down, up), tprov),
        nb.pvalue(f"rel.rob.mcnemar.p.{s}", mcnemar_p(both, down, up, neither), mprov),
    ]


def _composite_numbers(m: pd.DataFrame, s: str, sel: dict[str, Any], p: dict[str, Any]) -> list[Number]:
    """Composite with a percentile interval from resampling tasks within each dimension (a repeat or variant of
    a task is not an independent draw); no interval when a dimension has fewer than ``MIN_CLUSTERS`` tasks."""
    est = composite(m)
    per_dim = [
        dimension_rows(m, d).groupby("task_id", observed=True)["passed"].agg(["sum", "size"]) for d in DIMS
    ]
    fewest = min((len(t) for t in per_dim), default=0)
    lo = hi = math.nan
    if math.isfinite(est) and fewest >= MIN_CLUSTERS:
        rng = np.random.default_rng(p["bootstrap_seed"])
        rates = []
        for tasks in per_dim:
            picks = rng.integers(0, len(tasks), size=(p["n_boot"], len(tasks)))
            passes, rows = tasks["sum"].to_numpy(dtype=float), tasks["size"].to_numpy(dtype=float)
            rates.append(passes[picks].sum(axis=1) / rows[picks].sum(axis=1))
        lo, hi = (float(v) for v in np.quantile(np.mean(rates, axis=0), [p["alpha"] / 2, 1 - p["alpha"] / 2]))
    what = "mean of four dimension rates; " + (
        "tasks resampled within dimensions"
        if fewest >= MIN_CLUSTERS
        else f"no interval: a dimension has {fewest} tasks, fewer than {MIN_CLUSTERS} to resample"
    )
    prov = nb.provenance(
        composite,
        sel,
        what,
        unit="tasks",
        bootstrap_seed=p["bootstrap_seed"],
        n_boot=p["n_boot"],
    )
    out = [nb.rate(f"rel.composite.{s}{x}", v, prov) for x, v in (("", est), (".lo", lo), (".hi", hi))]
    return [*out, nb.text(f"rel.composite.{s}.interval", composite_interval_phrase(lo, hi, fewest), prov)]


def composite_interval_phrase(lo: float, hi: float, fewest: int) -> str:
    """The composite's interval as text, or why it has none (fewest: tasks in the smallest dimension)."""
    if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
        return f"{phrases.percent(lo)} to {phrases.percent(hi)}"
    if fewest < MIN_CLUSTERS:
        return f"no interval ({phrases.plural(fewest, 'task')} in a dimension, fewer than {MIN_CLUSTERS} to resample)"
    return "no interval (every resample gives one value)"
