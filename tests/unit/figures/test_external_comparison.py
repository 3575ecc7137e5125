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


def _legend(docs: dict) -> list[str]:  # type: ignore[type-arg]
    fig = figure.get("external_comparison")(Source(docs))
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    plt.close(fig)
    return labels


def test_the_legend_explains_the_base_models_style_only_where_one_is_drawn() -> None:
    docs = topic_docs()
    assert "base model" in _legend(docs)
    for row in docs["capability"]["tables"]["models"]:
        row["is_base"] = False  # a study without a base model
    assert "base model" not in _legend(docs)
