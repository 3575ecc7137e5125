"""Every figure draws only what the analysis topics computed, writes the values it plotted, and renders; the
LaTeX tables and the CLI."""

from __future__ import annotations

import ast
import importlib
import json
import math
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from click.testing import CliRunner
from matplotlib.text import Text
from tests.fixtures.figure_topics import MODELS, numbers, study_trials, topic_docs, write_topics

from slmbench.analysis.numbers import slug
from slmbench.figures import FIGURE_TOPICS, FIGURES, TABLES, Source, draw_figure, render_table, values_path
from slmbench.figures.cli import figure, table
from slmbench.figures.registry import figure as registered
from slmbench.figures.style import MIN_TEXT_PT, PRINT_WIDTH, drop_empty
from slmbench.vocab import DIMENSIONS

FIGURE_DIR = Path(__file__).parents[3] / "code/slmbench/figures"
OURS = [m for m, _, _ in MODELS["slmbench"]]


@pytest.fixture(scope="module")
def topics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every topic a figure reads, written as the pipeline writes them."""
    return write_topics(tmp_path_factory.mktemp("topics"))


def _same(a: object, b: object) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_renders_and_plots_only_topic_numbers(
    name: str, topics: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / f"fig_{name}.png"
    plotted = draw_figure(name, topics, out)
    assert out.read_bytes().startswith(b"\x89PNG") and out.stat().st_size > 5000
    written = json.loads(values_path(out).read_text())
    assert written and written == pytest.approx(plotted)
    nums = numbers()
    assert set(written) <= set(nums), sorted(set(written) - set(nums))[:5]
    assert all(_same(v, nums[k]) for k, v in written.items())
    assert set(FIGURE_TOPICS[name]) <= set(topics)


@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_prints_no_text_smaller_than_the_smallest_size(
    name: str, topics: dict[str, Path]
) -> None:
    """Scaled from the width it is drawn at to the width the paper prints it at (``style.PRINT_WIDTH``, main.tex's
    ``\\figw``; the PDF build checks that they agree), every text of the figure (titles, labels, ticks, legends,
    annotations) is ``style.MIN_TEXT_PT`` or more."""
    fig = registered.get(name)(Source.load({t: topics[t] for t in FIGURE_TOPICS[name] if t in topics}))
    drop_empty(fig)
    scale = PRINT_WIDTH / fig.get_figwidth()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    small = sorted(
        {
            (round(t.get_fontsize() * scale, 2), t.get_text()[:40])
            for t in texts
            if t.get_fontsize() * scale < MIN_TEXT_PT
        }
    )
    plt.close(fig)
    assert texts and small == [], f"{name}: text below {MIN_TEXT_PT} pt on the page: {small[:5]}"


def test_composite_drawn_is_the_reliability_topics_not_a_pool_with_unperturbed_runs(
    topics: dict[str, Path],
) -> None:
    """The bars of fig_composite_reliability are ``rel.composite.<m>``: the mean of the dimension rates over
    perturbed and faulted runs only. Pooling the unperturbed runs in (as a figure computing its own rates did)
    gives other values for these data."""
    from slmbench.figures import composite_reliability

    src = Source.load(topics)
    fig = composite_reliability.draw(src)
    ours = fig.axes[0]
    widths = [bar.get_width() for bar in ours.patches]
    expected = [numbers()[f"rel.composite.{slug(m)}"] for m in OURS]  # bars in the models' size order
    assert widths == pytest.approx(expected)
    assert {f"rel.composite.{slug(m)}" for m in OURS} <= set(src.plotted)
    df = study_trials()
    rel = df[(df["study"] == "slmbench") & (df["suite"] == "reliability") & (df["outcome"] != "infra_error")]
    pooled = [
        rel[rel["model"] == m].groupby("dimension")["passed"].mean().reindex(DIMENSIONS).mean() for m in OURS
    ]
    assert any(abs(p - e) > 0.05 for p, e in zip(pooled, expected, strict=True))


def test_dimension_bars_count_tasks_not_the_identical_repeats_of_a_task(tmp_path: Path) -> None:
    """With each consistency task of ours run three times at T = 0 on one build, identically, the figure of
    dimension pass rates draws the same bars as with each task once, and its error bars are Wilson intervals over
    the three tasks (n = 3), not over nine trials."""
    import pandas as pd
    from scipy.stats import binomtest

    from slmbench.analysis.io import topic_document
    from slmbench.analysis.topics import get_topic
    from slmbench.records.atomic import dump_json

    df = study_trials().assign(build="b1")
    cons = df[(df["study"] == "slmbench") & (df["dimension"] == "consistency")]
    copies = [cons.assign(repeat=r, trial_id=cons["trial_id"] + f"r{r}") for r in (1, 2)]
    tripled = pd.concat([df, *copies], ignore_index=True)
    paths = {}
    for topic in ("capability", "reliability"):
        doc = topic_document(
            topic, get_topic(topic)(tripled, None, {"bootstrap_seed": 3, "n_boot": 50}), {}, tripled
        )
        paths[topic] = tmp_path / f"{topic}.json"
        paths[topic].write_text(dump_json(doc))
    plotted = draw_figure("reliability_dimensions", paths, tmp_path / "fig.png")
    once = numbers()
    doc = {n["key"]: n["value"] for n in json.loads(paths["reliability"].read_text())["numbers"]}
    for model in OURS:
        key = f"rel.consistency.{slug(model)}"
        assert plotted[key] == pytest.approx(once[key])
        assert doc[f"{key}.n"] == 3
        rows = cons[(cons["model"] == model) & (cons["outcome"] != "infra_error")]
        ci = binomtest(int(rows["passed"].sum()), len(rows)).proportion_ci(method="wilson")
        assert (plotted[f"{key}.lo"], plotted[f"{key}.hi"]) == pytest.approx((ci.low, ci.high))


def test_capability_drawn_is_the_headline_temperature_not_the_pooled_sweep(topics: dict[str, Path]) -> None:
    from slmbench.figures import accuracy_vs_params

    src = Source.load(topics)
    fig = accuracy_vs_params.draw(src)
    drawn = sorted(
        y for line in fig.axes[0].lines for y in line.get_ydata() if line.get_marker() in ("o", "s")
    )
    expected = sorted(numbers()[f"cap.acc.{slug(m)}"] for m in OURS)
    assert drawn == pytest.approx(expected)
    df = study_trials()
    cap = df[(df["study"] == "slmbench") & (df["suite"] == "capability") & (df["outcome"] != "infra_error")]
    pooled = sorted(cap.groupby("model")["passed"].mean())
    assert drawn != pytest.approx(pooled)  # the sweep at T=0.7 is not mixed in


def test_a_figure_without_its_topics_says_so_and_plots_nothing(tmp_path: Path) -> None:
    captured: list[str] = []
    orig = plt.Figure.savefig

    def spy(fig: plt.Figure, *args: object, **kwargs: object) -> None:
        captured.extend(t.get_text() for ax in fig.axes for t in ax.texts)
        orig(fig, *args, **kwargs)

    plt.Figure.savefig = spy  # type: ignore[method-assign]
    try:
        assert draw_figure("reliability_bars", {}, tmp_path / "r.pdf") == {}
    finally:
        plt.Figure.savefig = orig  # type: ignore[method-assign]
    assert captured == ["no reliability trials"]  # this study's panel only
    assert json.loads(values_path(tmp_path / "r.pdf").read_text()) == {}


FORBIDDEN_CALLS = {"read_parquet", "read_csv", "mean", "median", "std", "var", "quantile", "value_counts", "crosstab",
                   "proportion_confint", "confint_proportions_2indep", "wilson_interval", "newcombe_diff"}  # fmt: skip
FORBIDDEN_IMPORTS = ("scipy", "statsmodels", "slmbench.analysis.stats", "slmbench.analysis.topics.common")


@pytest.mark.parametrize("path", sorted(FIGURE_DIR.glob("*.py")), ids=lambda p: p.stem)
def test_figure_code_reads_no_trials_and_computes_no_statistic(path: Path) -> None:
    if path.stem in ("appendix", "tables", "table_specs", "tables_grid", "cli"):
        pytest.skip("not figure code (tables print topic text; the appendix prints raw records)")
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert node.attr not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno}: .{node.attr}"
        if isinstance(node, ast.Name | ast.arg):
            name = node.id if isinstance(node, ast.Name) else node.arg
            assert "trials" not in name, f"{path.name}:{node.lineno}: {name}"
        if isinstance(node, ast.ImportFrom | ast.Import):
            mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            assert not any(m.startswith(FORBIDDEN_IMPORTS) for m in mods), (
                f"{path.name}:{node.lineno}: {mods}"
            )
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert "trials.parquet" not in node.value, f"{path.name}:{node.lineno}"


def test_every_figure_has_a_module_and_declared_topics() -> None:
    assert len(FIGURES) >= 16
    assert all((FIGURE_DIR / f"{n}.py").exists() for n in FIGURES)
    assert set(topic_docs()) >= {t for ts in FIGURE_TOPICS.values() for t in ts}


@pytest.mark.parametrize("name", ["accuracy_vs_params", "perturbation_heatmap", "latency_vs_accuracy"])
def test_figure_bytes_are_deterministic(name: str, topics: dict[str, Path], tmp_path: Path) -> None:
    draw_figure(name, topics, tmp_path / "a.pdf")
    draw_figure(name, topics, tmp_path / "b.pdf")
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_outputs_are_world_readable(topics: dict[str, Path], tmp_path: Path) -> None:
    draw_figure("reliability_bars", topics, tmp_path / "f.pdf")
    assert (tmp_path / "f.pdf").stat().st_mode & 0o777 == 0o644
    assert values_path(tmp_path / "f.pdf").stat().st_mode & 0o777 == 0o644


def test_every_figure_is_the_same_width(topics: dict[str, Path], tmp_path: Path) -> None:
    """The paper scales each figure to the text width: one width gives every figure the same font size."""
    from slmbench.figures.style import FIG_WIDTH

    widths = set()
    for name in FIGURES:
        fig = importlib.import_module(f"slmbench.figures.{name}").draw(Source.load(topics))
        widths.add(round(fig.get_figwidth(), 3))
        plt.close(fig)
    assert widths == {FIG_WIDTH}


def test_scatter_labels_do_not_overlap(topics: dict[str, Path]) -> None:
    from matplotlib.text import Text

    for name in (
        "accuracy_vs_params",
        "latency_vs_accuracy",
        "capability_vs_reliability",
        "composite_vs_params",
    ):
        fig = importlib.import_module(f"slmbench.figures.{name}").draw(Source.load(topics))
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        for ax in fig.axes:
            boxes = [Text.get_window_extent(t, renderer) for t in ax.texts if t.get_text()]
            for i, a in enumerate(boxes):
                assert not any(a.overlaps(b) for b in boxes[i + 1 :]), f"{name}: labels overlap"
        plt.close(fig)


def test_cli_figure_and_table(topics: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "figs" / "fig_radar.pdf"
    args = ["radar", *(f"--topic={topics[t]}" for t in FIGURE_TOPICS["radar"]), "--out", str(out)]
    res = runner.invoke(figure, [*args, "--values", str(tmp_path / "v.json")])
    assert res.exit_code == 0, res.output
    assert out.read_bytes().startswith(b"%PDF") and json.loads((tmp_path / "v.json").read_text())
    res = runner.invoke(
        figure, ["radar", "--analysis-dir", str(topics["capability"].parent), "--out", str(out)]
    )
    assert res.exit_code == 0 and json.loads(values_path(out).read_text())
    bad = runner.invoke(figure, ["nope", "--out", str(out)])
    assert bad.exit_code != 0 and "known figures: accuracy_vs_params" in bad.output
    (tmp_path / "ext.json").write_text(
        json.dumps({"topic": "external", "numbers": [_num("ext.acc.m", "1.0\\%")]})
    )
    tab = tmp_path / "gen" / "tab_external.tex"
    res = runner.invoke(table, ["external", "--analysis", str(tmp_path / "ext.json"), "--out", str(tab)])
    assert res.exit_code == 0, res.output
    assert "m & -- & -- & 1.0\\%" in tab.read_text()
    bad = runner.invoke(table, ["nope", "--analysis", str(tmp_path / "ext.json"), "--out", str(tab)])
    assert bad.exit_code != 0 and "known tables: capability" in bad.output


def _num(key: str, text: str, model: str | None = None) -> dict:
    prov = {"selection": {"model": model}} if model else {}
    return {"key": key, "value": 0.5, "text": text, "provenance": prov}


def test_capability_table_is_booktabs_marks_base_and_escapes() -> None:
    topic = {"topic": "capability", "tables": {}, "numbers": [
        _num("cap.acc.smollm2-135m", "50.0\\%", "smollm2_135m"), _num("cap.acc.smollm2-135m.lo", "30.0\\%"),
        _num("cap.acc.smollm2-135m.hi", "70.0\\%"), _num("cap.acc.smollm2-135m.k", "5"),
        _num("cap.acc.gemma3-270m", "0.0\\%"), _num("cap.base.gemma3-270m", "yes")],
        "labels": {"smollm2-135m": "smollm2_135m"}}  # fmt: skip
    tex = render_table("capability", topic)
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "smollm2\\_135m & 5 & -- & 50.0\\% & [30.0\\%, 70.0\\%]" in tex
    assert "gemma3-270m\\textsuperscript{b}" in tex
    assert tex.index("gemma3-270m") < tex.index("smollm2")


def test_table_without_models_says_no_data_and_wrong_topic_fails() -> None:
    assert "no data" in render_table("reliability", {"topic": "reliability", "numbers": []})
    with pytest.raises(ValueError, match="reads topic 'external'"):
        render_table("external", {"topic": "capability", "numbers": []})
    assert {"capability", "reliability", "external"} <= set(TABLES)


def test_table_rows_are_models_not_pooled_values_or_interval_ends() -> None:
    numbers = [
        _num("rel.composite.qwen2-5-1-5b", "51.3\\%", "qwen2.5-1.5b"),
        _num("rel.composite.mean", "30.7\\%"),
        _num("rel.composite.mean.lo", "8.3\\%"),
        _num("rel.safety.qwen2-5-1-5b.lo", "8.3\\%"),
    ]
    topic = {"topic": "reliability", "numbers": numbers, "labels": {"qwen2-5-1-5b": "qwen2.5-1.5b"}}
    body = render_table("reliability", topic).split("\\midrule")[1]
    rows = [line for line in body.splitlines() if line.endswith("\\\\")]
    assert rows == ["qwen2.5-1.5b & -- & -- & -- & -- & 51.3\\% & -- \\\\"]
