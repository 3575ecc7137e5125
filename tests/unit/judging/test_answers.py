"""Tests for slmbench.judging.answers: normalisation and number/name parsing."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slmbench.judging.answers import (
    contains_name,
    mentions_number,
    normalise,
    parse_numbers,
    sentences,
    to_number,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The total is $1,234.50.", [1234.5]),
        ("-3.5 and 7", [-3.5, 7.0]),
        ("on 2024-03-15", [2024.0, 3.0, 15.0]),
        ("values 3,4,5", [3.0, 4.0, 5.0]),
        ("twenty-one apples", [21.0]),
        ("no numbers here", []),
    ],
)
def test_parse_numbers_reads_common_forms(text: str, expected: list[float]) -> None:
    assert parse_numbers(text) == expected


def test_percent_and_scale_give_both_readings() -> None:
    assert parse_numbers("12%") == [12.0, 0.12]
    assert 1_200_000.0 in parse_numbers("1.2 million users")
    assert 3000.0 in parse_numbers("about 3k")


def test_mentions_number_uses_tolerances() -> None:
    assert mentions_number("It is 544.33 ms", 544.3, abs_tol=0.05)
    assert not mentions_number("It is 544.4 ms", 544.3, abs_tol=0.05)
    assert mentions_number("387.00 EUR", 387)
    assert not mentions_number("388 EUR", 387)


def test_normalise_drops_case_accents_punctuation_and_articles() -> None:
    assert normalise("The Café-Royal!") == "cafe royal"
    assert normalise("  An   apple, a PEAR ") == "apple pear"


def test_contains_name_is_whole_word() -> None:
    assert contains_name("I met Quenby Robotics' CEO", "Quenby Robotics")
    assert not contains_name("Tomas was there", "Tom")
    assert contains_name("Licence: Apache-2.0.", "Apache 2.0")


def test_sentences_split_on_terminal_punctuation_but_not_decimals() -> None:
    assert sentences("It costs 2.20 each. Buy it! Why?\nNew line") == [
        "It costs 2.20 each.",
        "Buy it!",
        "Why?",
        "New line",
    ]


def test_to_number_only_reads_whole_numeric_strings() -> None:
    assert to_number("1,234.5") == 1234.5
    assert to_number(7) == 7.0
    assert to_number("abc 5") is None
    assert to_number(True) is None


finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@given(finite)
def test_parse_numbers_recovers_plain_and_separated_numbers(value: float) -> None:
    rounded = round(value, 2)
    for text in (f"The answer is {rounded:.2f}.", f"Total: {rounded:,.2f} EUR"):
        assert any(math.isclose(v, rounded, rel_tol=1e-9, abs_tol=1e-9) for v in parse_numbers(text))


@given(st.text())
def test_normalise_is_idempotent(text: str) -> None:
    assert normalise(normalise(text)) == normalise(text)


@given(st.text())
def test_parse_numbers_never_crashes_and_returns_finite(text: str) -> None:
    assert all(math.isfinite(v) for v in parse_numbers(text))


names = st.from_regex(r"[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8})?", fullmatch=True).filter(
    lambda s: normalise(s) == s.casefold()
)


@given(names, st.sampled_from(["", "Mr. ", "Hello "]), st.sampled_from(["", ".", ", thanks", "!"]))
def test_contains_name_finds_embedded_names(name: str, before: str, after: str) -> None:
    assert contains_name(f"{before}{name}{after}", name)
