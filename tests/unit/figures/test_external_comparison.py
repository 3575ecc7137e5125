"""One figure compares this study with the reproduced one; every other figure shows this study only."""

import matplotlib.pyplot as plt
import pytest
from tests.fixtures.figure_topics import MODELS, topic_docs

from slmbench.analysis.numbers import slug
from slmbench.figures import FIGURES
from slmbench.figures.registry import figure
from slmbench.figures.source import Source


def test_the_comparison_figure_draws_both_studies() -> None:
    assert "external_comparison" in FIGURES
    src = Source(topic_docs())
    plt.close(figure.get("external_comparison")(src))
    for m, _, _ in MODELS["slmbench"]:
        assert f"cap.acc.{slug(m)}" in src.plotted and f"rel.composite.{slug(m)}" in src.plotted
    for m, _, _ in MODELS["karmacharya2026"]:
        assert f"ext.acc.{slug(m)}" in src.plotted and f"ext.rel.composite.{slug(m)}" in src.plotted


@pytest.mark.parametrize("name", [f for f in FIGURES if f != "external_comparison"])
def test_every_other_figure_draws_this_study_only(name: str) -> None:
    src = Source(topic_docs())
    plt.close(figure.get(name)(src))
    assert not [k for k in src.plotted if k.startswith("ext.")], name
