"""The analysis commands end to end on the imported study: analyze, macros, numbers, audit, verify."""

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from slmbench.analysis.cli import analyze, audit, macros, numbers, verify
from slmbench.importers.cli import import_external
from slmbench.records.hashing import source_sha256

ROOT = Path(__file__).resolve().parents[3] / "data" / "external" / "karmacharya2026"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("an")
    r = CliRunner()
    trials, summary = d / "trials.parquet", d / "summary.parquet"
    res = r.invoke(
        import_external, ["--root", str(ROOT), "--out", str(trials), "--out-summary", str(summary)]
    )
    assert res.exit_code == 0, res.output
    args = ["--trials", str(trials), "--bootstrap-seed", "3", "--n-boot", "20"]
    res = r.invoke(analyze, ["external", *args, "--summary", str(summary), "--out", str(d / "external.json")])
    assert res.exit_code == 0, res.output
    res = r.invoke(analyze, ["failures", *args, "--out", str(d / "failures.json")])
    assert res.exit_code == 0, res.output
    (d / "manifest.json").write_text(
        json.dumps(
            {"raw_files": [{"path": "a", "sha256": "f00"}], "source_sha256": "c0", "checks_version": "2"}
        )
    )
    gen = d / "generated"
    res = r.invoke(
        macros,
        ["--manifest", str(d / "manifest.json"), "--out-tex", str(gen / "numbers.tex"),
         "--out-provenance", str(gen / "provenance.json"),
         str(d / "external.json"), str(d / "failures.json")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return d


def test_analyze_is_deterministic(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "again.json"
    args = [
        "external",
        "--trials",
        str(built / "trials.parquet"),
        "--summary",
        str(built / "summary.parquet"),
    ]
    res = CliRunner().invoke(analyze, [*args, "--bootstrap-seed", "3", "--n-boot", "20", "--out", str(out)])
    assert res.exit_code == 0
    assert (
        json.loads(out.read_text())["numbers"] == json.loads((built / "external.json").read_text())["numbers"]
    )


def test_macros_and_provenance(built: Path) -> None:
    tex = (built / "generated" / "numbers.tex").read_text()
    assert "\\expandafter\\def\\csname slmres@ext.acc.qwen2-5-7b\\endcsname{67.7\\%}" in tex
    prov = json.loads((built / "generated" / "provenance.json").read_text())
    # the package that wrote the numbers now, not the one that last tidied (tidy reruns on judging code only)
    assert prov["source_sha256"] == source_sha256() and prov["raw_files"][0]["sha256"] == "f00"
    assert prov["checks_version"] == "2" and "git_commit" not in prov  # reproducible byte for byte
    rec = next(n for n in prov["numbers"] if n["key"] == "ext.acc.qwen2-5-7b")
    assert rec["provenance"]["selection"]["model"] == "qwen2.5:7b" and rec["value"] == pytest.approx(21 / 31)


def test_numbers_and_audit(built: Path) -> None:
    prov = str(built / "generated" / "provenance.json")
    res = CliRunner().invoke(numbers, ["--format", "json", "--provenance", prov])
    assert any(n["key"] == "ext.top" for n in json.loads(res.output))
    res = CliRunner().invoke(
        audit, ["ext.acc.gemma2-9b", "--provenance", prov, "--trials", str(built / "trials.parquet")]
    )
    assert res.exit_code == 0 and "31 trials:" in res.output and "SCH-3" in res.output


def _verify(built: Path) -> tuple[int, str]:
    res = CliRunner().invoke(
        verify,
        ["--trials", str(built / "trials.parquet"), "--summary", str(built / "summary.parquet"),
         "--generated", str(built / "generated")],
    )  # fmt: skip
    return res.exit_code, res.output


def test_verify_passes_then_detects_a_changed_number(built: Path) -> None:
    code, out = _verify(built)
    assert code == 0, out
    tex = built / "generated" / "numbers.tex"
    original = tex.read_text()
    tex.write_text(
        original.replace(
            "slmres@ext.acc.qwen2-5-7b\\endcsname{67.7\\%}", "slmres@ext.acc.qwen2-5-7b\\endcsname{70.0\\%}"
        )
    )
    try:
        code, out = _verify(built)
        assert code == 1 and "changed ext.acc.qwen2-5-7b" in out
    finally:
        tex.write_text(original)


def test_verify_checks_the_values_a_figure_plotted(built: Path, tmp_path: Path) -> None:
    from slmbench.figures import draw_figure, values_path

    out = tmp_path / "fig_external_comparison.pdf"  # the reproduced study's numbers are drawn there
    plotted = draw_figure("external_comparison", {"external": built / "external.json"}, out)
    assert plotted["ext.acc.qwen2-5-7b"] == pytest.approx(21 / 31) and "ext.params.qwen2-5-7b" in plotted
    args = ["--trials", str(built / "trials.parquet"), "--summary", str(built / "summary.parquet"),
            "--generated", str(built / "generated"), "--figure-values", str(values_path(out))]  # fmt: skip
    res = CliRunner().invoke(verify, args)
    assert res.exit_code == 0 and f"{len(plotted)} plotted values of 1 figures" in res.output, res.output
    values_path(out).write_text(json.dumps({**plotted, "ext.acc.qwen2-5-7b": 0.7, "ext.acc.nope": 0.1}))
    res = CliRunner().invoke(verify, args)
    assert res.exit_code == 1
    assert "fig_external_comparison.values.json: changed ext.acc.qwen2-5-7b: plotted 0.7" in res.output
    assert "fig_external_comparison.values.json: plotted ext.acc.nope is not a number" in res.output


def _reliability_trials() -> pd.DataFrame:
    """One model's reliability trials: each robustness task run as the original prompt and one perturbation."""
    rows = []
    common = {"study": "slmbench", "suite": "reliability", "model": "m:1b", "params_b": 1.0, "is_base": False,
              "temperature": 0.0, "group": "G", "refused": None, "answer": "a", "failure_class": None,
              "failure_class_clock_first": None, "scaffold": "native", "parser_mode": "repaired", "primary": True}  # fmt: skip
    for dim, variants in (
        ("consistency", ["original"] * 3),
        ("robustness", ["original", "typos"]),
        ("fault_tolerance", ["original", "fault_timeout"]),
        ("safety", ["original"]),
    ):
        for task in range(3):
            for repeat, variant in enumerate(variants):
                passed = (task + repeat) % 2 == 0
                rows.append({**common, "dimension": dim, "task_id": f"{dim}{task}", "variant": variant,
                             "repeat": repeat if dim == "consistency" else 0, "passed": passed,
                             "outcome": "success" if passed else "failure"})  # fmt: skip
    df = pd.DataFrame(rows)
    df["trial_id"] = [f"t{i}" for i in range(len(df))]
    df["transcript_sha256"] = df["task_id"] + df["passed"].astype(str)
    return df


def _generated(tmp_path: Path, trials: Path, topic: str) -> list[str]:
    """``analyze`` one topic and write its macros: the arguments of ``verify`` over them."""
    r = CliRunner()
    args = ["--trials", str(trials), "--n-boot", "20"]
    assert r.invoke(analyze, [topic, *args, "--out", str(tmp_path / f"{topic}.json")]).exit_code == 0
    (tmp_path / "manifest.json").write_text("{}")
    gen = tmp_path / "generated"
    res = r.invoke(
        macros,
        ["--manifest", str(tmp_path / "manifest.json"), "--out-tex", str(gen / "numbers.tex"),
         "--out-provenance", str(gen / "provenance.json"), str(tmp_path / f"{topic}.json")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return ["--trials", str(trials), "--generated", str(gen), "--summary", str(tmp_path / "none")]


def test_an_audit_names_the_trials_of_the_units_a_number_counts(tmp_path: Path) -> None:
    trials = tmp_path / "trials.parquet"
    _reliability_trials().to_parquet(trials)
    r = CliRunner()
    verify_args = _generated(tmp_path, trials, "reliability")
    res = r.invoke(verify, verify_args)
    assert res.exit_code == 0, res.output
    gen = tmp_path / "generated"
    audit_out = r.invoke(
        audit, ["rel.robustness.m-1b", "--provenance", str(gen / "provenance.json"), "--trials", str(trials)]
    ).output
    assert "n counts tasks, from these 3 trials:" in audit_out and " original " not in audit_out
    flips = r.invoke(
        audit,
        ["rel.rob.flip-rate.m-1b", "--provenance", str(gen / "provenance.json"), "--trials", str(trials)],
    ).output
    assert "n counts tasks, from these 6 trials:" in flips
    repeats = r.invoke(
        audit,
        ["rel.repeats.units", "--provenance", str(gen / "provenance.json"), "--trials", str(trials)],
    ).output
    assert "n counts tasks, from these 9 trials:" in repeats  # three consistency tasks, three repeats each


def test_verify_fails_when_an_audit_selects_other_trials_than_n_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials = tmp_path / "trials.parquet"
    common = {"study": "slmbench", "suite": "capability", "model": "m:1b", "params_b": 1.0, "is_base": False,
              "temperature": 0.0, "group": "G", "refused": None, "answer": "a", "failure_class": None,
              "failure_class_clock_first": None, "scaffold": "native", "parser_mode": "repaired", "primary": True,
              "variant": "original", "repeat": 0, "dimension": None}  # fmt: skip
    rows = [{**common, "task_id": f"C{t}", "passed": t % 2 == 0, "outcome": "success" if t % 2 == 0 else "failure"}
            for t in range(3)]  # fmt: skip
    rows.append({**common, "task_id": "C9", "passed": False, "outcome": "infra_error"})
    df = pd.DataFrame(rows).assign(trial_id=lambda d: [f"c{i}" for i in range(len(d))])
    df.to_parquet(trials)
    verify_args = _generated(tmp_path, trials, "capability")
    res = CliRunner().invoke(verify, verify_args)
    assert res.exit_code == 0, res.output
    # the same numbers, but the task groups selected with the infra error the rate leaves out
    monkeypatch.setattr("slmbench.analysis.topics.breakdowns.SCORED", {})
    res = CliRunner().invoke(verify, verify_args)
    assert res.exit_code == 1
    assert "audit selects 4 trials, n is 3: cap.group.g.m-1b" in res.output
    assert "changed" not in res.output
