"""The ``openai`` backend against a real server: llama.cpp's own ``llama-server`` (``make llama-server``) serving
SmolLM2-135M on 127.0.0.1 with its own chat template (``--jinja``), started and stopped by PID here. One shard
runs end to end through ``snakemake trials`` with two trials in flight; T=0 records of two sequential runs are
equal, and those with N in flight are compared with the sequential run's (``SLMBENCH_SERVED_N``, default 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tests.integration.smoke_workdir import make_workdir

from slmbench.backends.base import GenerationOptions, preflight
from slmbench.config import load_config, parse_config
from slmbench.models.llama_server import LlamaServer, LlamaServerError, llama_server_binary
from slmbench.models.registry import open_backend
from slmbench.models.weights import weights_path
from slmbench.records.compare import compare_shards
from slmbench.records.ledger import iter_records
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard
from slmbench.run.runner import ShardRun, run_shard

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
SMOLLM = load_config(ROOT / "config.yaml").models["smollm2-135m"]
MODEL = "smollm2-135m-served"
N = int(os.environ.get("SLMBENCH_SERVED_N", "2"))


def _binary_missing() -> bool:
    try:
        llama_server_binary()
    except LlamaServerError:
        return True
    return False


pytestmark = [
    pytest.mark.slow,
    pytest.mark.model,
    pytest.mark.skipif(not weights_path(SMOLLM).exists(), reason="run `slmbench models fetch smollm2-135m`"),
    pytest.mark.skipif(_binary_missing(), reason="run `make llama-server` (builds llama.cpp's server once)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with LlamaServer(
        weights_path(SMOLLM), "smollm2-135m", parallel=max(4, N), n_ctx=4096, log_path=log
    ) as srv:
        yield srv
    assert srv.pid is not None and not Path(f"/proc/{srv.pid}").exists()  # stopped by its PID, and reaped


def served_config(server: LlamaServer, concurrency: int = 4, **fields: object) -> dict:
    data = yaml.safe_load((HERE / "served_config.yaml").read_text())
    data["models"][MODEL].update(base_url=server.base_url, concurrency=concurrency, **fields)
    return data


def shard(concurrency: int) -> ShardRun:
    key = ShardKey(MODEL, "capability", 0.0, "native", "repaired")
    return ShardRun(
        Shard(key, 1, ("DA-1", "SCH-1", "COM-1", "IR-1")),
        base_seed=20261129,
        max_turns=3,
        budget_s=300,
        max_tokens=128,
        concurrency=concurrency,
    )


def test_the_server_answers_and_reports_what_it_serves(server: LlamaServer) -> None:
    spec = parse_config(served_config(server)).models[MODEL]
    backend = open_backend(MODEL, spec)
    preflight(backend)
    reply = backend.chat([{"role": "user", "content": "Say hello."}], None, GenerationOptions(max_tokens=16))
    assert reply.text.strip() and reply.prompt_tokens > 0 and reply.completion_tokens > 0
    fp = backend.fingerprint()
    assert fp["server"]["model_sha256"] == SMOLLM.weights.sha256  # the served file, hashed where it lies
    assert fp["server"]["total_slots"] == max(4, N) and fp["server"]["n_ctx_per_slot"] == 4096
    assert fp["model_card"]["meta"]["n_params"] > 100_000_000
    assert fp["native_tools"] is False  # SmolLM2's template has no place for tools: the harness lists them


def test_a_shard_end_to_end_through_snakemake_trials(server: LlamaServer, tmp_path: Path) -> None:
    work = make_workdir(tmp_path / "served")
    (work / "config.yaml").write_text(yaml.safe_dump(served_config(server), sort_keys=False))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "snakemake"), "trials", "--cores", "2"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    [path] = list((work / "data" / "raw").rglob("*.jsonl"))
    records = [r for _, r in iter_records(path)]
    assert sorted(r.task_id for r in records) == ["COM-1", "DA-1", "IR-1", "SCH-1"]  # each exactly once
    assert all(r.outcome in ("success", "failure") for r in records)  # the server worked: no infra error
    assert {r.provenance["settings"]["concurrency"] for r in records} == {4}
    backend = records[0].fingerprint["backend"]
    assert backend["backend"] == "openai" and backend["served_model"] == "smollm2-135m"
    assert backend["server"]["model_sha256"] == SMOLLM.weights.sha256
    responses = [e for r in records for e in r.events if e.type == "model_response"]
    assert responses and all(e.raw_text or e.native_tool_calls for e in responses)
    tidy = subprocess.run(
        [sys.executable, "-m", "slmbench", "tidy", "--config", "config.yaml", "--raw-dir", "data/raw"]
        + ["--out-trials", "t.parquet", "--out-events", "e.parquet", "--out-manifest", "m.json"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert tidy.returncode == 0, tidy.stderr[-2000:]
    assert json.loads((work / "m.json").read_text())["raw_files"][0]["n_records"] == 4


def _t0_shards(server: LlamaServer, out: Path, *runs: tuple[str, int]) -> None:
    """Run the four-task T=0 shard once per ``(name, trials in flight)``, every prompt evaluated from its first
    token (``cache_prompt: false``: a prefix the server's prompt cache reused changes the numerics)."""
    spec = parse_config(served_config(server, N, extra_body={"cache_prompt": False})).models[MODEL]
    for name, n in runs:
        assert (
            run_shard(shard(n), lambda: open_backend(MODEL, spec), out / f"{name}.jsonl", progress=False) == 4
        )


def test_t0_sequential_reruns_give_equal_records_without_the_prompt_cache(
    server: LlamaServer, tmp_path: Path
) -> None:
    _t0_shards(server, tmp_path, ("first", 1), ("second", 1))
    result = compare_shards(tmp_path / "first.jsonl", tmp_path / "second.jsonl")
    assert result.equal, [(d.trial_id, d.where) for d in result.different]


def test_t0_records_with_n_in_flight_against_the_sequential_run(server: LlamaServer, tmp_path: Path) -> None:
    """Where a server batches requests a greedy reply may depend on the batch: this measures whether it did, and
    says so in a warning (``SLMBENCH_SERVED_N`` sets N)."""
    _t0_shards(server, tmp_path, ("sequential", 1), ("in_flight", N))
    result = compare_shards(tmp_path / "sequential.jsonl", tmp_path / "in_flight.jsonl")
    assert not (result.only_left or result.only_right) and len(result.same) + len(result.different) == 4
    records = [r for _, r in iter_records(tmp_path / "in_flight.jsonl")]
    assert all(r.outcome != "infra_error" for r in records)
    if not result.equal:
        places = ", ".join(sorted({d.where for d in result.different}))
        warnings.warn(
            f"llama-server, T=0, {N} trials in flight: {len(result.different)} of 4 records differ from the "
            f"sequential run's (first at {places})",
            stacklevel=1,
        )
