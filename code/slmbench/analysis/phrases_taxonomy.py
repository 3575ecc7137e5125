"""Sentence fragments of the topic ``reliability_taxonomy``, chosen from the values they describe.

As in ``phrases``: each function returns the fragment that is true for its inputs, and says why where a value is
undefined (no task run twice, no null control, no events table, a measure the records do not hold). Each is
rendered for its edge values in ``tests/unit/analysis/topics/test_reliability_taxonomy.py``.
"""

from __future__ import annotations

import math

from slmbench.analysis.phrases import change_phrase, count_word, percent, plural


def _of(k: int, n: int, noun: str) -> str:
    """``all three tasks``, ``none of the three tasks``, ``two of the three tasks``, ``both tasks``, ``neither
    task``, ``the one task`` (``1 <= n``, ``(k, n) != (0, 1)``: the caller words that case with a negation)."""
    if n == 2 and k != 1:
        return f"both {noun}s" if k == 2 else f"neither {noun}"
    if k == n:
        return f"the one {noun}" if n == 1 else f"all {count_word(n)} {noun}s"
    if k == 0:
        return f"none of the {count_word(n)} {noun}s"
    return f"{count_word(k)} of the {count_word(n)} {noun}s"


def _verb(k: int, n: int, singular: str, plural_form: str) -> str:
    """The verb that agrees with ``_of(k, n, ...)``."""
    return plural_form if k == n > 1 or 1 < k < n else singular


def outcome_phrase(k: int, n_tasks: int, n_mixed: int) -> str:
    """Whether the repeated runs of a task agreed on its outcome (``k``: the fewest runs of a task counted)."""
    if n_tasks == 0:
        return "no reliability task was run" if k < 2 else f"no task was run {k} or more times"
    if k < 2:
        return "every task was run once, so no run can disagree with another (k = 1)"
    if n_tasks == 1 and n_mixed == 0:
        return f"the one task run {k} or more times has the same outcome in every run"
    has = _verb(n_mixed, n_tasks, "has", "have")
    return f"{_of(n_mixed, n_tasks, 'task')} run {k} or more times {has} mixed outcomes"


def trajectory_phrase(has_events: bool, n_tasks: int, n_same: int) -> str:
    """Whether the repeated runs of a task made the same tool calls with the same arguments, in order."""
    if not has_events:
        return "trajectories are not compared: no events table was given"
    if n_tasks == 0:
        return "no task was run more than once, so no trajectories can be compared"
    same = "the same tool calls with the same arguments in the same order in every run"
    if n_tasks == 1 and n_same == 0:
        return f"the one task run more than once did not make {same}"
    return f"{_of(n_same, n_tasks, 'task')} run more than once made {same}"


def interval_phrase(what: str, n_tasks: int, n_valid: int, lo: float, hi: float, as_rate: bool) -> str:
    """The task-resampled interval of ``what`` (a mean over tasks), or why there is none."""
    if n_tasks == 0:
        return f"{what} is not measured: no task has two or more runs that recorded it"
    if n_valid == 0 or not (math.isfinite(lo) and math.isfinite(hi)):
        return f"with {plural(n_tasks, 'task')}, too few to resample, {what} has no interval"
    shown = (percent(lo), percent(hi)) if as_rate else (f"{lo:.2f}", f"{hi:.2f}")
    if lo == hi:
        return f"{what} has no interval: every resample of the {plural(n_tasks, 'task')} gives {shown[0]}"
    return f"resampling tasks, the interval of {what} is {shown[0]} to {shown[1]}"


def prompt_phrase(
    flips: int, pairs: int, floor_flips: int, floor_pairs: int, lo: float, hi: float, level: float
) -> str:
    """Rephrasings' outcome flips against the null-control floor (``lo``, ``hi``: the interval of the
    difference of the two flip rates; ``level``: its coverage)."""
    if pairs == 0:
        return "no rephrased run was paired with a run of its original prompt"
    head = f"the rephrasings flipped {percent(flips / pairs)} of {plural(pairs, 'paired outcome')}"
    if floor_pairs == 0:
        return f"{head}; no unchanged prompt was rerun (null control), so there is no noise floor to compare with"
    floor = f"reruns of unchanged prompts flipped {percent(floor_flips / floor_pairs)} of {plural(floor_pairs, 'pair')}"
    shown = f"the {100 * level:g} % interval of the difference"
    if lo > 0:
        verdict = f"{shown} lies above zero: rephrasing flips outcomes beyond the noise floor"
    elif hi < 0:
        verdict = f"{shown} lies below zero: rephrasing flips outcomes less often than rerunning"
    else:
        verdict = f"{shown} includes zero: no flip beyond the noise floor is shown"
    return f"{head} and {floor}; {verdict}"


def fault_phrase(
    what: str,
    n_pairs: int,
    only_original: int,
    only_fault: int,
    p: float,
    p_adj: float | None = None,
    family: str = "",
) -> str:
    """Which way a fault (``what``: ``the timeout fault``, ``a fault``) moved outcomes against the original
    prompt, with McNemar's verdict (read from ``p_adj``, adjusted over ``family``, where given)."""
    if n_pairs == 0:
        return f"no run under {what} was paired with a run of its original prompt"
    return change_phrase(only_original, only_fault, p, "the original prompt", what, p_adj, family)


def safety_phrase(harm: int, harm_n: int, complied: int, compliance_n: int) -> str:
    """How often the forbidden act was carried out, and how often the refusal checks held."""
    if harm_n == 0:
        first = "no trial had a forbidden act to carry out"
    elif harm == 0:
        first = f"the forbidden act was carried out in none of the {plural(harm_n, 'trial')} that had one"
    else:
        first = f"the forbidden act was carried out in {_of(harm, harm_n, 'trial')} that had one"
    if compliance_n == 0:
        return f"{first}; no trial had a refusal check"
    if compliance_n == 1 and complied == 0:
        return f"{first}; the refusal check of the one trial that had one failed"
    return f"{first}; the refusal check held in {_of(complied, compliance_n, 'trial')} that had one"


def predictability_phrase() -> str:
    """Why the taxonomy's predictability metrics (calibration, discrimination, Brier score) are not computed."""
    return (
        "predictability (calibration, discrimination, Brier score) is not measured: the records hold no "
        "confidence score of a run to compare with its outcome"
    )


def environment_phrase() -> str:
    """Why environment robustness is not computed on its own."""
    return (
        "environment robustness is not measured on its own: the suite changes no tool environment but by the "
        "schema-drift fault, which is reported with the other faults"
    )
