"""Sentence fragments of the topic ``task_consistency``, each chosen from the values it describes (true for its
inputs, and saying why where a value is undefined)."""

from __future__ import annotations

import math

from slmbench.analysis.numbers import fmt_stat
from slmbench.analysis.phrases import count_word, percent, plural
from slmbench.analysis.stats_bootstrap import MIN_CLUSTERS


def _count(n: int) -> str:
    return "none" if n == 0 else count_word(n)


def outcome_phrase(k: int, n_tasks: int, all_pass: int, none_pass: int) -> str:
    """How the ``k`` samples of each of ``n_tasks`` tasks agree on the outcome: how many tasks passed in every
    sample, failed in every sample, or had both outcomes."""
    if n_tasks == 0:
        return f"no task has all {count_word(k)} of its samples"
    mixed = n_tasks - all_pass - none_pass
    every = f"all {count_word(k)} samples"
    if n_tasks == 1:
        if mixed:
            return f"the one task was passed in some of its {count_word(k)} samples and failed in others"
        return f"the one task was {'passed' if all_pass else 'failed'} in {every}"
    if mixed == 0:
        return (
            f"every one of the {plural(n_tasks, 'task')} had one outcome in {every}"
            f" ({_count(all_pass)} passed in every sample, {_count(none_pass)} failed in every sample)"
        )
    head = (
        f"all {plural(n_tasks, 'task')} were"
        if mixed == n_tasks
        else f"{count_word(mixed)} of the {plural(n_tasks, 'task')} {'was' if mixed == 1 else 'were'}"
    )
    return (
        f"{head} passed in some samples and failed in others; {_count(all_pass)} passed in {every} and"
        f" {_count(none_pass)} failed in {every}"
    )


def decline_phrase(k: int, first: float, last: float) -> str:
    """pass^1 against pass^k (means over tasks): how much lower the chance is that all ``k`` samples of a task
    pass than that one does."""
    if not (math.isfinite(first) and math.isfinite(last)):
        return "not measured: no task has all its samples"
    if last == first:
        return (
            f"the chance that all {count_word(k)} samples of a task pass equals that of one sample"
            f" ({percent(first)}): no task passed in some samples and failed in others"
        )
    return (
        f"the chance that all {count_word(k)} samples of a task pass is {percent(last)}, against {percent(first)}"
        f" for one sample ({100 * (first - last):.1f} points lower)"
    )


def auroc_phrase(n: int, n_passed: int, estimate: float, lo: float, hi: float, kept: int, drawn: int) -> str:
    """The AUROC with its task-resampled interval (and how many of the ``drawn`` resamples had both outcomes, where
    some did not), or why it is undefined or has no interval."""
    if n == 0:
        return "undefined: no trial recorded a confidence"
    if n_passed == 0:
        return f"undefined: none of the {plural(n, 'trial')} passed, so no passed trial ranks against a failed one"
    if n_passed == n:
        return f"undefined: all {plural(n, 'trial')} passed, so no failed trial ranks against a passed one"
    if 1 in (n_passed, n - n_passed):
        return f"{fmt_stat(estimate)} (no interval: {_alone(n_passed, n)})"
    shown = f"{fmt_stat(estimate)} {interval_text(lo, hi, as_rate=False, kept=kept)}"
    if math.isfinite(lo) and 0 < kept < drawn:
        return f"{shown}, over the {kept} of {drawn} resamples of tasks that hold both outcomes"
    return shown


def interval_text(lo: float, hi: float, as_rate: bool, kept: int = 0) -> str:
    """``[lo, hi]`` of a task-resampled interval, or why there is none (``kept``: resamples with a value; none
    kept means too few tasks were there to resample, some kept that every resample gave one value)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        if kept:
            return "(no interval: every resample of tasks gives this value)"
        return f"(no interval: fewer than {MIN_CLUSTERS} tasks to resample)"
    shown = (percent(lo), percent(hi)) if as_rate else (fmt_stat(lo), fmt_stat(hi))
    return f"[{shown[0]}, {shown[1]}]"


def discrimination_phrase(n: int, n_passed: int, lo: float, hi: float) -> str:
    """Whether confidence separates passed from failed trials beyond chance: the AUROC's interval against one
    half, or why it cannot say."""
    if n == 0 or n_passed in (0, n):
        return "whether confidence separates passed from failed trials cannot be judged: " + (
            "no trial recorded a confidence" if n == 0 else "the trials have one outcome only"
        )
    if 1 in (n_passed, n - n_passed):
        return (
            f"whether confidence separates passed from failed trials cannot be judged: {_alone(n_passed, n)}"
        )
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "no interval says whether confidence separates passed from failed trials (too few tasks to resample)"
    if lo > 0.5:
        return "confidence ranks passed trials above failed ones more often than chance (the interval lies above one half)"
    if hi < 0.5:
        return "confidence ranks failed trials above passed ones more often than chance (the interval lies below one half)"
    return (
        "the interval includes one half: confidence does not separate passed from failed trials beyond chance"
    )


def _alone(n_passed: int, n: int) -> str:
    """Why one trial of an outcome gives no interval: the AUROC is that trial's rank among the others."""
    one, others = ("passed", "failed") if n_passed == 1 else ("failed", "passed")
    return f"one trial {one}, so the AUROC is its rank among the {count_word(n - 1)} {others} ones"
