"""The test helper that reads which \\res{} a LaTeX file typesets unconditionally respects nesting."""

from __future__ import annotations

import pytest
from tests.fixtures.latex_conditionals import without_branches

NESTED = r"""\newif\ifdata
A \ifdata B \ifcsname x\endcsname\ifnum\csname x\endcsname>0 C\fi\fi D \else E \fi F % \ifnum in a comment
\ifnum 1>0 G\fi H"""


def letters(text: str) -> list[str]:
    return [word for word in text.split() if len(word) == 1 and word.isupper()]


def test_a_nested_fi_does_not_end_the_outer_branch() -> None:
    assert letters(without_branches(NESTED, {"ifdata"}, keep_else=True)) == ["A", "E", "F", "G", "H"]


def test_named_branches_go_with_their_else_and_others_stay() -> None:
    assert letters(without_branches(NESTED, {"ifdata", "ifnum"}, keep_else=False)) == ["A", "F", "H"]


def test_unbalanced_conditionals_are_an_error() -> None:
    with pytest.raises(ValueError, match="not closed"):
        without_branches(r"\ifnum 1>0 A", set(), keep_else=True)
    with pytest.raises(ValueError, match="without"):
        without_branches(r"A \fi", set(), keep_else=True)
