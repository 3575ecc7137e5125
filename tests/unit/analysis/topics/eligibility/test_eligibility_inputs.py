"""What the eligibility topic reads (run files, baselines, a labelling pass through ``slmbench analyze``) and
its registration as a topic of its own inputs."""

import json
from pathlib import Path

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
    labels = Path("data/eligibility/reranking/independent/labels.jsonl")
    args += ["--independent", str(labels)]
    result = CliRunner().invoke(
        main,
        ["analyze", "eligibility", *args, "--baselines", str(base), "--out", str(out), "--planned-runs", "9"],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    read = set(doc["params"]["input_sha256"])
    assert doc["topic"] == "eligibility" and read >= {*files, str(base), str(labels)}
    assert read - {*files, str(base)} == {
        str(labels),
        str(labels.with_name("codes.jsonl")),
        "data/eligibility/reranking/items.jsonl",
    }
    assert any(n["key"] == "elig.kappa.reranking.label.as-came.n" for n in doc["numbers"])
    assert any(
        n["key"] == f"{K}.m-b.terse.shipped.diagnosis" and n["value"] == "calibration" for n in doc["numbers"]
    )
    assert any(n["key"] == "elig.n.runs-planned" and n["value"] == 9 for n in doc["numbers"])
    missing = CliRunner().invoke(main, ["analyze", "eligibility", *args, "--out", str(out)])
    assert missing.exit_code != 0 and "needs --baselines" in missing.output
