"""The null control of topic ``reliability``: reruns of unchanged prompts, read two ways.

- On one build (``rel.null.same-build.*``): the reruns of a unit (``analysis.units``: same prompt, condition and
  build, temperature 0), which cannot differ; one pair per unit, its first two runs. This is the noise floor.
- Across runs (``rel.null.across-runs.*``): the first runs of two units of one prompt, runs that the records do not
  place on one build (a ``native/<CPU>`` label names a CPU: two runs under it may have run on two hosts or two
  builds). A difference there is a factor of its own, not noise; ``.first-reply`` counts the pairs whose first
  request was the same and whose first reply was not (the model's arithmetic differed, not the harness).

The earlier keys (``rel.null.flip-rate``, ``rel.null.divergence``, ``rel.null.first-pair.divergence``) pair the
capability run with the reruns whatever their units, as the capability section prints them.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics.flips import (
    PROMPT,
    across_pairs,
    differ,
    flip_numbers,
    pair_ids,
    paired_runs,
    repeat_pairs,
    reruns,
    unit_pairs,
)
from slmbench.analysis.units import known_build

WILSON = wilson_interval
TEXT = ("transcript_sha256", "first_request_sha256", "first_reply_sha256")
"""What the pairs compare besides the outcome: the transcript, and the first request and reply."""


def _pair_rate(
    key: str, hits: pd.Series, pairs: pd.DataFrame, trials: pd.DataFrame, base: dict[str, Any], what: str,
    alpha: float,
) -> list[Number]:  # fmt: skip
    sel = selection_for(trials, pair_ids(pairs), base) if len(pairs) else {**base, "trial_id": []}
    prov = nb.provenance(WILSON, sel, what, unit="tasks", alpha=alpha)
    return nb.rate_numbers(key, wilson_interval(int(hits.sum()), len(hits), alpha), prov)


def same_build_numbers(
    suffix: str, null: pd.DataFrame, trials: pd.DataFrame, base: dict[str, Any], alpha: float
) -> list[Number]:
    """``rel.null.same-build.flip-rate<suffix>`` and ``.divergence<suffix>`` (+ ``.lo .hi .k .n``; ``suffix``:
    ``.<model>`` or empty): of the ``unit_pairs`` of ``null`` (one per task of a model rerun on one build), those
    whose outcome, and those whose transcript, differ."""
    pairs = unit_pairs(null, TEXT)
    key = "rel.null.same-build"
    return [
        *_pair_rate(f"{key}.flip-rate{suffix}", differ(pairs, "passed"), pairs, trials, base,
                    "reruns on one build whose outcome differs (one pair per task of a model)", alpha),
        *_pair_rate(f"{key}.divergence{suffix}", differ(pairs, "transcript_sha256"), pairs, trials, base,
                    "reruns on one build whose transcript differs (one pair per task of a model)", alpha),
    ]  # fmt: skip


def across_numbers(
    key: str, null: pd.DataFrame, trials: pd.DataFrame, base: dict[str, Any], alpha: float
) -> list[Number]:
    """``<key>.flip-rate``, ``.divergence`` (outcome, transcript differ) and ``.first-reply`` (the first reply
    differs, among the pairs whose first request is the same), over ``across_pairs``; ``<key>.build`` (the build
    labels of their runs) and ``<key>.identity`` (yes where every run of a pair names a build identity)."""
    pairs = across_pairs(null, TEXT)
    same_request = ~differ(pairs, "first_request_sha256")
    asked = pairs[same_request]
    out = [
        *_pair_rate(f"{key}.flip-rate", differ(pairs, "passed"), pairs, trials, base,
                    "first runs of two units of a prompt whose outcome differs", alpha),
        *_pair_rate(f"{key}.divergence", differ(pairs, "transcript_sha256"), pairs, trials, base,
                    "first runs of two units of a prompt whose transcript differs", alpha),
        *_pair_rate(f"{key}.first-reply", differ(asked, "first_reply_sha256"), asked, trials, base,
                    "first runs of two units of a prompt with the same first request whose first reply differs",
                    alpha),
    ]  # fmt: skip
    builds = sorted({str(b) for c in ("build_a", "build_b") if c in pairs for b in pairs[c].dropna()})
    sel = selection_for(trials, pair_ids(pairs), base) if len(pairs) else {**base, "trial_id": []}
    prov = nb.provenance("unique", sel, "the builds of the runs paired across units")
    sides = [pairs[c].rename("build") for c in ("build_a", "build_b") if c in pairs]
    identity = bool(len(pairs)) and bool(sides) and bool(known_build(pd.concat(sides).to_frame()).all())
    out += [
        nb.text(f"{key}.build", " and ".join(builds) or "no recorded build", prov),
        nb.flag(f"{key}.identity", identity, prov),
    ]
    return out


def model_numbers(
    model: str, null_sc: pd.DataFrame, base_sel: dict[str, Any], trials: pd.DataFrame, alpha: float
) -> list[Number]:
    """One model's null control: the flip rate of its first two runs of a prompt, how often transcripts differ,
    and its pairs on one build (``same_build_numbers``)."""
    mnull = null_sc[null_sc["model"].astype(str) == model]
    nsel = {**base_sel, "suite": ["null_control", "capability"], "model": model, "variant": "original"}
    s = nb.slug(model)
    out = flip_numbers(
        f"rel.null.flip-rate.{s}", repeat_pairs(mnull), selection_for(trials, paired_runs(mnull), nsel), alpha
    )
    out += divergence(
        f"rel.null.divergence.{s}", mnull, selection_for(trials, paired_runs(mnull, every=True), nsel), alpha
    )
    return out + same_build_numbers(f".{s}", mnull, trials, nsel, alpha)


def pooled_numbers(
    null_sc: pd.DataFrame, base_sel: dict[str, Any], trials: pd.DataFrame, alpha: float
) -> list[Number]:
    """The null control over every model: the earlier keys, ``rel.null.same-build.*`` and
    ``rel.null.across-runs.*``."""
    nsel = {**base_sel, "suite": ["null_control", "capability"], "variant": "original"}
    out = flip_numbers(
        "rel.null.flip-rate", repeat_pairs(null_sc), selection_for(trials, paired_runs(null_sc), nsel), alpha
    )
    out += divergence(
        "rel.null.divergence", null_sc, selection_for(trials, paired_runs(null_sc, every=True), nsel), alpha
    )
    out += divergence(
        "rel.null.first-pair.divergence",
        null_sc,
        selection_for(trials, paired_runs(null_sc), nsel),
        alpha,
        first_pair=True,
    )
    out += same_build_numbers("", null_sc, trials, nsel, alpha)
    return out + across_numbers("rel.null.across-runs", null_sc, trials, nsel, alpha)


def divergence(
    key: str, df: pd.DataFrame, sel: dict[str, Any], alpha: float, first_pair: bool = False
) -> list[Number]:
    """Share of pairs of runs of one prompt whose transcripts differ, over every pair (a descriptive count:
    a rerun can differ when the outcome does not; a rerun whose prompt was cached is among the pairs), or with
    ``first_pair`` over the first pair of each prompt only (the primary run and the first rerun). A missing
    transcript differs from every other, as in the protocol topic's ``repeat_pairs``."""
    differ_n = total = 0
    if "transcript_sha256" in df:
        runs = reruns(df)
        runs = runs[runs["_place"] < 2] if first_pair else runs
        runs = runs.assign(transcript_sha256=df["transcript_sha256"].reindex(runs.index))
        n = runs.groupby(PROMPT, sort=False, observed=True).size().to_numpy()
        alike = runs.groupby([*PROMPT, "transcript_sha256"], sort=False, observed=True).size().to_numpy()
        total = int((n * (n - 1) // 2).sum())
        differ_n = total - int((alike * (alike - 1) // 2).sum())
    r = wilson_interval(differ_n, total, alpha)
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
