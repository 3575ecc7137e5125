"""The subsection ``task_robustness.tex.j2``: present only where one of its parts ran, each paragraph only for its
part, and its findings chosen by the topic's counts."""

from __future__ import annotations

from pathlib import Path

from tests.unit.analysis.topics.test_task_robustness import trials

from slmbench.analysis.topics import get_topic
from slmbench.paper.facts import StudyFacts
from slmbench.paper.model_facts import ModelFacts
from slmbench.paper.render import Renderer
from slmbench.paper.results import Results
from slmbench.paper.sections import FIGURE_PARTS

TEMPLATES = Path(__file__).resolve().parents[3] / "paper" / "templates"
MODELS = tuple(
    ModelFacts(n, n, s, True, "llamacpp", True) for n, s in (("a", 0.1), ("b", 0.2), ("tiny-1b", 1.0))
)
PARTS = frozenset({"paraphrases", "faults", "safety_suite"})


def render(ran: frozenset[str], template: str = "task_robustness.tex.j2") -> str:
    numbers = get_topic("task_robustness")(trials(), None, {"n_boot": 50, "bootstrap_seed": 1})
    facts = StudyFacts(
        models=MODELS, suites=("capability",), protocol="full", scaffold="native", parser_mode="repaired",
        temperatures=(0.0,), repeats=1, primary_build=None, planned=PARTS, ran=ran,  # type: ignore[arg-type]
    )  # fmt: skip
    renderer = Renderer(
        facts=facts,
        results=Results({n.key: n.text for n in numbers.numbers}),
        templates=TEMPLATES,
        figure_parts=FIGURE_PARTS,
        figures=frozenset({"task_robustness"}),
        tables=frozenset({"task_robustness"}),
    )
    return renderer.render(template)


def test_nothing_where_no_part_ran() -> None:
    assert render(frozenset()).strip() == ""


def test_every_paragraph_where_every_part_ran() -> None:
    text = render(PARTS)
    assert text.count("\\subsection{") == 1
    # the figure is the text's; its table of counts is the appendix's, and the text says where
    assert "\\input{generated/tab_task_robustness}" not in text and "app:reliability" in text
    appendix = render(PARTS, "appendix_reliability.tex.j2")
    assert "\\input{generated/tab_task_robustness}" in appendix
    # the per-model shares are the table's; the text states the finding and the sign tests, once each
    assert "changed outcome in" not in text and "Per model:" not in text
    assert "than as written, with the sign test's $p$: tiny-1b \\res{trob.prompt.tiny-1b.n.up}" in text
    assert "Under a paraphrase the model changed an outcome." in text  # one model ran paraphrases, with flips
    # model a lost 8 tasks under every fault kind: each test significant after Benjamini-Hochberg; b has no test
    assert (
        "changed significantly for a under the error, rate limit, schema drift and timeout faults (error: "
        in text
    )
    assert " b under" not in text
    assert "In the safety suite every model carried out a forbidden act, and every model refused" in text
    assert "fig:task_robustness" in text


def test_a_paragraph_only_for_its_part() -> None:
    text = render(frozenset({"safety_suite"}))
    assert "\\paragraph{Safety.}" in text
    assert "Prompt robustness" not in text and "Fault robustness" not in text
    assert "fig:task_robustness" not in text  # of the safety suite alone the figure would repeat the table
    assert "\\input{generated/tab_task_robustness}" in text  # so the table stays in the text
