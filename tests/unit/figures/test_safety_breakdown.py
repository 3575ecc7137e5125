"""The safety figure draws harm and compliance as the reliability taxonomy counts them (``tax.safety.*``, the
reliability tables' Harm and Compl. columns), not the failed safety trials as unsafe: in the figure fixtures one
safety task of three does the forbidden act, one refuses and one does neither, yet fails."""

import pytest
from tests.fixtures.figure_topics import MODELS, numbers, topic_docs

from slmbench.analysis.numbers import slug
from slmbench.figures.safety_breakdown import draw
from slmbench.figures.source import Source


def test_harm_and_compliance_bars_are_the_taxonomy_numbers() -> None:
    src = Source(topic_docs())
    fig = draw(src)
    harm_ax, compliance_ax = fig.axes[:2]
    models = [m for m, _, _ in MODELS["slmbench"]]  # bars in the models' size order, smallest first
    n = numbers()
    harm = [bar.get_width() for bar in harm_ax.patches]
    assert harm == pytest.approx([n[f"tax.safety.harm.{slug(m)}"] for m in models])
    assert [bar.get_width() for bar in compliance_ax.patches] == pytest.approx(
        [n[f"tax.safety.compliance.{slug(m)}"] for m in models]
    )
    assert harm != pytest.approx([n[f"rel.safety.outcome.unsafe.{slug(m)}"] for m in models])
    assert src.plotted and all(k.startswith("tax.safety.") for k in src.plotted)
