"""A shard's key: its stem and its trials' ids, and the committed shards' names and ids written by it exactly."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from slmbench.run.key import STEM_PATTERN, ShardKey

ROOT = Path(__file__).resolve().parents[3]
RAW = ROOT / "data" / "raw" / "slmbench"
COMMITTED = sorted(RAW.glob("*/*.jsonl"))


@pytest.mark.parametrize(
    ("stem", "tags"),
    [
        ("capability_T0_native_repaired", "/native/repaired/r0"),
        ("null_control_T0_native_repaired_p-full", "/native/repaired/p-full/r0"),
        ("capability_T0.3_react_strict_ctx1024_p-full-no-stuck", "/react/strict/ctx1024/p-full-no-stuck/r0"),
        (
            "reliability_T1_native_repaired_ctx2048_p-full_turns10_tok512_rerun-amd-2",
            "/native/repaired/ctx2048/p-full/turns10/tok512/rerun-amd-2/r0",
        ),
        ("capability_T0_native_repaired_turns10", "/native/repaired/turns10/r0"),
        (
            "capability_T0_native_repaired_p-full_srv-llama-server",
            "/native/repaired/p-full/srv-llama-server/r0",
        ),
        (
            "capability_T0_native_repaired_ctx1024_rerun-2_srv-llama-server",
            "/native/repaired/ctx1024/rerun-2/srv-llama-server/r0",
        ),
    ],
)
def test_a_stem_and_a_trial_id_carry_the_same_tags_in_the_same_order(stem: str, tags: str) -> None:
    key = ShardKey.from_stem("m", stem)
    assert key.stem() == stem and key.name == f"m/{stem}"
    suite, temperature = stem.split("_T")[0], stem.split("_T")[1].split("_")[0]
    assert key.trial_id("IR-1", "original", 0) == f"slmbench/m/{suite}/IR-1/original/T{temperature}{tags}"


@pytest.mark.parametrize(
    "stem",
    [
        "capability_T0.0_native_repaired",  # the temperature is written as few digits as it needs
        "capability_T0_native_repaired_p-legacy",  # the first dataset's protocol has no tag
        "capability_T0_native_repaired_turns10_p-full",  # tags in their order only
        "security_T0_native_repaired",  # no such suite
        "capability_T0_native_repaired_ctx01",
        "capability_T0_native_repaired_rerun-Two",
        "capability_T0_native_repaired_srv-vllm",  # a server the runner does not start
        "capability_T0_native_repaired_srv-llama-server_p-full",  # the server's tag comes last
    ],
)
def test_a_name_the_key_would_not_write_is_a_one_line_error(stem: str) -> None:
    with pytest.raises(
        ValueError, match=f"^shard m/{stem}: not a shard name of the form <suite>_T<t>_"
    ) as info:
        ShardKey.from_stem("m", stem)
    assert "\n" not in str(info.value)


def test_a_serving_shard_differs_from_the_in_process_shard_only_by_its_server() -> None:
    served = ShardKey.from_name("qwen2.5-coder-0.5b/capability_T0_native_repaired_p-full_srv-llama-server")
    own = ShardKey.from_name("qwen2.5-coder-0.5b/capability_T0_native_repaired_p-full")
    assert served.server == "llama-server" and own.server is None
    assert served != own and dataclasses.replace(served, server=None) == own
    assert served.trial_id("IR-1", "original", 1) != own.trial_id("IR-1", "original", 1)


def test_the_null_control_runs_capability_tasks_under_its_own_suite() -> None:
    key = ShardKey.from_name("qwen2.5-coder-0.5b/null_control_T0_native_repaired")
    assert (key.model, key.suite, key.task_suite) == ("qwen2.5-coder-0.5b", "null_control", "capability")
    with pytest.raises(ValueError, match="expected <model>/<stem>"):
        ShardKey.from_name("null_control_T0_native_repaired")


def test_the_stem_pattern_is_the_keys_language() -> None:
    import re

    assert re.fullmatch(STEM_PATTERN, "capability_T0.7_native_repaired_p-full")
    assert not re.fullmatch(STEM_PATTERN, "capability_T0.7_native_repaired.part")
    assert re.compile(STEM_PATTERN).groups == 0  # Snakemake wraps it in a group of its own


@pytest.mark.skipif(not COMMITTED, reason="needs the committed shards")
def test_every_committed_shard_keeps_its_file_name_and_its_trial_ids() -> None:
    """The key writes each committed file's stem, and the id of each of its trials, exactly as they are."""
    for path in COMMITTED:
        key = ShardKey.from_stem(path.parent.name, path.stem)
        assert key.stem() == path.stem
        for line in path.read_text().splitlines():
            record = json.loads(line)
            assert (
                key.trial_id(record["task_id"], record["variant"], record["repeat"]) == record["trial_id"]
            ), path
