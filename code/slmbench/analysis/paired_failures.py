"""The failed trials of a paired comparison (``analysis.paired``): the share of each failure class per
condition, and the share with no accepted tool call, pooled or per model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.vocab import FAILURE_CLASSES

if TYPE_CHECKING:
    from slmbench.analysis.paired import Role, Sides

_WILSON = wilson_interval


def failure_shares(
    prefix: str, pairs: pd.DataFrame, sides: Sides, names: tuple[str, str], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Share of each failure class among the failed trials of the pairs, per condition (each selects exactly
    that condition's failed paired trials)."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    roles: tuple[tuple[Role, str, str, str], ...] = (
        ("primary", names[0], "p_pass", "failure_class_p"),
        ("other", names[1], "o_pass", "failure_class_o"),
    )
    for role, name, passed, klass in roles:
        failed = pairs.loc[~pairs[passed], klass].fillna("unclassified")
        sel = sides.of(pairs, role, failed=True)
        for c in FAILURE_CLASSES:
            r = wilson_interval(int((failed == c).sum()), len(failed), alpha)
            prov = nb.provenance(
                _WILSON, sel, f"share of {c} among failed paired trials, {name}", alpha=alpha
            )
            out += nb.rate_numbers(f"{prefix}.fail.{role}.{nb.slug(c)}", r, prov)
            rows.append({"condition": name, "role": role, "class": c, "k": r.k, "n": r.n, "share": r.rate})
    return out, rows


def no_accepted_call(
    prefix: str, pairs: pd.DataFrame, sides: Sides, names: tuple[str, str], alpha: float
) -> list[Number]:
    """Per condition, the share of its failed paired trials with no accepted tool call (``n_tool_calls`` 0:
    no call attempted, or every attempt refused or unparsed), a wider set than the no-tool-call class
    (``<prefix>.fail.<role>.no-accepted-call``); nothing where the trials do not count their calls."""
    out: list[Number] = []
    roles: tuple[tuple[Role, str, str, str], ...] = (
        ("primary", names[0], "p_pass", "n_tool_calls_p"),
        ("other", names[1], "o_pass", "n_tool_calls_o"),
    )
    for role, name, passed, calls in roles:
        if calls not in pairs:
            continue
        failed = pairs[~pairs[passed]]
        zero = failed[calls].fillna(0) == 0
        r = wilson_interval(int(zero.sum()), len(failed), alpha)
        prov = nb.provenance(
            _WILSON,
            sides.of(pairs, role, failed=True),
            f"share of failed paired trials with no accepted tool call, {name}",
            alpha=alpha,
        )
        out += nb.rate_numbers(f"{prefix}.fail.{role}.no-accepted-call", r, prov)
    return out
