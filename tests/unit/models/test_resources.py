"""A trial shard's threads, memory and wall time, derived from its model (no model is loaded)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.fixtures.shard_runs import scripted_run

from slmbench.config import ModelSpec, load_config
from slmbench.models import resources as res
from slmbench.run.runner import trials

ROOT = Path(__file__).resolve().parents[3]
CONFIG = load_config(ROOT / "config.yaml")
SMOLLM = CONFIG.models["smollm2-135m"]
QWEN15 = CONFIG.models["qwen2.5-coder-1.5b"]
MB = 2**20


def write_gguf(
    path: Path, *, layers: int = 4, heads: int = 8, kv_heads: int = 2, embd: int = 256, vocab: int = 1000
) -> Path:
    """A tiny GGUF file written by the reference writer (the ``gguf`` package), with one small tensor."""
    from gguf import GGUFWriter

    writer = GGUFWriter(str(path), "llama")
    writer.add_name("tiny")
    writer.add_block_count(layers)
    writer.add_embedding_length(embd)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_token_list([f"t{i}" for i in range(vocab)])
    writer.add_tensor("w", np.zeros((64, 64), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def spec(params_b: float = 0.135, backend: str = "llamacpp", n_ctx: int = 4096) -> ModelSpec:
    return SMOLLM.model_copy(update={"params_b": params_b, "backend": backend, "n_ctx": n_ctx})


def write_shard(path: Path, walls: list[float], rss: float = 300.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"events": [{"type": "model_request"}, {"type": "end", "wall_s": w, "peak_rss_mb": rss}]})
        for w in walls
    ]
    path.write_text("\n".join(lines) + "\n")


def test_the_header_reader_reads_what_the_reference_writer_wrote(tmp_path):
    path = write_gguf(tmp_path / "m.gguf", layers=5, heads=8, kv_heads=2, embd=256, vocab=1234)
    meta = res.gguf_header(path)
    assert meta["general.architecture"] == "llama"
    assert meta["general.name"] == "tiny"
    assert meta["llama.block_count"] == 5
    assert meta["tokenizer.ggml.tokens"] == 1234  # an array is read as its length
    shape = res.model_shape(path)
    assert (shape.n_layer, shape.n_head_kv, shape.key_length, shape.value_length) == (5, 2, 32, 32)
    assert shape.n_vocab == 1234
    assert shape.file_mb == pytest.approx(path.stat().st_size / MB)


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(res.GGUFHeaderError):
        res.gguf_header(bad)


def test_the_kv_cache_is_layers_times_context_times_kv_heads_times_head_size_in_f16(tmp_path):
    shape = res.model_shape(write_gguf(tmp_path / "m.gguf", layers=4, heads=8, kv_heads=2, embd=256))
    # K and V: 4 layers x 4096 tokens x 2 heads x (32 + 32) dims x 2 bytes
    assert shape.kv_cache_mb(4096) == pytest.approx(4 * 4096 * 2 * 64 * 2 / MB)
    assert shape.kv_cache_mb(1024) == pytest.approx(shape.kv_cache_mb(4096) / 4)


def test_memory_is_the_weights_twice_plus_kv_cache_logits_and_base_rounded_up(tmp_path):
    path = write_gguf(tmp_path / "m.gguf", vocab=50_000)
    shape = res.model_shape(path)
    want = 2 * shape.file_mb + shape.kv_cache_mb(4096) + shape.logits_mb + res.BASE_MB
    got = res.model_mem_mb(spec(), 4096, path)
    assert got % 256 == 0 and want <= got < want + 256
    assert res.model_mem_mb(spec(), 1024, path) <= got


def test_memory_is_at_least_the_measured_peak_with_headroom(tmp_path):
    path = write_gguf(tmp_path / "m.gguf")
    seen = res.Measured(seconds_per_trial=5.0, peak_rss_mb=4000.0, n_trials=10)
    assert res.model_mem_mb(spec(), None, path, seen) >= res.RSS_HEADROOM * 4000


def test_without_the_file_the_parameter_count_stands_in_and_a_server_model_needs_only_the_base(tmp_path):
    small = res.model_mem_mb(spec(params_b=0.5), None, tmp_path / "absent.gguf")
    large = res.model_mem_mb(spec(params_b=1.5), None, tmp_path / "absent.gguf")
    assert large - small >= 2 * 1024 - 256
    assert res.model_mem_mb(spec(backend="ollama"), None, None) == res.BASE_MB


def test_threads_grow_with_the_model_up_to_the_cap():
    assert res.model_threads(spec(params_b=0.135)) == 2
    assert res.model_threads(spec(params_b=0.5)) == 2
    assert res.model_threads(spec(params_b=1.54)) == 4
    assert res.model_threads(spec(params_b=7.0)) == res.MAX_THREADS
    assert res.model_threads(spec(backend="ollama")) == 1


def test_speed_is_the_mean_of_the_slowest_recorded_shard_and_peak_rss_the_largest(tmp_path):
    write_shard(tmp_path / "m" / "a.jsonl", [1.0, 1.0, 100.0], rss=500.0)  # mean 34: one slow trial counts
    write_shard(tmp_path / "m" / "b.jsonl", [10.0, 10.0], rss=700.0)
    seen = res.measured(tmp_path, "m")
    assert seen == res.Measured(seconds_per_trial=34.0, peak_rss_mb=700.0, n_trials=5)
    assert res.measured(tmp_path, "other") is None


def test_runtime_is_load_plus_safety_times_trials_times_seconds_with_a_floor():
    assert res.shard_runtime_min(100, 30.0) == -(-(res.LOAD_S + res.SAFETY * 100 * 30) // 60)
    assert res.shard_runtime_min(1, 1.0) == res.MIN_RUNTIME_MIN
    assert res.shard_runtime_min(100, 30.0, scale=2.0) > res.shard_runtime_min(100, 30.0)


def test_the_trial_count_is_what_slmbench_run_plans():
    for suite, tasks, repeats in [
        ("capability", (), 1),
        ("reliability", (), 1),
        ("capability", ("DA-1",), 3),
    ]:
        shard = scripted_run(suite, repeats=repeats, tasks=tasks)
        assert res.count_trials(suite, tasks, repeats) == len(trials(shard))


def test_a_model_without_records_falls_back_to_the_trial_budget(tmp_path):
    got = res.shard_resources(
        "smollm2-135m", spec(), suite="capability", tasks=("DA-1", "SCH-1", "COM-1"),
        trial_budget_s=300.0, raw_dir=tmp_path, gguf=None,
    )  # fmt: skip
    assert (got.n_trials, got.seconds_per_trial, got.measured) == (3, 300.0, False)
    assert got.runtime_min == res.shard_runtime_min(3, 300.0)


def test_every_committed_primary_shard_fits_what_its_rule_asks_for_now():
    """The shards under data/raw ran in less time and memory than the derived request (no model loaded)."""
    raw = ROOT / "data" / "raw" / "slmbench"
    checked = 0
    for model, model_spec in CONFIG.models.items():
        for suite in CONFIG.suites:
            shard = raw / model / f"{suite}_T0_{CONFIG.scaffold}_{CONFIG.parser_mode}.jsonl"
            if not shard.exists():
                continue
            ends = [
                next(e for e in json.loads(line)["events"] if e["type"] == "end")
                for line in shard.read_text().splitlines()
            ]
            got = res.shard_resources(
                model, model_spec, suite=suite, trial_budget_s=CONFIG.trial_budget_s, raw_dir=raw, gguf=None
            )
            assert got.n_trials == len(ends), shard
            assert got.runtime_min * 60 > sum(e["wall_s"] for e in ends), shard
            assert got.mem_mb > max(e["peak_rss_mb"] for e in ends), shard
            checked += 1
    if checked == 0:
        pytest.skip("no committed primary shards")


def test_the_backend_uses_the_cpus_the_process_may_run_on():
    """Under SLURM that is the job's allocation (its CPU affinity), not the node's CPU count."""
    import os

    from slmbench.backends.llamacpp_backend import usable_cpus

    assert 1 <= usable_cpus() <= (os.cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        assert usable_cpus() == len(os.sched_getaffinity(0))


def test_each_served_model_has_a_resource_limited_to_its_concurrency() -> None:
    """A served model's shards claim its concurrency of a resource of its own, whose limit is that concurrency:
    its trials in flight never exceed it across shards. A model run in this process has none."""
    from slmbench.config import parse_config

    served = {"backend": "openai", "base_url": "http://h:1/v1", "served_model": "q", "params_b": 7.0}
    data = CONFIG.model_dump()
    data["models"] = {
        "smollm2-135m": data["models"]["smollm2-135m"],
        "qwen2.5-7b": {**served, "instruct": True, "concurrency": 4},
        "tag": {"backend": "ollama", "params_b": 1.0, "instruct": True},
    }
    for block in ("serving_comparison", "eligibility", "build_run"):
        data.pop(block)
    config = parse_config(data)
    assert res.served_limits(config) == {"served_qwen2_5_7b": 4, "served_tag": 1}
    assert res.served_resource("qwen2.5-7b") == "served_qwen2_5_7b"
