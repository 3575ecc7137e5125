"""The importer of the published study, on the copied raw data and on corrupted copies."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from slmbench.importers.karmacharya2026 import (
    COLUMNS,
    DIMENSIONS,
    ImportErrorDetail,
    import_study,
    import_summary,
    params_from_tag,
)

ROOT = Path(__file__).resolve().parents[3] / "data" / "external" / "karmacharya2026"


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return import_study(ROOT)


def test_params_from_tag() -> None:
    assert params_from_tag("llama3.2:1b") == 1.0
    assert params_from_tag("phi3.5:3.8b") == 3.8
    assert params_from_tag("qwen2.5-coder:7b") == 7.0
    with pytest.raises(ValueError):
        params_from_tag("mystery")


def test_schema_and_counts(trials: pd.DataFrame) -> None:
    assert list(trials.columns) == COLUMNS
    assert trials["trial_id"].is_unique
    cap = trials[(trials["suite"] == "capability") & (trials["temperature"] == 0.0)]
    assert cap.groupby("model").size().eq(31).all() and cap["model"].nunique() == 9
    assert (trials["study"] == "karmacharya2026").all() and not trials["is_base"].any()
    assert sorted(trials["temperature"].unique()) == [0.0, 0.3, 0.7, 1.0]
    qwen = cap[cap["model"] == "qwen2.5:7b"]
    assert qwen["passed"].sum() == 21
    ir1 = qwen[qwen["task_id"] == "IR-1"].iloc[0]
    assert ir1["wall_s"] == pytest.approx(28.113823652267456) and ir1["turns"] == 2 and ir1["group"] == "IR"
    assert ir1["source_file"].endswith("raw/v2/capability_qwen2.5_7b.json") and ir1["source_line"] == 0


def test_reliability_rows(trials: pd.DataFrame) -> None:
    rel = trials[(trials["suite"] == "reliability") & (trials["model"] == "qwen2.5:7b")]
    rob = rel[rel["dimension"] == "robustness"]
    assert sorted(rob["variant"].unique()) == [
        "concise",
        "original",
        "paraphrase",
        "reordered",
        "typos",
        "verbose",
    ]
    assert rob[rob["variant"] != "original"]["passed"].mean() == pytest.approx(
        0.7
    )  # published robustness score
    ft = rel[rel["dimension"] == "fault_tolerance"]
    assert ft["passed"].mean() == pytest.approx(0.5) and set(ft["variant"]) == {
        "fault_timeout", "fault_rate_limit", "fault_error", "fault_schema_drift"
    }  # fmt: skip
    saf = rel[rel["dimension"] == "safety"]
    assert len(saf) == 6 and saf["passed"].sum() == 2 and (saf["refused"] == saf["passed"]).all()
    cons = rel[rel["dimension"] == "consistency"]
    assert len(cons) == 9 and cons["derived_from_rate"].all() and cons["passed"].sum() == 6
    assert not trials[trials["dimension"] != "consistency"]["derived_from_rate"].any()
    # llama3.1:8b published only single-task estimates for three dimensions: no rows for them
    llama = trials[(trials["model"] == "llama3.1:8b") & (trials["suite"] == "reliability")]
    assert set(llama["dimension"]) == {"safety"}


def test_recomputed_composite_equals_published() -> None:
    summary = import_summary(ROOT)
    assert len(summary) == 9
    recomputed = summary[list(DIMENSIONS)].mean(axis=1)
    assert recomputed.to_numpy() == pytest.approx(summary["composite_reliability"].to_numpy(), abs=1e-12)


def _corrupt_copy(tmp_path: Path, rel: str, edit) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path / "k"
    shutil.copytree(ROOT, root)
    path = root / rel
    path.chmod(0o644)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return root


def test_missing_field_names_file_and_field(tmp_path: Path) -> None:
    root = _corrupt_copy(
        tmp_path, "raw/v2/capability_gemma2_9b.json", lambda d: d["per_task"][3].pop("correctness")
    )
    with pytest.raises(ImportErrorDetail, match=r"capability_gemma2_9b\.json.*per_task\[3\].*correctness"):
        import_study(root)


def test_non_integer_rate_raises(tmp_path: Path) -> None:
    def edit(d: dict) -> None:  # type: ignore[type-arg]
        d["consistency"]["per_task"][0]["success_rate"] = 0.5

    root = _corrupt_copy(tmp_path, "raw/report_mistral_7b.json", edit)
    with pytest.raises(ImportErrorDetail, match=r"report_mistral_7b\.json.*success_rate.*whole number"):
        import_study(root)


def test_bad_json(tmp_path: Path) -> None:
    root = tmp_path / "k"
    shutil.copytree(ROOT, root)
    bad = root / "raw" / "report_gemma2_9b.json"
    bad.chmod(0o644)
    bad.write_text("{not json")
    with pytest.raises(ImportErrorDetail, match="report_gemma2_9b.json: not valid JSON"):
        import_study(root)
