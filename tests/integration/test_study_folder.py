"""A study of one's own: ``slmbench init`` in a folder whose path has a space, models put into its config, and
``snakemake`` run there as the README says. No real model runs: a scripted model (configured in config.yaml), an
OpenAI-compatible fixture server, and the project's committed records.

Checked: the trials and the tables are the folder's own (nothing of the repository's data/raw enters them; a
folder's PDF is built in test_paper_studies.py); a served model's trials in flight never exceed its ``concurrency`` across shards; one failing model does
not stop the others, and the run ends naming each failed shard and why; a config error is one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from tests.fixtures.ollama_server import OllamaFixtureServer, serve

ROOT = Path(__file__).resolve().parents[2]
TASKS = {"capability": ["DA-1", "SCH-1", "COM-1"], "reliability": ["REL-CON-1", "REL-FT-1"]}
SCRIPTED = {"backend": "scripted", "params_b": 0.1, "instruct": True, "outputs": ["I cannot help with that."]}
SERVED_MODEL = "qwen2.5-coder-0.5b"
"""The model the fixture server lists."""

pytestmark = [pytest.mark.slow]


def run(folder: Path, *args: str, timeout: int = 1500) -> subprocess.CompletedProcess[str]:
    """``<args>`` with this interpreter's ``python -m`` in ``folder`` (``snakemake ...``, ``slmbench ...``)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=timeout
    )


def init_study(parent: Path, models: dict[str, Any], **fields: Any) -> Path:
    """A study made by ``slmbench init`` in ``parent/my study``, with ``models`` and ``fields`` in its config."""
    made = run(parent, "slmbench", "init", "my study")
    assert made.returncode == 0, made.stderr
    folder = parent / "my study"
    config = yaml.safe_load((folder / "config.yaml").read_text())
    (folder / "config.yaml").write_text(
        yaml.safe_dump({**config, "models": models, **fields}, sort_keys=False)
    )
    return folder


def records(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted((folder / "data/raw").rglob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


@pytest.fixture(scope="module")
def scripted_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = init_study(tmp_path_factory.mktemp("own"), {"double": SCRIPTED}, tasks=TASKS)
    trials = run(folder, "snakemake", "trials", "--cores", "2")
    assert trials.returncode == 0, trials.stderr[-4000:]
    # a model removed from the config leaves its records behind: they are not the study's any more
    stray = folder / "data/raw/slmbench/smollm2-135m"
    stray.mkdir(parents=True)
    shutil.copy(ROOT / "data/raw/slmbench/smollm2-135m/capability_T0_native_repaired_p-full.jsonl", stray)
    tables = run(folder, "snakemake", "data/processed/capability.json", "data/processed/reliability.json",
                 "--cores", "2")  # fmt: skip
    assert tables.returncode == 0, tables.stderr[-4000:]
    return folder


def test_the_trials_run_in_the_study_folder(scripted_study: Path) -> None:
    shards = sorted(p.relative_to(scripted_study) for p in (scripted_study / "data/raw").rglob("*.jsonl"))
    assert [str(p) for p in shards] == [
        "data/raw/slmbench/double/capability_T0_native_repaired_p-full.jsonl",
        "data/raw/slmbench/double/reliability_T0_native_repaired_p-full.jsonl",
        "data/raw/slmbench/smollm2-135m/capability_T0_native_repaired_p-full.jsonl",
    ]
    ours = [r for r in records(scripted_study) if r["model"] == "double"]
    assert {r["task_id"] for r in ours} == {t for ids in TASKS.values() for t in ids}
    assert {r["provenance"]["settings"]["concurrency"] for r in ours} == {1}
    assert {r["fingerprint"]["backend"]["backend"] for r in ours} == {"scripted"}


def test_nothing_outside_the_study_enters_its_tables(scripted_study: Path) -> None:
    trials = pd.read_parquet(scripted_study / "data/processed/trials.parquet")
    assert set(trials["model"]) == {"double"} and set(trials["study"]) == {"slmbench"}
    assert all(s.startswith("data/raw/slmbench/double/") for s in trials["source_file"])
    manifest = json.loads((scripted_study / "data/processed/manifest.json").read_text())
    assert all(f["path"].startswith("data/raw/slmbench/double/") for f in manifest["raw_files"])
    log = (scripted_study / "logs/tidy.log").read_text()
    assert "left out 1 shard file(s) under data/raw that hold no trials of this study's models:" in log
    capability = json.loads((scripted_study / "data/processed/capability.json").read_text())
    assert capability["numbers"] and not (scripted_study / "data/processed/external.json").exists()
    assert not (ROOT / "my study").exists()


def _in_flight(server: OllamaFixtureServer, delay_s: float) -> int:
    """The most chat requests the server had in flight at once: each takes at least ``delay_s``, so every request
    that arrived within ``delay_s`` before another was still being answered when that one came."""
    arrivals = sorted(r.at for r in server.seen("/v1/chat/completions"))
    return max((sum(1 for b in arrivals if a - delay_s < b <= a) for a in arrivals), default=0)


@pytest.mark.parametrize(("limit", "most"), [(None, 2), ("4", 4)], ids=["configured", "raised"])
def test_a_served_models_trials_in_flight_never_exceed_its_concurrency(
    tmp_path: Path, limit: str | None, most: int
) -> None:
    """Two shards of one served model (concurrency 2) with cores for both: they never run at once beyond its
    concurrency, unless ``--resources`` raises the limit."""
    delay = 0.4
    with serve("slow", delay_s=delay) as server:
        served = {
            "backend": "openai", "params_b": 0.5, "instruct": True, "base_url": f"{server.url}/v1",
            "served_model": SERVED_MODEL, "concurrency": 2,
        }  # fmt: skip
        tasks = {"capability": ["DA-1", "SCH-1", "COM-1", "IR-1"], "reliability": ["REL-FT-1", "REL-FT-2"]}
        folder = init_study(tmp_path, {"served": served}, tasks=tasks, repeats=1, max_turns=2)
        extra = ["--resources", f"served_served={limit}"] if limit else []
        trials = run(folder, "snakemake", "trials", "--cores", "4", *extra)
        assert trials.returncode == 0, trials.stderr[-4000:]
        in_flight = _in_flight(server, delay)
    assert in_flight == most if limit else 2 <= in_flight <= most
    assert {r["provenance"]["settings"]["concurrency"] for r in records(folder)} == {2}


def test_one_failing_model_does_not_stop_the_others_and_the_run_names_it(tmp_path: Path) -> None:
    with serve("refuse") as dead:
        served = {
            "backend": "openai", "params_b": 0.5, "instruct": True, "base_url": f"{dead.url}/v1",
            "served_model": SERVED_MODEL, "timeout_s": 2,
        }  # fmt: skip
        folder = init_study(tmp_path, {"double": SCRIPTED, "gone": served}, tasks=TASKS)
        trials = run(folder, "snakemake", "trials", "--cores", "2")
    assert trials.returncode != 0
    assert {r["model"] for r in records(folder)} == {"double"}
    assert len(list((folder / "data/raw/slmbench/double").glob("*.jsonl"))) == 2
    summary = trials.stderr[trials.stderr.index("2 job(s) failed") :].splitlines()
    assert summary[0].startswith("2 job(s) failed, 2 of them trial shard(s)")
    assert sorted(line.split()[0] for line in summary[1:3]) == [
        "gone/capability_T0_native_repaired_p-full",
        "gone/reliability_T0_native_repaired_p-full",
    ]
    assert all("Error: openai server not answering for gone" in line for line in summary[1:3])


def test_a_config_error_stops_snakemake_with_one_line(tmp_path: Path) -> None:
    folder = init_study(
        tmp_path, {"double": SCRIPTED}, serving_comparison={"models": ["qwen2.5-coder-1.5b"], "repeats": 1}
    )
    dry = run(folder, "snakemake", "trials", "--cores", "2", "-n")
    assert dry.returncode == 1
    lines = [
        line for line in dry.stderr.splitlines() if not line.startswith("Using workflow specific profile")
    ]
    assert lines == [
        "config.yaml: serving_comparison.models: 'qwen2.5-coder-1.5b' is not a model of this study (models:"
        " double): remove it, or the block, or configure the model"
    ]
