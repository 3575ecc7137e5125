"""Tidy's ``conditions`` column: the protocol conditions a record says were on, in declaration order."""

from __future__ import annotations

import pytest

from slmbench.tidy.rows import conditions_on


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        ({"name": "legacy-kv-answer", "answer_channel": True, "clean_kv": True, "closing_turn": False},
         "answer_channel+clean_kv"),
        ({"name": "legacy", "clean_kv": False}, ""),
        (None, None),
    ],
)  # fmt: skip
def test_the_conditions_on_are_named_in_declaration_order(
    protocol: dict | None, expected: str | None
) -> None:
    assert conditions_on(protocol) == expected


def test_an_unknown_condition_in_a_record_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown protocol condition\(s\) \['warp'\]"):
        conditions_on({"name": "x", "warp": True})
