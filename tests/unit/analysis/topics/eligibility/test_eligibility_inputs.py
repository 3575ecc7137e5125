"""What the eligibility topic reads (run files, baselines, a labelling pass through ``slmbench analyze``) and
its registration as a topic of its own inputs."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.fixtures.eligibility import synthetic_baselines, synthetic_runs

from slmbench.analysis.topics import INPUT_TOPICS, TOPICS, get_input_topic
from slmbench.analysis.topics.eligibility import EligibilityInputs, compute, load_inputs
from slmbench.cli import main

K = "elig.command-approval"


def test_topic_is_registered_and_survives_no_input() -> None:
    assert "eligibility" in TOPICS and "eligibility" in INPUT_TOPICS
    load, registered = get_input_topic("eligibility")
    assert (load, registered) == (load_inputs, compute)
    res = registered(EligibilityInputs(), {})
    assert {n.key for n in res.numbers} >= {"elig.n.pairs", "elig.phrase.eligible"}


def test_analyze_cli_reads_run_files(tmp_path: Path) -> None:
    base = tmp_path / "baselines.json"
    base.write_text(json.dumps(synthetic_baselines()))
    files = []
    for run in synthetic_runs():
        path = tmp_path / f"{run['file']}.jsonl"
        h = {"kind": "header", **run["header"], "split_seed": 1, "prompt_hash": "x", "prompt_version": "1",
             "instructions": "i", "scoring": "s", "n_items": len(run["items"])}  # fmt: skip
        path.write_text("\n".join(json.dumps(x) for x in [h, *run["items"]]) + "\n")
        files.append(str(path))
    out = tmp_path / "eligibility.json"
    args = [a for f in files for a in ("--record", f)]
    result = CliRunner().invoke(
        main,
        ["analyze", "eligibility", *args, "--baselines", str(base), "--out", str(out), "--planned-runs", "9"],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["topic"] == "eligibility" and set(doc["params"]["input_sha256"]) == {*files, str(base)}
    assert any(
        n["key"] == f"{K}.m-b.terse.shipped.diagnosis" and n["value"] == "calibration" for n in doc["numbers"]
    )
    assert any(n["key"] == "elig.n.runs-planned" and n["value"] == 9 for n in doc["numbers"])
    missing = CliRunner().invoke(main, ["analyze", "eligibility", *args, "--out", str(out)])
    assert missing.exit_code != 0 and "needs --baselines" in missing.output


def test_data_counts_and_second_pass_kappa(tmp_path: Path) -> None:
    from tests.fixtures.eligibility import write_jsonl

    folder = tmp_path / "command_approval"
    write_jsonl(folder / "items.jsonl", [{"id": i, "label": lab} for i, lab in [*TEST_LABELS]])
    second = [{"id": i, "label": "deny" if n < 2 else lab} for n, (i, lab) in enumerate(TEST_LABELS)]
    write_jsonl(folder / "labels2.jsonl", second)
    inputs, read = load_inputs({"second_pass": [str(folder / "labels2.jsonl")]})
    res = compute(replace(inputs, baselines=synthetic_baselines()), {})
    n = {x.key: x for x in res.numbers}
    # 20 items, 10 approve / 10 deny; the second pass turns 2 approve into deny:
    # p_o = 18/20, p_e = 0.5 * 0.4 + 0.5 * 0.6 = 0.5, kappa = 0.4 / 0.5 = 0.8
    assert n["elig.command-approval.kappa"].value == pytest.approx(0.8)
    assert n["elig.command-approval.kappa.disagree"].value == 2
    assert n["elig.phrase.kappa.command-approval"].text == "$\\kappa = 0.80$ over 20 items"
    assert n["elig.phrase.kappa.reranking"].text.startswith("not yet measured")
    assert n["elig.command-approval.n.approve"].value == 16 and n["elig.command-approval.n.deny"].value == 15
    assert str(folder / "labels2.jsonl") in read["input_sha256"]


TEST_LABELS = [(f"t{i:02d}", "approve" if i < 10 else "deny") for i in range(20)]
