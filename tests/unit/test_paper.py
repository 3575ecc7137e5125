"""The paper's sources (main.tex, the text templates) and its rendered text: no typed result numbers, every key
defined, every figure and table has a rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "paper"
TEMPLATES = sorted((PAPER / "templates").glob("*.tex.j2"))
TEXT = sorted((PAPER / "generated").glob("text_*.tex"))
NUMBERS = PAPER / "generated" / "numbers.tex"

# Constructs whose arguments may hold digits: result macros, cross-references, citations, inputs, graphics
# options such as widths, and LaTeX comments.
_ALLOWED = re.compile(
    r"\\res\{[^}]*\}"
    r"|\\(?:label|ref|eqref|autoref|cref|Cref|cite[pt]?|citeauthor|citeyear|input|include)\*?(?:\[[^\]]*\])*\{[^}]*\}"
    r"|\\includegraphics(?:\[[^\]]*\])?\{[^}]*\}"
    r"|\b(?:width|height|scale)\s*=\s*[0-9.]+"
    r"|(?<!\\)%.*"
)
_TYPED = re.compile(r"[0-9]+\.[0-9]+|[0-9]+\s*\\?%")


def typed_numbers(tex: str) -> list[str]:
    """Typed result-like numbers (decimals or percentages) left after removing the allowed constructs."""
    return _TYPED.findall(_ALLOWED.sub(" ", tex))


def res_keys(tex: str) -> set[str]:
    """Keys used by ``\\res{KEY}``."""
    return set(re.findall(r"\\res\{([^}]*)\}", _strip_comments(tex)))


def _strip_comments(tex: str) -> str:
    return re.sub(r"(?<!\\)%.*", "", tex)


def test_scanner_flags_typed_numbers_and_allows_macros() -> None:
    assert typed_numbers("accuracy was 67.7 on average") == ["67.7"]
    assert typed_numbers("a rate of 45\\% and 12 \\%") == ["45\\%", "12 \\%"]
    ok = (
        "\\res{cap.acc.qwen2-5-1-5b} \\label{fig:v1.2} \\ref{sec:3.1} \\citep{wilson1927} "
        "\\includegraphics[width=0.9\\linewidth]{../figures/fig_a.pdf} % 99.9 in a comment\n"
        "\\input{generated/tab_capability} the 31 tasks"
    )
    assert typed_numbers(ok) == []


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_templates_hold_no_typed_result_numbers(template: Path) -> None:
    found = typed_numbers(template.read_text(encoding="utf-8"))
    assert not found, f"{template.name}: typed numbers {found}; use res(KEY) or a generated table"


def test_every_result_key_is_defined() -> None:
    if not NUMBERS.exists():
        pytest.skip(
            "paper/generated/numbers.tex not generated yet (run `snakemake paper/generated/numbers.tex`)"
        )
    defined = set(re.findall(r"\\csname slmres@([^\\]+)\\endcsname", NUMBERS.read_text(encoding="utf-8")))
    used = set().union(*(res_keys(p.read_text(encoding="utf-8")) for p in [PAPER / "main.tex", *TEXT]))
    assert used, "the paper uses no \\res keys"
    assert not used - defined, f"undefined result keys: {sorted(used - defined)}"


def test_result_keys_follow_the_key_scheme() -> None:
    used = set().union(*(res_keys(p.read_text(encoding="utf-8")) for p in TEXT))
    bad = sorted(k for k in used if not re.fullmatch(r"[a-z0-9.-]+", k))
    assert not bad, f"keys outside [a-z0-9.-]: {bad}"


def _all_sources() -> str:
    return "\n".join(_strip_comments(p.read_text(encoding="utf-8")) for p in [PAPER / "main.tex", *TEMPLATES])


def _all_tex() -> str:
    return "\n".join(_strip_comments(p.read_text(encoding="utf-8")) for p in [PAPER / "main.tex", *TEXT])


def test_every_included_figure_is_registered_and_every_figure_is_declared() -> None:
    """The figure rule is generated from the registry, so a registered figure has a rule; the text may include
    a figure only through its declaration (the parts it draws)."""
    from slmbench.figures import FIGURES
    from slmbench.paper import FIGURE_PARTS

    included = set(
        re.findall(r"\\includegraphics(?:\[[^\]]*\])?\{\.\./figures/fig_([a-z_]+)\.pdf\}", _all_tex())
    )
    rules = (ROOT / "code/rules/figures.smk").read_text(encoding="utf-8")
    assert included, "no figures included"
    assert '"figures/fig_{name}.pdf"' in rules and "FIGURES" in rules
    assert included <= set(FIGURES)
    assert set(FIGURES) <= set(FIGURE_PARTS), f"not declared: {sorted(set(FIGURES) - set(FIGURE_PARTS))}"


def test_every_generated_table_has_a_rule() -> None:
    from slmbench.figures import TABLES

    tables = set(re.findall(r"\\input\{generated/tab_([a-z_]+)\}", _all_tex()))
    rules = (ROOT / "code/rules/paper.smk").read_text(encoding="utf-8")
    appendix = {"per_task"}  # written by the appendix rule, with the transcripts
    assert '"paper/generated/tab_per_task.tex"' in rules
    assert tables and tables <= set(TABLES) | appendix  # the table rule is generated from TABLES
    assert re.search(r"^rule table:$", rules, re.M) and '"paper/generated/tab_{name}.tex"' in rules


def test_every_template_is_a_declared_section_and_main_inputs_the_text() -> None:
    from slmbench.paper import PLACES, SECTIONS

    main = _strip_comments((PAPER / "main.tex").read_text(encoding="utf-8"))
    rules = (ROOT / "code/rules/paper.smk").read_text(encoding="utf-8")
    sections = {f"{s.name}.tex.j2" for s in SECTIONS}
    shared = {p.name for p in TEMPLATES if p.name.startswith("_")}
    assert {p.name for p in TEMPLATES} == sections | shared
    for place in PLACES:
        assert f"\\input{{generated/text_{place}}}" in main, place
    assert (
        '(TOOL_DIR / "paper/templates").glob("*.tex.j2")' in rules
    )  # the text rule depends on every template
    assert "text=rules.paper_text.output" in rules  # and the pdf on the text
    assert "ifstudydata" not in main and "ifcsname" not in main.replace("\\ifcsname slmres@#1", "")


def test_main_defines_res_and_reads_the_generated_numbers() -> None:
    main = (PAPER / "main.tex").read_text(encoding="utf-8")
    assert (
        "\\newcommand{\\res}[1]{\\ifcsname slmres@#1\\endcsname"
        "\\href{\\slmsite/numbers/#1.html}{\\csname slmres@#1\\endcsname}"
        "\\else\\PackageError{slmbench}{undefined result #1}{}\\fi}"
    ) in main  # each result links to its page in the audit site (test_site checks the PDF's links)
    assert "\\providecommand{\\slmsite}{../site}" in main
    assert "\\input{generated/numbers}" in main


def test_every_citation_is_in_the_bibliography() -> None:
    bib = (PAPER / "references.bib").read_text(encoding="utf-8")
    entries = set(re.findall(r"^@\w+\{([^,]+),", bib, re.M))
    cited = {
        k.strip()
        for group in re.findall(r"\\cite[pt]?\*?\{([^}]*)\}", _all_sources())
        for k in group.split(",")
    }
    assert cited and not cited - entries, f"cited but not in references.bib: {sorted(cited - entries)}"
    required = {
        "wilson1927",
        "benjamini1995",
        "cohen1988",
        "newcombe1998",
        "yao2023react",
        "molder2021snakemake",
    }
    assert required | {"gerganov2023llamacpp", "karmacharya2026", "chen2021codex", "fisher1925"} <= entries
