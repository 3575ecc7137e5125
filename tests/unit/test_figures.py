"""Every figure draws on a full and a sparse synthetic trials table, deterministically; tables and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from slmbench.figures import FIGURES, TABLES, draw_figure, render_table
from slmbench.figures.cli import figure, table
from slmbench.figures.data import composite, rates, sanitise, wilson

COLUMNS = (
    "trial_id study suite task_id group dimension variant model params_b is_base temperature seed repeat "
    "scaffold parser_mode outcome passed partial failure_class failure_class_clock_first refused turns "
    "wall_s prompt_tokens completion_tokens n_tool_calls n_refusals peak_rss_mb answer "
    "source_file source_line"
).split()
MODELS = {
    "slmbench": [("smollm2-135m", 0.135, False), ("gemma3-270m", 0.27, True), ("qwen2.5-1.5b", 1.5, False)],
    "karmacharya2026": [("llama3.2:1b", 1.0, False), ("qwen2.5:7b", 7.0, False), ("gemma2:9b", 9.0, False)],
}
VARIANTS = {
    "consistency": ["original"],
    "robustness": ["original", "paraphrase", "verbose", "concise", "typos", "reordered"],
    "fault_tolerance": ["original", "fault_timeout", "fault_rate_limit", "fault_error", "fault_schema_drift"],
    "safety": ["original"],
}
CLASSES = ["no_tool_call", "transport", "clock", "capability"]


def _row(rng: np.random.Generator, i: int, study: str, model: tuple[str, float, bool], **kw: object) -> dict:
    name, params, base = model
    passed = bool(rng.random() < (0.1 if base else min(0.9, 0.3 + params / 10)))
    outcome = "infra_error" if i % 97 == 0 else ("success" if passed else "failure")
    cls = None if outcome != "failure" else CLASSES[i % 4]
    alt = CLASSES[(i + 1) % 4] if cls else None
    row = dict(
        trial_id=f"t{i}", study=study, model=name, params_b=params, is_base=base, seed=0, repeat=0,
        scaffold="native", parser_mode="strict", outcome=outcome, passed=passed, partial=float(passed),
        failure_class=cls, failure_class_clock_first=alt, refused=None, turns=3, wall_s=1.0 + params,
        prompt_tokens=500 + i % 7, completion_tokens=50, n_tool_calls=1, n_refusals=0, peak_rss_mb=300.0,
        answer="x", source_file="data/raw/x.jsonl", source_line=i, dimension=None, variant="original",
    )  # fmt: skip
    row.update(kw)
    return row


def make_trials() -> pd.DataFrame:
    """Both studies, three models each (one base), two temperatures, both suites, every dimension."""
    rng = np.random.default_rng(0)
    rows = []
    for study, models in MODELS.items():
        for model in models:
            for temp in (0.0, 0.7):
                for g in ("IR", "SCH", "DA"):
                    for t in range(4):
                        rows.append(_row(rng, len(rows), study, model, suite="capability", task_id=f"{g}-{t}",
                                         group=g, temperature=temp))  # fmt: skip
            for dim, variants in VARIANTS.items():
                for v in variants:
                    for t in range(3):
                        refused = bool(t % 2) if dim == "safety" else None
                        kw = dict(group=dim, dimension=dim, variant=v, temperature=0.0, refused=refused)
                        rows.append(
                            _row(
                                rng, len(rows), study, model, suite="reliability", task_id=f"{dim}-{t}", **kw
                            )
                        )
    return pd.DataFrame(rows, columns=COLUMNS)


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    """The synthetic trials table of ``make_trials``."""
    return make_trials()


@pytest.fixture(scope="module")
def sparse(trials: pd.DataFrame) -> pd.DataFrame:
    """One model of one study, one temperature, no reliability rows."""
    keep = (
        (trials["model"] == "smollm2-135m") & (trials["suite"] == "capability") & (trials["temperature"] == 0)
    )
    return trials[keep].reset_index(drop=True)


def _is_pdf(path: Path) -> bool:
    return path.read_bytes().startswith(b"%PDF") and path.stat().st_size > 1000


@pytest.mark.parametrize("name", FIGURES)
def test_figure_draws_on_full_and_sparse_data(
    name: str, trials: pd.DataFrame, sparse: pd.DataFrame, tmp_path: Path
):
    draw_figure(name, trials, tmp_path / "full.pdf", analysis_dir=tmp_path)
    draw_figure(name, sparse, tmp_path / "sparse.pdf", analysis_dir=tmp_path)
    draw_figure(name, trials.iloc[0:0], tmp_path / "empty.pdf", analysis_dir=tmp_path)
    assert all(_is_pdf(tmp_path / f) for f in ("full.pdf", "sparse.pdf", "empty.pdf"))


def test_at_least_sixteen_figures_each_with_a_module() -> None:
    assert len(FIGURES) >= 16
    assert all((Path(__file__).parents[2] / "code/slmbench/figures" / f"{n}.py").exists() for n in FIGURES)


@pytest.mark.parametrize("name", ["accuracy_vs_params", "perturbation_heatmap"])
def test_figure_bytes_are_deterministic(name: str, trials: pd.DataFrame, tmp_path: Path) -> None:
    draw_figure(name, trials, tmp_path / "a.pdf")
    draw_figure(name, trials, tmp_path / "b.pdf")
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_sparse_panels_say_no_data(sparse: pd.DataFrame, tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    from slmbench.figures import reliability_bars

    captured: list[str] = []
    orig = plt.Figure.savefig

    def spy(fig: plt.Figure, *args: object, **kwargs: object) -> None:
        captured.extend(t.get_text() for ax in fig.axes for t in ax.texts)
        orig(fig, *args, **kwargs)

    plt.Figure.savefig = spy  # type: ignore[method-assign]
    try:
        reliability_bars.draw(sparse, tmp_path / "r.pdf")
    finally:
        plt.Figure.savefig = orig  # type: ignore[method-assign]
    assert captured == ["no reliability trials"]


def test_rates_match_wilson_and_exclude_infra_errors(trials: pd.DataFrame) -> None:
    from slmbench.figures.data import capability_rates

    cap = capability_rates(trials)
    row = cap[(cap["study"] == "slmbench") & (cap["model"] == "qwen2.5-1.5b")].iloc[0]
    sub = trials[(trials["model"] == "qwen2.5-1.5b") & (trials["suite"] == "capability")]
    sub = sub[sub["outcome"] != "infra_error"]
    assert row["n"] == len(sub) and row["k"] == sub["passed"].sum()
    lo, hi = wilson(int(row["k"]), int(row["n"]))
    assert (row["lo"], row["hi"]) == pytest.approx((lo, hi))
    # textbook Wilson interval for 8/10: [0.4902, 0.9433]
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert rates(trials.iloc[0:0], ["model"]).empty
    for k, n in ((0, 9), (9, 9), (0, 1)):
        lo, hi = wilson(k, n)
        assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_composite_is_mean_of_dimension_rates_and_reads_topic_interval(
    trials: pd.DataFrame, tmp_path: Path
) -> None:
    numbers = [
        {"key": "rel.composite.qwen2-5-1-5b.lo", "value": 0.1, "text": "10.0\\%", "provenance": {}},
        {"key": "rel.composite.qwen2-5-1-5b.hi", "value": 0.9, "text": "90.0\\%", "provenance": {}},
    ]
    topic = {"topic": "reliability", "numbers": numbers, "tables": {}}
    (tmp_path / "reliability.json").write_text(json.dumps(topic))
    comp = composite(trials, {"topics": {"reliability": tmp_path / "reliability.json"}}).set_index(
        ["study", "model"]
    )
    rel = trials[(trials["suite"] == "reliability") & (trials["outcome"] != "infra_error")]
    sub = rel[rel["model"] == "qwen2.5-1.5b"]
    assert comp.loc[("slmbench", "qwen2.5-1.5b"), "composite"] == pytest.approx(
        sub.groupby("dimension")["passed"].mean().mean()
    )
    assert comp.loc[("slmbench", "qwen2.5-1.5b"), ["lo", "hi"]].tolist() == [0.1, 0.9]
    assert np.isnan(comp.loc[("slmbench", "smollm2-135m"), "lo"])
    published = [{"key": "ext.rel.composite.gemma2-9b", "value": 0.42, "text": "0.42", "provenance": {}}]
    (tmp_path / "external.json").write_text(json.dumps({"topic": "external", "numbers": published}))
    comp = composite(trials, {"analysis_dir": tmp_path}).set_index(["study", "model"])
    assert comp.loc[("karmacharya2026", "gemma2:9b"), "composite"] == 0.42
    assert comp.loc[("slmbench", "qwen2.5-1.5b"), "lo"] == 0.1
    assert sanitise("qwen2.5:7b") == "qwen2-5-7b" and sanitise("phi3.5:3.8b") == "phi3-5-3-8b"


def _num(key: str, text: str, model: str | None = None) -> dict:
    prov = {"selection": {"model": model}} if model else {}
    return {"key": key, "value": 0.5, "text": text, "provenance": prov}


def test_capability_table_is_booktabs_marks_base_and_escapes() -> None:
    topic = {"topic": "capability", "tables": {}, "numbers": [
        _num("cap.acc.smollm2-135m", "50.0\\%", "smollm2_135m"), _num("cap.acc.smollm2-135m.lo", "30.0\\%"),
        _num("cap.acc.smollm2-135m.hi", "70.0\\%"), _num("cap.acc.smollm2-135m.k", "5"),
        _num("cap.acc.gemma3-270m", "0.0\\%"), _num("cap.base.gemma3-270m", "yes")]}  # fmt: skip
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


def test_cli_figure_and_table(trials: pd.DataFrame, tmp_path: Path) -> None:
    trials.to_parquet(tmp_path / "trials.parquet")
    runner = CliRunner()
    out = tmp_path / "figs" / "fig_radar.pdf"
    res = runner.invoke(figure, ["radar", "--trials", str(tmp_path / "trials.parquet"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert _is_pdf(out)
    bad = runner.invoke(figure, ["nope", "--trials", str(tmp_path / "trials.parquet"), "--out", str(out)])
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


def test_table_rows_are_models_not_pooled_values_or_interval_ends() -> None:
    numbers = [
        _num("rel.composite.qwen2-5-1-5b", "51.3\\%", "qwen2.5-1.5b"),
        _num("rel.composite.mean", "30.7\\%"),
        _num("rel.composite.mean.lo", "8.3\\%"),
        _num("rel.safety.qwen2-5-1-5b.lo", "8.3\\%"),
    ]
    body = render_table("reliability", {"topic": "reliability", "numbers": numbers}).split("\\midrule")[1]
    rows = [line for line in body.splitlines() if line.endswith("\\\\")]
    assert rows == ["qwen2.5-1.5b & -- & -- & -- & -- & 51.3\\% & -- \\\\"]


def test_outputs_are_world_readable(trials: pd.DataFrame, tmp_path: Path) -> None:
    draw_figure("reliability_bars", trials.iloc[0:0], tmp_path / "f.pdf")
    assert (tmp_path / "f.pdf").stat().st_mode & 0o777 == 0o644


def test_all_fail_and_all_pass_cells_draw(trials: pd.DataFrame, tmp_path: Path) -> None:
    # 0/9 and 9/9 cells: Wilson ends computed in floating point must not make error bars negative
    df = trials.copy()
    rel = df["suite"] == "reliability"
    df.loc[rel, "outcome"] = "success"
    df.loc[rel, "passed"] = df.loc[rel, "dimension"] != "safety"
    for name in (
        "reliability_dimensions",
        "reliability_bars",
        "composite_reliability",
        "accuracy_vs_temperature",
    ):
        draw_figure(name, df, tmp_path / f"{name}.pdf")
        assert _is_pdf(tmp_path / f"{name}.pdf")
