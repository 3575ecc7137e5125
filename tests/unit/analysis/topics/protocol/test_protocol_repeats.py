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
