"""A heatmap cell or a bar without a value says the condition was not run (not a blank cell, not "n/a")."""

import numpy as np
import pandas as pd

from slmbench.figures.plots import NOT_RUN, hbar_models, heatmap
from slmbench.figures.style import panels


def test_a_heatmap_cell_without_a_value_says_not_run() -> None:
    _, (ax,) = panels(1)
    grid = pd.DataFrame([[0.5, np.nan], [0.25, 1.0]], index=["a", "b"], columns=["x", "y"])
    heatmap(ax, grid)
    texts = [(t.get_text(), t.get_position()) for t in ax.texts]
    assert (NOT_RUN, (1.5, 0.5)) in texts and NOT_RUN == "not run"
    assert sum(t == NOT_RUN for t, _ in texts) == 1


def test_a_bar_without_a_value_says_not_run() -> None:
    _, (ax,) = panels(1)
    hbar_models(ax, ["a", "b"], [0.5, None], color="k", base=[False, False])
    assert [t.get_text() for t in ax.texts] == [NOT_RUN]
