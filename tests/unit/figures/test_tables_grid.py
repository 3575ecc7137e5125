"""The eligibility grid tables print the paired test beside the Wilson rule, mark a cut-off a tie-break chose,
and compare the cascade with BM25 alone (the synthetic study of ``tests.fixtures.eligibility``)."""

from tests.fixtures.figure_topics import topic_docs

from slmbench.figures.tables import render_table


def _row(tex: str, start: str) -> list[str]:
    line = next(line for line in tex.splitlines() if line.startswith(start))
    return [c.strip() for c in line.removesuffix("\\\\").split("&")]


def test_the_eligibility_table_prints_the_adjusted_paired_p_beside_the_wilson_rule() -> None:
    doc = topic_docs()["eligibility"]
    tex = render_table("eligibility", doc)
    assert "$p_{\\mathrm{BH}}$" in tex and "Benjamini--Hochberg" in tex
    cells = _row(tex, "m-a & terse & shipped")
    text = {n["key"]: n["text"] for n in doc["numbers"]}
    assert cells[4].endswith("\\textsuperscript{\\dag}")  # eligible by the Wilson rule
    assert (
        cells[5] == text["elig.command-approval.m-a.terse.shipped.paired.padj"] == "0.107"
    )  # BH over 5: no dagger


def test_the_diagnosis_table_marks_a_cut_off_a_tie_break_chose() -> None:
    tex = render_table("eligibility_diagnosis", topic_docs()["eligibility"])
    assert "closest to 0" in tex
    assert (
        _row(tex, "m-c & terse & shipped")[4] == "0.00\\textsuperscript{\\dag}"
    )  # the untuned cut-off won the tie
    assert "\\dag" not in _row(tex, "m-b & terse & shipped")[4]


def test_the_cascade_table_compares_with_bm25_alone() -> None:
    tex = render_table("eligibility_cascade", topic_docs()["eligibility"])
    cells = _row(tex, "m-a & terse & shipped")
    assert cells[3:8] == ["--"] * 5  # no tool-selection run
    assert cells[-2:] == ["better\\textsuperscript{\\dag}", "no"]  # reranking
