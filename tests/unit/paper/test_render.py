"""The renderer: results, figures and tables go through helpers that refuse what the study does not hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.paper.facts import StudyFacts
from slmbench.paper.model_facts import ModelFacts
from slmbench.paper.render import Renderer, RenderError, names, tex, words
from slmbench.paper.results import Results, UndefinedResultError

SMOL = ModelFacts("smollm2-135m", "smollm2-135m", 0.135, True, "llamacpp", True)
GEMMA = ModelFacts("gemma3-270m", "gemma3-270m", 0.27, False, "llamacpp", True)


def facts(ran: frozenset[str] = frozenset({"capability"})) -> StudyFacts:
    return StudyFacts(
        models=(SMOL, GEMMA),
        suites=("capability",),
        protocol="full",
        scaffold="native",
        parser_mode="repaired",
        temperatures=(0.0,),
        repeats=1,
        primary_build=None,
        planned=frozenset({"capability", "reliability"}),
        ran=ran,  # type: ignore[arg-type]
    )


def renderer(tmp_path: Path, template: str, **kw: object) -> Renderer:
    (tmp_path / "t.tex.j2").write_text(template, encoding="utf-8")
    values = {
        "cap.acc.smollm2-135m": "3.2\\%",
        "cap.acc.gemma3-270m": "n/a",
        "fail.share.x.smollm2-135m": "81.0\\%",
    }
    return Renderer(
        facts=kw.get("facts", facts()),  # type: ignore[arg-type]
        results=Results(values),
        templates=tmp_path,
        figure_parts={"accuracy_vs_params": ("capability",), "reliability_bars": ("reliability",)},
        figures=frozenset({"accuracy_vs_params", "reliability_bars", "unlisted"}),
        tables=frozenset({"capability"}),
    )


def test_text_helpers() -> None:
    assert tex("Q3_K_M & 5%") == "Q3\\_K\\_M \\& 5\\%"
    assert [words(n) for n in (0, 3, 12, 40)] == ["no", "three", "twelve", "40"]
    assert names(["a"]) == "a" and names(["a", "b"]) == "a and b" and names(["a", "b", "c"]) == "a, b and c"


def test_line_statements_leave_no_line_and_blank_lines_stay(tmp_path: Path) -> None:
    template = "First.\n%% if facts.has('capability')\nRan.\n%% endif\n\nNext paragraph.\n"
    assert renderer(tmp_path, template).render("t.tex.j2") == "First.\nRan.\n\nNext paragraph.\n"


def test_models_and_results_come_from_the_study(tmp_path: Path) -> None:
    template = (
        "%% for m in facts.models|with_key('cap.acc')\n"
        "((( m.name|tex ))) ((( res('cap.acc.' ~ m.slug) )))\n"
        "%% endfor\n"
        "((( facts.models|at_least('fail.share.x', 50)|map(attribute='name')|names )))\n"
        "((( facts.models|above('cap.acc')|map(attribute='name')|names )))"
        "((( facts.models|above('cap.acc', 3.2)|length )))\n"
    )
    out = renderer(tmp_path, template).render("t.tex.j2")
    assert out == "smollm2-135m \\res{cap.acc.smollm2-135m}\nsmollm2-135m\nsmollm2-135m0\n"


def test_an_undefined_result_fails_the_render(tmp_path: Path) -> None:
    with pytest.raises(UndefinedResultError, match="cap.acc.gemma3-270m"):
        renderer(tmp_path, "((( res('cap.acc.gemma3-270m') )))").render("t.tex.j2")


def test_an_undefined_name_fails_the_render(tmp_path: Path) -> None:
    import jinja2

    with pytest.raises(jinja2.UndefinedError):
        renderer(tmp_path, "((( n_models )))").render("t.tex.j2")


def test_a_figure_of_a_part_that_ran_is_included(tmp_path: Path) -> None:
    r = renderer(tmp_path, "((( figure('accuracy_vs_params', 'Accuracy.') )))")
    out = r.render("t.tex.j2")
    assert "\\includegraphics[width=\\figw]{../figures/fig_accuracy_vs_params.pdf}" in out
    assert "\\label{fig:accuracy_vs_params}" in out and r.included == ["accuracy_vs_params"]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("reliability_bars", "needs reliability"),
        ("unlisted", "not declared"),
        ("no_such_figure", "not registered"),
    ],
)
def test_a_figure_without_data_or_registration_fails(tmp_path: Path, name: str, why: str) -> None:
    r = renderer(tmp_path, f"((( figure('{name}', 'x') )))")
    with pytest.raises(RenderError, match=why):
        r.render("t.tex.j2")
    assert not r.has_figure(name)


def test_a_figure_that_places_models_against_one_another_needs_two_models(tmp_path: Path) -> None:
    """A study of one model has no accuracy-against-size figure: ``has_figure`` says so and ``figure`` refuses it;
    with two models both include it."""
    one = StudyFacts(**{**facts().__dict__, "models": (SMOL,)})
    template = "((( has_figure('accuracy_vs_params') )))"
    for study, shown in ((facts(), "True"), (one, "False")):
        r = renderer(tmp_path, template, facts=study)
        r.across_models = frozenset({"accuracy_vs_params"})
        assert r.render("t.tex.j2") == shown
    r = renderer(tmp_path, "((( figure('accuracy_vs_params', 'x') )))", facts=one)
    r.across_models = frozenset({"accuracy_vs_params"})
    with pytest.raises(RenderError, match="places models against one another; this study has one model"):
        r.render("t.tex.j2")


def test_tables_are_those_the_pipeline_writes(tmp_path: Path) -> None:
    assert (
        renderer(tmp_path, "((( table('capability') )))").render("t.tex.j2")
        == "\\input{generated/tab_capability}\n"
    )
    with pytest.raises(RenderError, match="reliability"):
        renderer(tmp_path, "((( table('reliability') )))").render("t.tex.j2")


def test_an_unknown_part_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="unknown part"):
        renderer(tmp_path, "((( facts.has('protocl') )))").render("t.tex.j2")


def test_matching_lists_the_defined_keys_of_a_pattern(tmp_path: Path) -> None:
    out = renderer(tmp_path, "((( matching('cap\\\\.acc\\\\.([a-z0-9-]+)')|join(',') )))").render("t.tex.j2")
    assert out == "smollm2-135m"  # gemma3-270m's value is undefined


def test_a_reference_to_a_figure_left_out_fails(tmp_path: Path) -> None:
    r = renderer(tmp_path, "((( figure('accuracy_vs_params', 'A.') )))((( table('capability') )))")
    text = r.render("t.tex.j2")
    r.check_references(text + "Figure~\\ref{fig:accuracy_vs_params}, Table~\\ref{tab:capability}.")
    with pytest.raises(RenderError, match="fig:reliability_bars"):
        r.check_references(text + "Figure~\\ref{fig:reliability_bars}")


def test_the_strict_parser_finding_names_the_models_whose_calls_it_counts(tmp_path: Path) -> None:
    """Only smollm2-135m has accepted calls (gemma3-270m's share of refused calls is undefined): the title and the
    sentence name it and say the other wrote none, instead of speaking of "these models"."""
    templates = Path(__file__).resolve().parents[3] / "paper" / "templates"
    (tmp_path / "_macros.tex.j2").write_text((templates / "_macros.tex.j2").read_text(encoding="utf-8"))
    template = '%% import "_macros.tex.j2" as mac\n((( mac.callers_title() )))|((( mac.callers() )))\n'
    (tmp_path / "t.tex.j2").write_text(template, encoding="utf-8")
    values = {
        "boundary.strict.lost": "100.0\\%", "boundary.strict.lost.n": "12", "boundary.strict.trials-all-lost.n": "5",
        "boundary.strict.lost.smollm2-135m": "100.0\\%", "boundary.strict.lost.smollm2-135m.n": "12",
        "boundary.strict.lost.gemma3-270m": "n/a",
    }  # fmt: skip
    r = Renderer(facts(), Results(values), tmp_path, {}, frozenset(), frozenset())
    title, sentence = r.render("t.tex.j2").strip().split("|")
    assert title == "smollm2-135m"
    assert sentence == (
        "smollm2-135m wrote the \\res{boundary.strict.lost.n} calls the harness accepted, in "
        "\\res{boundary.strict.trials-all-lost.n} trials; gemma3-270m wrote none"
    )
