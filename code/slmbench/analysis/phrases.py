"""Sentence fragments the paper prints, chosen from the values they describe.

A template sentence with numbers in it can be false for some values ("model(s)", "the leader", "clears the
floor", an interval "0.0 % to 0.0 %"). Each function here returns the fragment that is true for its inputs;
topics store it as a text number (``*.phrase.*``) and the paper prints it with ``\\res{}``. Every function is
rendered for its edge values in ``tests/unit/analysis/test_phrases.py``. Fragments are LaTeX-escaped by ``nb.text``.
"""

from __future__ import annotations

import math

from slmbench.records.atomic import stable_float

MIN_MODELS_FOR_CORRELATION = 5
"""Below this many models a size correlation is reported in the number list but not interpreted."""

_WORDS = {
    0: "no",
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
}


def count_word(n: int) -> str:
    """``3`` -> ``three`` (numbers above nine as digits)."""
    return _WORDS.get(n, str(n))


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """``1 model``, ``2 models``, ``no models``."""
    word = singular if n == 1 else (plural_form or singular + "s")
    return f"{count_word(n)} {word}"


def percent(value: float) -> str:
    """``0.125`` -> ``12.5%`` (the caller escapes)."""
    return "n/a" if not math.isfinite(value) else f"{stable_float(100 * value):.1f}%"


def top_phrase(top: str | None, gap: float, n_models: int, tied: int = 0, best: float = math.nan) -> str:
    """Which instruction-tuned model is ahead of all others: only one that leads the next best by two tasks or more
    and whose every pairwise test is significant (the caller passes None otherwise, with the best model's lead over
    the next best as ``gap``); ``tied`` models share the best accuracy, ``best``. The sentence speaks of the best two
    only: lower models may be further behind."""
    if n_models == 0:
        return "no instruction-tuned model was run"
    if n_models == 1:
        return "only one instruction-tuned model was run, so none can be ranked"
    if top is None:
        if math.isfinite(gap) and gap < 0.5:
            if best == 0:
                return f"{'neither' if n_models == 2 else 'no'} instruction-tuned model passed a task"
            if tied == n_models:
                every = "both" if n_models == 2 else f"all {count_word(n_models)}"
                return f"no instruction-tuned model leads all others: {every} have the same accuracy"
            if tied > 1:
                return (
                    f"no instruction-tuned model leads all others: {count_word(tied)} share the top accuracy"
                )
            return "no instruction-tuned model leads all others: the best share the top accuracy"
        if math.isfinite(gap) and gap < 1.5:
            return "no instruction-tuned model leads all others: the best two are one task apart"
        return (
            "no instruction-tuned model is significantly ahead of all others "
            f"(the best leads the next best by {gap:.0f} tasks)"
        )
    return f"{top} is ahead of every other instruction-tuned model, by {gap:.0f} tasks or more and in every pairwise test"


def pairs_phrase(n_sig: int, n_tests: int, n_equiv: int | None = None, margin: float = math.nan) -> str:
    """How many pairwise differences between instruction-tuned models survive the BH correction; a test that does
    not show a difference never reads as "the same". With ``n_equiv`` (the pairs TOST shows equivalent within
    ``margin``; None where TOST does not apply) it says for how many pairs equivalence is shown."""
    if n_tests == 0:
        return "there is no pair of instruction-tuned models to compare"
    if n_sig == 0:
        head = (
            "the one pairwise test does not show a difference"
            if n_tests == 1
            else f"none of the {count_word(n_tests)} pairwise tests shows a difference after Benjamini--Hochberg"
        )
    elif n_sig == n_tests:
        head = (
            "the one pairwise difference is significant"
            if n_tests == 1
            else f"all {count_word(n_tests)} pairwise differences are significant after Benjamini--Hochberg"
        )
    else:
        verb = "is" if n_sig == 1 else "are"
        head = (
            f"{count_word(n_sig)} of the {count_word(n_tests)} pairwise differences {verb} significant after "
            "Benjamini--Hochberg"
        )
    if n_equiv is None or not math.isfinite(margin):
        return head
    within = f"within \u00b1{stable_float(100 * margin):g} percentage points (TOST)"
    if n_tests == 1:
        return f"{head}, and equivalence {within} {'is shown' if n_equiv else 'is not shown'}"
    which = "none" if n_equiv == 0 else ("all" if n_equiv == n_tests else count_word(n_equiv))
    return f"{head}, and equivalence {within} is shown for {which} of the {count_word(n_tests)} pairs"


def size_phrase(n_models: int) -> str:
    """Whether a size correlation over ``n_models`` instruction-tuned models is interpreted."""
    if n_models < 3:
        return f"with {plural(n_models, 'instruction-tuned model')} no size correlation can be computed"
    if n_models < MIN_MODELS_FOR_CORRELATION:
        return (
            f"with {plural(n_models, 'instruction-tuned model')} a correlation of size and accuracy is "
            "listed but not interpreted"
        )
    return f"across {plural(n_models, 'instruction-tuned model')} the correlation of log size and accuracy is"


def bootstrap_phrase(n_clusters: int, n_valid: int, n_resamples: int) -> str:
    """What the model-level bootstrap did."""
    if n_valid == 0:
        return (
            f"with {plural(n_clusters, 'model')}, too few to resample, no model-level bootstrap interval is "
            "reported"
        )
    if n_valid < n_resamples:
        return f"{n_valid} of {n_resamples} model resamples gave a defined value"
    return f"all {n_resamples} model resamples gave a defined value"


def resampled_phrase(lo: float, hi: float, n_clusters: int, n_valid: int, n_resamples: int) -> str:
    """A clause on a difference's model-level bootstrap interval, or why there is none."""
    if n_valid == 0 or not (math.isfinite(lo) and math.isfinite(hi)):
        return bootstrap_phrase(n_clusters, 0, n_resamples)
    if lo == hi:
        return f"resampling models, its interval collapses at {percent(lo)}"
    return f"resampling models, its interval runs from {percent(lo)} to {percent(hi)}"


def interval_phrase(lo: float, hi: float) -> str:
    """``from 3.2% to 15.1%``, or what a degenerate interval means."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "with no interval"
    if lo == hi:
        return f"with an interval collapsed at {percent(lo)}"
    return f"from {percent(lo)} to {percent(hi)}"


def floor_phrase(n_clear: int, n_models: int, floor: float, margin: float) -> str:
    """How many instruction-tuned models clear the base-model floor by the margin (at the interval's low end)."""
    head = f"the base-model floor of {percent(floor)} plus a margin of {percent(margin)}"
    if n_models == 0:
        return "no instruction-tuned model was run"
    if n_clear == 0:
        return f"no instruction-tuned model clears {head} at the lower end of its interval"
    if n_clear == n_models:
        who = (
            "the one instruction-tuned model clears"
            if n_models == 1
            else f"all {count_word(n_models)} instruction-tuned models clear"
        )
        return f"{who} {head} at the lower end of their interval"
    verb = "clears" if n_clear == 1 else "clear"
    return f"{count_word(n_clear)} of the {count_word(n_models)} instruction-tuned models {verb} {head} at the lower end of their interval"


def _test_text(p: float) -> tuple[str, bool]:
    """A test's p-value as printed (``p < 0.001`` or ``p = 0.0123``) and whether it is below 0.05."""
    return ("p < 0.001" if p < 0.001 else f"p = {p:#.3g}"), p < 0.05


def gain_phrase(label: str, lost: int, gained: int, p: float, unit: str) -> str:
    """A paired comparison in brief: ``<label> gained 12 task pairs and lost none (exact McNemar p < 0.001)``."""
    counts = f"{label} gained {plural(gained, unit)} and lost {'none' if lost == 0 else count_word(lost)}"
    return f"{counts} (exact McNemar {_test_text(p)[0]})" if math.isfinite(p) else counts


def change_phrase(
    only_first: int,
    only_second: int,
    p: float,
    first: str,
    second: str,
    p_adj: float | None = None,
    family: str = "",
) -> str:
    """What a paired comparison shows: which way trials moved and whether McNemar's test sees it. A test that does
    not see it says so, never that nothing changed (``equivalence_phrase`` says whether the two are the same).

    With ``p_adj`` (the Benjamini--Hochberg adjusted p over ``family``, e.g. ``the three models tested``) the
    verdict reads the adjusted p, printed beside the raw one; an empty ``family`` (a family of one test, whose
    adjusted p is its p) prints the p alone.
    """
    moved = only_first + only_second
    if moved == 0:
        return f"no paired trial changes outcome between {first} and {second}"
    verb = "passes" if only_second == 1 else "pass"
    direction = f"{plural(only_second, 'trial')} {verb} only under {second} and {plural(only_first, 'trial')} only under {first}"
    if not math.isfinite(p):
        return direction
    test, significant = _test_text(p)
    adjusted = ""
    if p_adj is not None and math.isfinite(p_adj) and family:
        shown, significant = _test_text(p_adj)
        adjusted = f", adjusted {shown} by Benjamini--Hochberg over {family}"
    verdict = "a significant change" if significant else "the test does not show a change"
    return f"{direction}: {verdict} (exact McNemar {test}{adjusted})"


def family_phrase(n_tests: int, noun: str) -> str:
    """The family a Benjamini--Hochberg adjustment ran over, ``the three models tested``; empty for fewer than
    two tests (nothing to adjust)."""
    return f"the {plural(n_tests, noun)} tested" if n_tests > 1 else ""


def equivalence_phrase(
    n: int,
    unit: tuple[str, str],
    difference: float,
    lo: float,
    hi: float,
    p: float,
    margin: float,
    level: float,
    equivalent: bool,
) -> str:
    """Whether TOST shows two paired conditions the same within ``margin`` (``stats_equivalence``): over ``n``
    units (``unit``: singular and plural noun), the difference (second minus first) in percentage points with
    its ``level`` interval and the TOST p, and the verdict: "equivalent within +-m points" or "equivalence within
    +-m points is not shown". Never says the two are the same on a test that does not show it."""
    within = f"\u00b1{stable_float(100 * margin):g} percentage points"
    if n == 0 or not math.isfinite(difference):
        return f"with no {unit[1]} paired, equivalence within {within} is not shown"
    test, _ = _test_text(p) if math.isfinite(p) else ("p undefined", False)
    shown = f"{stable_float(100 * level):g}% interval {_points(lo)} to {_points(hi)}"
    head = (
        f"over {plural(n, unit[0], unit[1])} the difference is {_points(difference)} percentage points "
        f"({shown}; TOST {test})"
    )
    verdict = f"equivalent within {within}" if equivalent else f"equivalence within {within} is not shown"
    return f"{head}: {verdict}"


def quant_phrase(n_pairs: int, lower: int, higher: int, p: float) -> str:
    """Which way requantisation moved test accuracy over ``n_pairs`` paired comparisons, with the two-sided sign
    test over the comparisons that moved (``p``)."""
    if n_pairs == 0:
        return "no requantised variant was scored"
    if lower == higher == 0:
        where = "the one comparison" if n_pairs == 1 else f"all {plural(n_pairs, 'comparison')}"
        return f"requantisation left test accuracy unchanged in {where}"
    if lower > higher:
        head = "requantisation lowered test accuracy in more comparisons than it raised it"
    elif higher > lower:
        head = "requantisation raised test accuracy in more comparisons than it lowered it"
    else:
        head = "requantisation lowered and raised test accuracy equally often"
    if not math.isfinite(p):
        return head
    test, significant = _test_text(p)
    verdict = "significant" if significant else "not significant"
    return f"{head} (sign test over the {plural(lower + higher, 'comparison')} that moved: {test}, {verdict})"


def eligibility_change_phrase(lost: int, gained: int) -> str:
    """In how many paired comparisons a configuration lost and gained eligibility when requantised."""
    if lost == gained == 0:
        return "no configuration lost or gained eligibility when requantised"
    first, n_first, second, n_second = (
        ("lost", lost, "gained", gained) if lost else ("gained", gained, "lost", lost)
    )
    other = plural(n_second, "comparison") if n_second else "none"
    return f"a configuration {first} eligibility when requantised in {plural(n_first, 'comparison')} and {second} it in {other}"


def _temps(values: list[float]) -> str:
    text = [f"{t:g}" for t in values]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " and " + text[-1]


def sweep_phrase(swept: dict[str, list[float]]) -> str:
    """Which models were run at which temperatures (only models run at more than one)."""
    if not swept:
        return "no model was run at more than one temperature"
    parts = [f"{model} at {_temps(temps)}" for model, temps in sorted(swept.items())]
    return "; ".join(parts)


def _points(value: float) -> str:
    """A difference of two rates in percentage points, signed: ``+3.2``, ``-1.1``, ``0.0``."""
    return "0.0" if round(100 * value, 1) == 0 else f"{100 * value:+.1f}"


def sweep_diff_phrase(
    diffs: list[tuple[str, float, float, float, float]], lowest: float, level: float
) -> str:
    """Which temperatures moved a model's accuracy from the lowest one beyond the interval of the difference
    (``diffs``: model, temperature, difference, its interval's ends; ``level``: the interval's coverage)."""
    if not diffs:
        return "no model was run at more than one temperature"
    shown = f"{100 * level:g} % interval"
    defined = [d for d in diffs if math.isfinite(d[3]) and math.isfinite(d[4])]
    moved = [d for d in defined if d[3] > 0 or d[4] < 0]
    if not defined:
        return f"no difference from T = {lowest:g} could be given an interval (too few tasks to resample)"
    if not moved:
        low, high = min(d[2] for d in defined), max(d[2] for d in defined)
        spread = f"{_points(low)} points" if low == high else f"from {_points(low)} to {_points(high)} points"
        return (
            f"no temperature moved a model's accuracy beyond the {shown} of its difference from T = {lowest:g} "
            f"(tasks resampled; the differences range {spread})"
        )
    named = "; ".join(
        f"{model} at T = {t:g}: {_points(d)} points ({_points(lo)} to {_points(hi)})"
        for model, t, d, lo, hi in moved
    )
    rest = len(defined) - len(moved)
    tail = f"; the other {plural(rest, 'difference')} stay within theirs" if rest else ""
    return f"accuracy moved from T = {lowest:g} beyond the {shown} (tasks resampled) for {named}{tail}"


def sweep_cpu_phrase(cpus: dict[float, list[str]]) -> str:
    """Which kinds of CPU each temperature ran on (temperature -> kinds), and whether comparing temperatures
    also compares machines."""
    if len(cpus) < 2:
        return "no model was run at more than one temperature"
    groups: dict[tuple[str, ...], list[float]] = {}
    for temp, names in sorted(cpus.items()):
        groups.setdefault(tuple(names) or ("an unrecorded CPU",), []).append(temp)
    if len(groups) == 1:
        (only,) = groups
        return f"every temperature ran on {' and '.join(only)}"
    (first_kinds, first_temps), *others = groups.items()
    items = [
        f"the runs at T = {_temps(first_temps)} ran on {' and '.join(first_kinds)}",
        *(f"those at T = {_temps(temps)} on {' and '.join(kinds)}" for kinds, temps in others),
    ]
    listed = ", ".join(items[:-1]) + " and " + items[-1]
    return f"{listed}, so a difference between temperatures is also one between machines"


def determinism_phrase(divergent: int, pairs: int, n_models: int) -> str:
    """Whether repeats of one trial at temperature zero gave the same transcript."""
    if pairs == 0:
        return "no trial was repeated at temperature zero"
    who = plural(n_models, "model")
    if divergent == 0:
        return f"all {pairs} pairs of repeats at temperature zero gave identical transcripts ({who})"
    return f"{divergent} of {pairs} pairs of repeats at temperature zero gave different transcripts ({who})"


def cpu_phrase(same: int, same_differ: int, cross: int, cross_differ: int) -> str:
    """Whether identical first requests got identical first replies, on one kind of CPU and across two: over the
    first-reply pairs (two trials of one model, task and variant whose first requests are identical; the paper
    defines them where it first prints this)."""
    if same + cross == 0:
        return "no two trials began with the same request"

    def part(pairs: int, differ: int, where: str) -> str:
        if differ == 0:
            return f"all {pairs:,} pairs run on {where} gave the same first reply"
        return f"{differ:,} of the {pairs:,} pairs run on {where} gave different first replies"

    parts = [
        part(n, d, w)
        for n, d, w in ((same, same_differ, "one kind of CPU"), (cross, cross_differ, "two kinds"))
    ]
    if cross == 0:
        parts[1] = "no such pair ran on two kinds of CPU"
    if same == 0:
        parts[0] = "no such pair ran on one kind of CPU"
    return f"of the first-reply pairs, {parts[0]}, and {parts[1]}"


def cross_cpu_phrase(crossing: dict[str, tuple[int, int]]) -> str:
    """Which comparisons pair trials run on two kinds of CPU (name -> (such pairs, all pairs))."""
    named = [f"{name} ({k:,} of {n:,} pairs)" for name, (k, n) in crossing.items() if k]
    if not named:
        return "no comparison pairs trials run on different kinds of CPU"
    return "pairs whose two sides ran on different kinds of CPU are in " + "; ".join(named)
