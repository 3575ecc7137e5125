"""The study's vocabulary is declared once, in slmbench.vocab: no module types its members again as a list.

The scan reads every module's AST and flags a tuple, list or set literal of two or more strings that are all
members of one vocabulary tuple (``Literal[...]`` subscripts included): such a literal should be the name from
``slmbench.vocab``. Single strings are left alone (a comparison with one member is ordinary code), and so are
mapping keys (a mapping gives each member its data; mypy checks its keys against the ``Literal`` type).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from slmbench import vocab

PACKAGE = Path(vocab.__file__).resolve().parent
DECLARED_SUBSETS = {
    (
        "harness/scaffolds.py",
        frozenset({"native", "tool_call_tag"}),
    ): "the native scaffold declares what it accepts",
}
"""Part of an enumeration declared where it belongs (not a repeat), with the reason."""

ENUMS: dict[str, frozenset[str]] = {
    name: frozenset(value)
    for name, value in vars(vocab).items()
    if name.isupper()
    and isinstance(value, tuple)
    and len(value) >= 2
    and all(isinstance(v, str) for v in value)
}


def repeats(source: str, where: str) -> list[str]:
    """``where:line`` and the vocabulary name of every string-literal collection that repeats one."""
    found = []
    tree = ast.parse(source)
    topic_names = {  # a figure's or topic's ``reads=``: names of topics, which may equal a suite's name
        id(kw.value)
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        for kw in call.keywords
        if kw.arg == "reads"
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Tuple | ast.List | ast.Set) or id(node) in topic_names:
            continue
        values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(values) < 2 or len(values) != len(node.elts) or len(set(values)) < 2:
            continue
        names = [name for name, members in ENUMS.items() if set(values) <= members]
        if names and (where, frozenset(values)) not in DECLARED_SUBSETS:
            found.append(f"{where}:{node.lineno} {values} (use {' or '.join(sorted(names))})")
    return found


def scanned() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if path.name != "vocab.py"]


def test_the_vocabulary_has_enumerations() -> None:
    expected = {"SUITES", "DIMENSIONS", "FAILURE_CLASSES", "SCAFFOLDS", "PARSER_MODES", "REFUSAL_CODES"}
    assert expected <= set(ENUMS)
    assert {"REPHRASINGS", "FAULT_KINDS", "OUTCOMES", "SURFACES", "CALL_REPAIRS"} <= set(ENUMS)


def test_no_module_repeats_a_vocabulary_tuple() -> None:
    found = [hit for path in scanned() for hit in repeats(path.read_text(), str(path.relative_to(PACKAGE)))]
    assert found == [], "vocabulary typed again as literals:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ('x = ("capability", "reliability")', 1),
        ('x: Literal["native", "react"] = "native"', 1),
        ('ok = dim in ["robustness", "fault_tolerance"]', 1),
        ('x = ("capability", "external")', 0),  # not all members of one enumeration
        ('x = {"capability": 1, "reliability": 2}', 0),  # mapping keys are data
        ('x = suite == "capability"', 0),
    ],
)
def test_the_scan_itself(source: str, count: int) -> None:
    assert len(repeats(source, "m.py")) == count


def test_mappings_and_models_keyed_by_the_vocabulary_cover_it() -> None:
    from slmbench.harness.acceptance import SURFACE_WORDS
    from slmbench.tasks.schema import RELIABILITY_PREFIXES, Rephrasings
    from slmbench.tools.faults import FAULT_MESSAGES

    assert tuple(RELIABILITY_PREFIXES) == vocab.DIMENSIONS
    assert tuple(Rephrasings.model_fields) == vocab.REPHRASINGS
    assert tuple(SURFACE_WORDS) == vocab.SURFACES
    assert set(FAULT_MESSAGES) == set(vocab.FAULT_KINDS) - {"schema_drift"}
    assert set(vocab.VARIANT_DIMENSIONS) <= set(vocab.DIMENSIONS)
    assert set(vocab.BINARY_TASKS) <= set(vocab.ELIGIBILITY_TASKS)
