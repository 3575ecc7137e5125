"""The end of a run with failed jobs: each failed shard and the one line of its log that says why, read from
the run's Snakemake log (written here by Snakemake itself, on a workflow whose shards fail as a model would)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from slmbench.run.failures import FailedJob, failed_jobs, reason_in, report_failures, summary

WORKFLOW = """\
from slmbench.run.failures import report_failures

rule all:
    input: expand("data/raw/slmbench/{m}/capability_T0.jsonl", m=["ok-model", "dead-server", "crash"])

rule shard:
    output: "data/raw/slmbench/{model}/{stem}.jsonl"
    log: "logs/trials/{model}/{stem}.log"
    params: model="{model}"
    shell:
        "case {params.model:q} in"
        " dead-server) printf 'starting\\\\nError: openai server not answering for dead-server: refused\\\\n' > {log:q};"
        " exit 1;;"
        " crash) printf 'Traceback (most recent call last):\\\\n  File x\\\\nValueError: bad reply\\\\n' > {log:q};"
        " exit 1;;"
        " esac; touch {output:q} 2> {log:q}"

onerror:
    report_failures(log)
"""


def _run(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "Snakefile").write_text(WORKFLOW)
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "--keep-going"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def test_a_run_with_failed_shards_ends_with_each_shard_and_its_reason(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert run.returncode != 0
    assert (tmp_path / "data/raw/slmbench/ok-model/capability_T0.jsonl").exists()  # kept going
    log = max((tmp_path / ".snakemake/log").glob("*.log"), key=lambda p: p.stat().st_mtime)
    jobs = sorted(failed_jobs(log, tmp_path), key=lambda j: j.name)
    assert [(j.name, j.reason) for j in jobs] == [
        ("crash/capability_T0", "ValueError: bad reply"),
        ("dead-server/capability_T0", "Error: openai server not answering for dead-server: refused"),
    ]
    assert "2 job(s) failed, 2 of them trial shard(s)" in run.stderr
    assert (
        "  dead-server/capability_T0  Error: openai server not answering for dead-server: refused"
        in run.stderr
    )


def test_the_summary_says_nothing_when_nothing_failed_and_names_other_rules_by_output(tmp_path: Path) -> None:
    assert summary([]) == ""
    job = FailedJob("tidy", "data/processed/trials.parquet", "logs/tidy.log", "Error: no trials")
    assert summary([job]) == "1 job(s) failed:\n  tidy data/processed/trials.parquet  Error: no trials"
    assert reason_in(tmp_path / "absent.log") == f"no log at {tmp_path / 'absent.log'}"
    (tmp_path / "empty.log").write_text("")
    assert reason_in(tmp_path / "empty.log") == "(its log is empty)"
    report_failures([str(tmp_path / "absent.snakemake.log")])  # no such log: nothing to say, no error
