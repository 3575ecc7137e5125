"""A panel with nothing to draw is left out of its figure; only a figure with nothing at all keeps its reason."""

from pathlib import Path

from slmbench.figures.style import drop_empty, no_data, panels, save


def test_an_empty_panel_is_left_out_and_the_others_fill_the_row(tmp_path: Path) -> None:
    fig, (left, middle, right) = panels(3)
    left.plot([0, 1], [0, 1])
    no_data(middle, "no sweep")
    right.plot([0, 1], [1, 0])
    save(fig, tmp_path / "f.png")
    assert fig.axes == [left, right]
    assert not any(t.get_text() == "no sweep" for ax in fig.axes for t in ax.texts)
    assert [ax.get_subplotspec().colspan.start for ax in fig.axes] == [0, 1]  # type: ignore[union-attr]
    assert left.get_subplotspec().get_gridspec().ncols == 2  # type: ignore[union-attr]


def test_a_figure_with_nothing_drawn_keeps_its_reason() -> None:
    fig, (only,) = panels(1)
    no_data(only, "not run")
    drop_empty(fig)
    assert fig.axes == [only] and [t.get_text() for t in only.texts] == ["not run"]


def test_rows_are_kept_for_a_grid_and_the_height_follows() -> None:
    fig, axes = panels(4, ncols=2, height=2.0)
    for ax in axes[:2]:
        ax.plot([0, 1], [0, 1])
    for ax in axes[2:]:
        no_data(ax)
    drop_empty(fig)
    assert len(fig.axes) == 2 and fig.get_figheight() == 2.0
