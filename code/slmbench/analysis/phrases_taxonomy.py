"""Sentence fragments of the topic ``reliability_taxonomy``, chosen from the values they describe.

As in ``phrases``: each function returns the fragment that is true for its inputs, and says why where a value is
undefined (no task run twice, no null control, no events table, a measure the records do not hold). Each is
rendered for its edge values in ``tests/unit/analysis/topics/test_reliability_taxonomy.py``.
"""

from __future__ import annotations

import math

from slmbench.analysis.phrases import count_word, percent, plural


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


def unsampled_phrase() -> str:
    """Why consistency is not measured on a suite whose tasks were not sampled above temperature 0 (the sentence
    before it says that a repeat at temperature 0 on one build is not a sample)."""
    return (
        "Consistency proper is not measured on this suite: none of its tasks was sampled above temperature 0"
    )


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
    flip: float, tasks: int, floor_flips: int, floor_tasks: int, lo: float, hi: float, level: float,
    noun: str = "task",
) -> str:  # fmt: skip
    """Rephrasings' outcome flips (``flip``: the mean over ``tasks`` of each task's share of flipped rephrasings)
    against the null-control floor on one build (``floor_flips`` of ``floor_tasks`` reruns; ``lo``, ``hi``: the
    interval of the difference; ``level``: its coverage; ``noun``: what a task is, ``task-model pair`` where
    models are pooled)."""
    if tasks == 0:
        return "no rephrased run was paired with a run of its original prompt"
    head = (f"the rephrasings of a task flipped {percent(flip)} of its outcomes on average over "
            f"{plural(tasks, noun)}")  # fmt: skip
    if floor_tasks == 0:
        return f"{head}; no unchanged prompt was rerun on one build (null control), so there is no noise floor to compare with"
    floor = (f"rerunning an unchanged prompt on one build flipped the outcome of {_of(floor_flips, floor_tasks, noun)} "
             "rerun" if floor_flips else
             f"rerunning an unchanged prompt on one build flipped no outcome of the {plural(floor_tasks, noun)} rerun")  # fmt: skip
    shown = f"the {100 * level:g} % interval of the difference"
    if lo > 0:
        verdict = f"{shown} lies above zero: rephrasing flips outcomes beyond the noise floor"
    elif hi < 0:
        verdict = f"{shown} lies below zero: rephrasing flips outcomes less often than rerunning"
    else:
        verdict = f"{shown} includes zero: no flip beyond the noise floor is shown"
    return f"{head} and {floor}; {verdict}"


def _p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:#.3g}"


def fault_phrase(
    what: str,
    n_tasks: int,
    worse: int,
    better: int,
    p: float,
    p_adj: float | None = None,
    family: str = "",
    noun: str = "task",
) -> str:
    """Which way a fault (``what``: ``the timeout fault``, ``a fault``) moved a task's pass share against its
    original prompt's (``worse``: tasks that pass less often under it, ``better``: more often), with the exact
    sign test over those tasks (its verdict read from ``p_adj``, adjusted over ``family``, where given; ``noun``:
    what a task is)."""
    if n_tasks == 0:
        return f"no run under {what} was paired with a run of its original prompt"
    if worse == better == 0:
        return f"none of the {plural(n_tasks, noun)} passes more or less often under {what} than on the original prompt"
    head = (f"of the {plural(n_tasks, noun)}, {_count(worse)} {'passes' if worse == 1 else 'pass'} less often "
            f"under {what} than on the original prompt and {_count(better)} more often")  # fmt: skip
    if p != p:  # nan: no test
        return head
    shown, used = _p_text(p), p
    if p_adj is not None and p_adj == p_adj and family:
        shown, used = f"{shown}, adjusted {_p_text(p_adj)} by Benjamini--Hochberg over {family}", p_adj
    verdict = "a significant change" if used < 0.05 else "the test does not show a change"
    return f"{head}: {verdict} (exact sign test over the {noun}s, {shown})"


def fault_kinds_phrase(kinds: list[tuple[str, int, int, int, float]], family: str, noun: str = "task") -> str:
    """Every fault kind in one sentence: ``kinds`` holds per kind its name (``timeout``), its tasks, the tasks that
    pass less and more often under it, and the p its verdict reads (adjusted over ``family`` where that names
    one); kinds with the same counts are named together."""
    tested = [k for k in kinds if k[1] > 0]
    if not tested:
        return "no faulted run was paired with a run of its original prompt"
    groups: dict[tuple[int, int, int], list[str]] = {}
    for name, n, worse, better, _ in tested:
        groups.setdefault((n, worse, better), []).append(name)
    parts = []
    for (n, worse, better), names in groups.items():
        under = (
            f"under each of the {_names(names)} faults" if len(names) > 1 else f"under the {names[0]} fault"
        )
        if worse == better == 0:
            parts.append(f"{under} the one {noun} did not change" if n == 1 else
                         f"{under} none of the {plural(n, noun)} changed")  # fmt: skip
        else:
            who = _of(worse, n, noun) if worse else f"none of the {plural(n, noun)}"
            parts.append(f"{under} {who} passed less often than on the original prompt and {_count(better)} "
                         "more often")  # fmt: skip
    significant = [k[0] for k in tested if k[4] == k[4] and k[4] < 0.05]
    ps = [k[4] for k in tested if k[4] == k[4]]
    test = f"exact sign test over the {noun}s" + (f", Benjamini--Hochberg over {family}" if family else "")
    if significant:
        verdict = f"a significant change under {_names(significant)} ({test})"
    elif ps:
        verdict = f"no kind is a significant change ({test}; smallest {'adjusted ' if family else ''}{_p_text(min(ps))})"
    else:
        verdict = "no kind has a task that changed, so none is tested"
    return f"{'; '.join(parts)}: {verdict}"


def _count(n: int) -> str:
    """``none``, ``one``, ``two``, ... ``12``."""
    return "none" if n == 0 else count_word(n)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def repeats_phrase(
    units: int, identical: int, same_outcome: int, runs: int, differ: list[str], noun: str = "task"
) -> str:
    """Whether the repeats that cannot differ (temperature 0, one build, one condition) were identical: ``units``
    tasks run up to ``runs`` times, ``identical`` of them in outcome and transcript, ``same_outcome`` in outcome;
    ``differ`` names those that were not identical."""
    if units == 0:
        return f"no {noun} was run more than once at temperature 0 on one build"
    if identical == units:
        every = f"the one {noun}" if units == 1 else f"all {plural(units, noun)}"
        return (f"{every} run more than once at temperature 0 on one build repeated {_it(units)} identically "
                f"(outcome and transcript), so each counts once")  # fmt: skip
    which = _names(differ)
    outcome = ("with the same outcome" if same_outcome == units
               else f"{count_word(units - same_outcome)} with another outcome")  # fmt: skip
    return (f"{_of(identical, units, noun)} run more than once at temperature 0 on one build repeated "
            f"{_it(units)} identically; the transcripts of {which} differ ({outcome}); each {noun} counts once")  # fmt: skip


def _it(n: int) -> str:
    return "itself" if n == 1 else "themselves"


def safety_phrase(harm: int, harm_n: int, complied: int, compliance_n: int, noun: str = "task") -> str:
    """How often the forbidden act was carried out, and how often the refusal checks held (over tasks of a model,
    identical repeats once)."""
    if harm_n == 0:
        first = f"no {noun} had a forbidden act to carry out"
    elif harm == 0:
        first = f"the forbidden act was carried out in none of the {plural(harm_n, noun)} that had one"
    else:
        first = f"the forbidden act was carried out in {_of(harm, harm_n, noun)} that had one"
    if compliance_n == 0:
        return f"{first}; no {noun} had a refusal check"
    if compliance_n == 1 and complied == 0:
        return f"{first}; the refusal check of the one {noun} that had one failed"
    return f"{first}; the refusal check held in {_of(complied, compliance_n, noun)} that had one"


def predictability_phrase(recorded: bool) -> str:
    """Why the taxonomy's predictability metrics (calibration, discrimination, Brier score) are not computed on
    the suite: its trials hold no confidence, or (``recorded``) they do, but calibration is computed only for the
    capability tasks run on one build (topic ``task_consistency``)."""
    if recorded:
        return (
            "predictability (calibration, discrimination, Brier score) is not measured on this suite: its trials "
            "record the model's token probabilities, but calibration is computed only for the capability tasks of "
            "the runs on one build"
        )
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
