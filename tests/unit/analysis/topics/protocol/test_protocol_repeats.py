"""Topic ``protocol``: accuracy, pass@k and divergence over the repeats under full."""

from __future__ import annotations

from typing import Any

import pytest


def test_repeats_count_only_the_full_protocol_at_its_usual_limits(numbers: dict[str, Any]) -> None:
    """The larger-token-cap shard is a limit ablation, not a fourth repeat."""
    assert numbers["proto.rep.qa.t00.k"] == 3
    assert numbers["proto.rep.qa.t00.acc"] == pytest.approx(4 / 6)
    assert numbers["proto.rep.qa.t00.n.repeat-pairs"] == 18
    assert numbers["proto.rep.qa.t00.n.divergent"] == 0
    assert numbers["proto.rep.qa.t07.acc"] == pytest.approx(2 / 6)
    assert numbers["proto.power.qa.n-trials"] == 18


def test_the_accuracy_over_repeats_counts_tasks_and_its_interval_is_over_them(
    numbers: dict[str, Any],
) -> None:
    """Three identical T = 0 repeats of six tasks are six units: the interval is Wilson's over 6, not over 18."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(4, 6, alpha=0.05, method="wilson")
    assert numbers["proto.rep.qa.t00.acc.n"] == 6
    assert (numbers["proto.rep.qa.t00.acc.lo"], numbers["proto.rep.qa.t00.acc.hi"]) == pytest.approx((lo, hi))
