"""Where each section goes: a body section that the paper covers more fully elsewhere moves to the appendix (before
the appendix section it names), and stays in the body of a study that lacks the fuller account; the main text
refers to a section by its place, and a reference to a section left out fails the render; a study draws the figures
its text can include."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.analysis.topics import study_topics
from slmbench.config import load_config
from slmbench.figures.registry import study_figures
from slmbench.paper import SECTIONS, Renderer, RenderError, Results, StudyFacts
from slmbench.paper.model_facts import ModelFacts
from slmbench.paper.sections import (
    ACROSS_MODELS,
    FIGURE_PARTS,
    MAIN_TEXT_PAGES,
    drawn_figures,
    placements,
    render_paper,
)

TEMPLATES = Path(__file__).resolve().parents[3] / "paper" / "templates"
MODELS = (
    ModelFacts("qa", "qa", 0.5, True, "llamacpp", True),
    ModelFacts("qb", "qb", 1.5, True, "llamacpp", True),
)
CALLS = Results({"boundary.n.calls": "12"})


def facts(*ran: str) -> StudyFacts:
    return StudyFacts(
        models=MODELS, suites=("capability", "reliability"), protocol="full", scaffold="native",
        parser_mode="repaired", temperatures=(0.0,), repeats=1, primary_build=None,
        planned=frozenset(ran), ran=frozenset(ran),  # type: ignore[arg-type]
    )  # fmt: skip


def test_a_moving_section_names_an_appendix_section_to_go_before_and_sections_that_apply() -> None:
    names = {s.name: s for s in SECTIONS}
    assert 1 <= MAIN_TEXT_PAGES <= 12
    for section in SECTIONS:
        if section.moves is not None:
            assert section.place == "body" and names[section.moves.before].place == "appendix", section.name
            assert set(section.moves.beside) <= set(names), section.name


def test_beside_their_fuller_accounts_the_mirrors_go_to_the_appendix() -> None:
    """The study of the paper: the protocol study, capability and reliability on every task in the body; the
    further harness comparisons, the strict-parser replay and the published study's reliability suite in the
    appendix."""
    placed = placements(
        facts("capability", "reliability", "protocol", "legacy", "scaffold", "sampling"), CALLS
    )
    body = [name for name, place in placed.items() if place == "body"]
    assert body == [
        "introduction", "design", "protocol", "capability", "task_reliability", "task_consistency", "limits",
        "conclusion",
    ]  # fmt: skip
    assert {placed[n] for n in ("comparisons", "boundary", "reliability")} == {"appendix"}


def test_without_the_fuller_account_a_section_stays_in_the_body() -> None:
    """A study of the reliability suite alone, of one file in-process and served, of capability without the
    protocol study: each keeps its own findings in the main text."""
    assert placements(facts("reliability"), CALLS)["reliability"] == "body"
    assert placements(facts("reliability"), CALLS)["boundary"] == "body"  # no capability section to state it
    assert placements(facts("capability", "twins"), CALLS)["comparisons"] == "body"
    assert placements(facts("capability", "reliability"), CALLS)["reliability"] == "body"


def renderer(study: StudyFacts) -> Renderer:
    return Renderer(
        facts=study, results=CALLS, templates=TEMPLATES, figure_parts=FIGURE_PARTS, figures=frozenset(),
        tables=frozenset(),
    )  # fmt: skip


def test_the_text_names_a_section_by_its_place_and_never_one_left_out() -> None:
    r = renderer(facts("capability", "reliability", "sampling"))
    r.places = placements(r.facts, r.results)
    assert r.see("reliability") == "Appendix~\\ref{sec:reliability}"
    assert r.see("task_reliability") == "Section~\\ref{sec:task_reliability}"
    with pytest.raises(RenderError, match="eligibility"):
        r.see("eligibility")


def test_moved_sections_are_rendered_in_the_appendix_before_the_section_they_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order of the appendix: each moved section just before its ``before``, the others as declared."""
    r = renderer(facts("capability", "reliability", "protocol", "legacy", "scaffold", "sampling"))
    monkeypatch.setattr(Renderer, "render", lambda self, name: f"\\section{{{name}}}\n")
    monkeypatch.setattr(Renderer, "check_references", lambda self, text: None)
    render_paper(r, tmp_path)
    appendix = (tmp_path / "text_appendix.tex").read_text()
    order = [
        line[len("\\section{") : -len(".tex.j2}")]
        for line in appendix.splitlines()
        if line.startswith("\\section")
    ]
    assert order.index("comparisons") + 1 == order.index("appendix_comparisons")
    assert order.index("boundary") + 1 == order.index("reliability")
    assert order.index("reliability") + 1 == order.index("appendix_reliability")
    assert "\\section{comparisons" not in (tmp_path / "text_body.tex").read_text()


def test_a_study_draws_the_figures_its_text_can_include_and_none_of_a_part_it_does_not_plan() -> None:
    root = Path(__file__).resolve().parents[3]
    shipped = load_config(root / "config.yaml")
    assert set(drawn_figures(shipped)) == set(
        study_figures(study_topics(shipped.parts()))
    )  # it plans every part
    one_model = load_config(root / "tests/integration/smoke_config.yaml")  # one model, the capability suite
    drawn = drawn_figures(one_model)
    assert set(drawn) == {n for n, parts in FIGURE_PARTS.items() if parts == ("capability",)} - ACROSS_MODELS
    two = one_model.model_copy(
        update={"models": {**one_model.models, "other": one_model.models["smollm2-135m"]}}
    )
    assert set(drawn_figures(two)) == set(drawn) | ACROSS_MODELS
