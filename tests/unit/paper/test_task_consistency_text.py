"""The subsection on consistency and predictability on every task: rendered from the topic's numbers where the
samples ran, and nothing at all where they did not."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.analysis.topics.test_task_consistency import PARAMS, study

from slmbench.analysis.topics import get_topic
from slmbench.paper.facts import StudyFacts
from slmbench.paper.model_facts import ModelFacts
from slmbench.paper.render import Renderer
from slmbench.paper.results import Results
from slmbench.paper.sections import FIGURE_PARTS

TEMPLATES = Path(__file__).resolve().parents[3] / "paper" / "templates"
QA = ModelFacts("qa", "qa", 0.5, True, "llamacpp", True)
QB = ModelFacts("qb", "qb", 1.5, True, "llamacpp", True)


def facts(ran: frozenset[str]) -> StudyFacts:
    return StudyFacts(
        models=(QA, QB), suites=("capability",), protocol="full", scaffold="native", parser_mode="repaired",
        temperatures=(0.0,), repeats=1, primary_build=None, planned=frozenset({"capability", "sampling"}),
        ran=ran,  # type: ignore[arg-type]
    )  # fmt: skip


def numbers(samples: bool = True) -> dict[str, str]:
    res = get_topic("task_consistency")(study(samples=samples), None, PARAMS)
    return {n.key: n.text for n in res.numbers}


def render(ran: frozenset[str], samples: bool, template: str = "task_consistency.tex.j2") -> str:
    r = Renderer(
        facts=facts(ran),
        results=Results(numbers(samples)),
        templates=TEMPLATES,
        figure_parts=FIGURE_PARTS,
        figures=frozenset(FIGURE_PARTS),
        tables=frozenset({"task_consistency"}),
    )
    return r.render(template)


def test_the_subsection_states_each_models_numbers() -> None:
    """Each number by its key (the render fails on a key the topic did not define), each finding once across the
    models, and the sentences chosen by the numbers: qa has a task left out, qb has no samples and, having passed no primary trial, an AUROC given
    in words in the appendix, which holds every model's calibration over the primary trials."""
    text = render(frozenset({"capability", "sampling"}), samples=True)
    values = numbers()
    assert text.lstrip().startswith("\\subsection{Consistency and predictability on every capability task}")
    assert "(mixed outcomes): \\res{tcons.mixed.qa.k} of \\res{tcons.n.tasks.qa} for qa." in text
    assert "(pass$^1$): \\res{tcons.pass-hat-k.qa} against \\res{tcons.pass-hat.1.qa} for qa" in text
    assert (
        "Over the samples of qa, \\res{tcons.cal.samples.qa.discrimination}; Table~\\ref{tab:task_consistency} gives"
        in text
    )
    assert (
        "\\res{tcons.pass-hat-k.qa.lo}" not in text and "\\res{tcons.cal.samples.qa.brier}" not in text
    )  # the table's
    assert "Tasks with fewer scored samples are left out: \\res{tcons.n.short.qa} of qa." in text
    assert "qb has no samples" in text and "Appendix~\\ref{app:reliability}" in text
    assert "tcons.cal.primary" not in text  # the primary trials' calibration is the appendix's
    appendix = render(
        frozenset({"capability", "sampling"}), samples=True, template="appendix_reliability.tex.j2"
    )
    assert (
        "\\res{tcons.cal.primary.qb.auroc.text}" in appendix and "\\res{tcons.cal.primary.qa.n}" in appendix
    )
    assert values["tcons.cal.primary.qb.auroc.text"].startswith("undefined: none of the 10 trials passed")
    assert "\\res{tcons.cal.primary.qb.auroc}" not in appendix  # never the bare n/a
    assert "\\input{generated/tab_task_consistency}" in text and "fig_task_consistency" in text


@pytest.mark.parametrize(("ran", "samples"), [({"capability"}, True), ({"capability", "sampling"}, False)])
def test_without_the_samples_the_subsection_says_nothing(ran: set[str], samples: bool) -> None:
    assert render(frozenset(ran), samples).strip() == ""
