"""Point labels of the scatter figures stay inside the figure, clear of each other and of the other points'
markers (today's Figures 1, 6, 8 and 15 had labels that collided or were clipped)."""

import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox
from tests.fixtures.figure_topics import topic_docs

from slmbench.figures.registry import figure
from slmbench.figures.source import Source

SCATTERS = (
    "accuracy_vs_params", "composite_vs_params", "capability_vs_reliability", "latency_vs_accuracy",
    "external_comparison",
)  # fmt: skip


@pytest.mark.parametrize("name", SCATTERS)
def test_labels_are_inside_the_figure_and_clear_of_each_other_and_of_markers(name: str) -> None:
    fig = figure.get(name)(Source(topic_docs()))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    canvas = Bbox.from_bounds(0, 0, fig.bbox.width, fig.bbox.height)
    for ax in fig.axes:
        labels = [t for t in ax.texts if isinstance(t, Annotation) and t.get_text()]
        boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the text, not its leader line
        for i, (label, box) in enumerate(zip(labels, boxes, strict=True)):
            assert canvas.containsx(box.x0) and canvas.containsx(box.x1), (
                f"{name}: {label.get_text()} clipped"
            )
            assert canvas.containsy(box.y0) and canvas.containsy(box.y1), (
                f"{name}: {label.get_text()} clipped"
            )
            assert not any(box.overlaps(b) for b in boxes[i + 1 :]), f"{name}: {label.get_text()} collides"
            own = ax.transData.transform(label.xy)
            for other in labels:
                x, y = ax.transData.transform(other.xy)
                if (x, y) != tuple(own):
                    marker = Bbox.from_extents(x - 3, y - 3, x + 3, y + 3)
                    assert not box.overlaps(marker), f"{name}: {label.get_text()} covers a point"
    plt.close(fig)
