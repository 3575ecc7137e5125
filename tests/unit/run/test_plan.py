"""The shard plan: every shard config.yaml asks for, once, under the config's protocol, with its repeats and tasks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from slmbench.config import ConfigError, StudyConfig, load_config, parse_config
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard, plan_shards, resources, selected_tasks, shard_for, shard_key
from slmbench.run.runner import ShardRun, run_settings

ROOT = Path(__file__).resolve().parents[3]
RAW = ROOT / "data" / "raw" / "slmbench"


def config_with(**changes: Any) -> StudyConfig:
    data = load_config(ROOT / "config.yaml").model_dump()
    data.update(changes)
    return parse_config(data)


def stems(config: StudyConfig, model: str) -> dict[str, Shard]:
    return {s.key.stem(): s for s in plan_shards(config) if s.key.model == model}


def test_the_plan_names_only_committed_shards() -> None:
    config = load_config(ROOT / "config.yaml")
    planned = plan_shards(config)
    missing = [s.key.name for s in planned if not (RAW / f"{s.key.name}.jsonl").exists()]
    assert planned and missing == []
    assert len({s.key.name for s in planned}) == len(planned)
    qwen = stems(config, "qwen2.5-coder-1.5b")
    wanted = {
        "capability_T0_native_repaired_p-full": (["primary", "protocol"], 3),
        "reliability_T0_native_repaired_p-full": (["primary"], 3),
        "null_control_T0_native_repaired_p-full": (["null_control"], 2),
        "capability_T0_react_repaired_p-full-react": (["scaffold"], 1),
        "capability_T0_native_repaired_ctx1024_p-full": (["context"], 1),
        "capability_T0_native_repaired": (["protocol"], 1),  # the legacy baseline of the protocol study
        "capability_T0_native_repaired_p-full_rerun-2": (["protocol"], 1),
        "capability_T0.3_native_repaired_p-full": (["protocol"], 3),
    }
    assert {k: (sorted(qwen[k].kinds), qwen[k].repeats) for k in wanted} == wanted
    assert qwen["null_control_T0_native_repaired_p-full"].tasks == ("IR-1", "SCH-1", "DA-1", "COM-1", "COD-1")
    gemma = stems(config, "gemma3-270m")
    assert not [k for k in gemma if k.startswith(("capability_T0.3", "capability_T0.7", "capability_T1"))]


def test_under_the_legacy_protocol_the_baseline_is_the_primary_shard_and_comparisons_take_their_own_protocol() -> (
    None
):
    config = config_with(protocol="legacy", repeats=1)
    plan = stems(config, "smollm2-135m")
    assert sorted(plan["capability_T0_native_repaired"].kinds) == ["primary"]  # the baseline is the primary
    assert "reliability_T0_native_repaired" in plan and "null_control_T0_native_repaired" in plan
    assert "capability_T0_react_repaired_p-full-react" in plan  # the comparison's own protocol
    assert "capability_T0_native_repaired_ctx1024" in plan
    no_protocol = config_with(protocol="legacy", repeats=1, scaffold_comparison={"scaffolds": ["react"]})
    assert "capability_T0_react_repaired" in stems(no_protocol, "smollm2-135m")
    with pytest.raises(ConfigError, match=r"not defined under `protocols`"):
        config_with(scaffold_comparison={"scaffolds": ["react"], "protocol": "nope"})


def test_every_part_is_named_for_the_full_protocol_and_a_shared_shard_is_planned_once() -> None:
    config = config_with(protocol="full", repeats=3)
    plan = stems(config, "smollm2-135m")
    for stem in (
        "capability_T0_native_repaired_p-full",
        "reliability_T0_native_repaired_p-full",
        "null_control_T0_native_repaired_p-full",
        "capability_T0_react_repaired_p-full-react",
        "capability_T0_native_repaired_ctx1024_p-full",
        "capability_T0_native_repaired_p-full_rerun-2",
        "capability_T0_native_repaired_p-full-no-answer",
    ):
        assert stem in plan, stem
    assert [s for s in plan if "_p-" not in s] == ["capability_T0_native_repaired"]  # the legacy baseline
    shared = plan["capability_T0_native_repaired_p-full"]
    assert shared.kinds == {"primary", "protocol"} and shared.repeats == 3
    assert [s.key.stem() for s in plan_shards(config)].count("capability_T0_native_repaired_p-full") == 4
    with pytest.raises(ConfigError) as info:
        plan_shards(config_with(protocol="full", repeats=1))
    assert str(info.value) == (
        "config.yaml: repeats (1) and protocol_study.repeats (3) both plan shard"
        " smollm2-135m/capability_T0_native_repaired_p-full (primary and protocol) with other repeats: make them"
        " equal"
    )


def test_an_ablation_that_is_the_primary_protocol_plans_its_shard_once_or_names_both_fields() -> None:
    """An ablation runs once: as the primary protocol, its shard is the primary one, whose repeats must agree."""
    config = config_with(protocol="full-no-stuck", repeats=1, tasks={"capability": ["DA-1"]})
    assert "capability_T0_native_repaired_p-full-no-stuck" in stems(config, "smollm2-135m")
    with pytest.raises(ConfigError) as info:
        plan_shards(config_with(protocol="full-no-stuck", repeats=2))
    assert str(info.value).startswith(
        "config.yaml: repeats (2) and protocol_study.ablation (each runs once) (1) both plan shard "
    )


def test_tasks_are_selected_per_suite_or_for_all_suites() -> None:
    config = config_with(tasks={"capability": ["IR-1", "DA-1"]})
    assert selected_tasks(config, "capability") == ("IR-1", "DA-1")
    assert selected_tasks(config, "reliability") == ()
    plan = stems(config, "smollm2-135m")
    assert plan["capability_T0_native_repaired_p-full"].tasks == ("IR-1", "DA-1")
    assert plan["capability_T0_native_repaired"].tasks == ("IR-1", "DA-1")  # the legacy baseline too
    assert plan["reliability_T0_native_repaired_p-full"].tasks == ()
    assert selected_tasks(config_with(tasks=["REL-CON-1"]), "reliability") == ("REL-CON-1",)
    with pytest.raises(
        ConfigError,
        match=r"^config.yaml: tasks.capability: 'REL-CON-1' is not a task of suite capability: remove it "
        r"\(`slmbench tasks list --suite capability` lists the suite's tasks\)$",
    ):
        plan_shards(config_with(tasks={"capability": ["REL-CON-1"]}))
    with pytest.raises(
        ConfigError, match=r"^config.yaml: tasks: 'IR-1' is not a task of suite reliability: "
    ):
        plan_shards(config_with(tasks=["IR-1"]))  # one list for both suites: valid for capability only
    with pytest.raises(ConfigError, match="null_control.tasks: 'NOPE-1' is not a task of suite capability"):
        plan_shards(config_with(null_control={"tasks": ["NOPE-1"], "reruns": 2}))
    with pytest.raises(ConfigError, match="field 'tasks"):
        config_with(tasks={"security": ["IR-1"]})


def test_comparisons_plan_other_scaffolds_and_windows_only() -> None:
    with pytest.raises(ConfigError, match="'native' is the primary scaffold"):
        config_with(scaffold_comparison={"scaffolds": ["native"]})
    plan = stems(config_with(context_comparison={"n_ctx": [1024, 4096]}), "smollm2-135m")
    assert [s for s in plan if "_ctx" in s] == [
        "capability_T0_native_repaired_ctx1024_p-full"
    ]  # 4096: configured
    with pytest.raises(ConfigError, match="at least 256"):
        config_with(context_comparison={"n_ctx": [100]})


SERVED = {"models": ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"], "server": "llama-server", "repeats": 1}


def test_the_serving_comparison_plans_one_shard_per_listed_model_under_the_primary_protocol() -> None:
    config = config_with(serving_comparison=SERVED)
    for model in SERVED["models"]:
        plan = stems(config, model)
        shard = plan["capability_T0_native_repaired_p-full_srv-llama-server"]
        assert (shard.kinds, shard.repeats, shard.key.temperature) == ({"serving"}, 1, 0.0)
        assert len([s for s in plan if "_srv-" in s]) == 1
    assert not [s for s in stems(config, "smollm2-135m") if "_srv-" in s]  # not listed: not served
    legacy = stems(config_with(serving_comparison=SERVED, protocol="legacy", repeats=1), "qwen2.5-coder-0.5b")
    assert "capability_T0_native_repaired_srv-llama-server" in legacy  # the primary protocol, whichever it is


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (["nope"], "serving_comparison.models: 'nope' is not a model of this study"),
        (["smollm2-135m", "smollm2-135m"], "models are named once each"),
        ([], "at least 1 item"),
    ],
)
def test_the_serving_comparison_takes_embedded_models_once_each(models: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_with(serving_comparison={"models": models})


def test_a_model_with_a_chat_format_of_its_own_cannot_be_served() -> None:
    config = config_with(serving_comparison={"models": ["gemma3-270m"], "repeats": 1})
    planned = stems(config, "gemma3-270m")["capability_T0_native_repaired_p-full_srv-llama-server"]
    with pytest.raises(ConfigError, match="own chat template"):
        run_settings(config, planned)


def test_a_serving_shard_runs_the_in_process_models_settings_and_records_its_server() -> None:
    config = config_with(serving_comparison=SERVED)
    key = shard_key(config, "qwen2.5-coder-0.5b", "capability", 0.0, server="llama-server")
    settings = run_settings(config, shard_for(config, key))
    assert settings.serving is not None and settings.concurrency == 1
    assert settings.serving["server"] == "llama-server" and settings.serving["in_process_model"] == key.model
    assert settings.serving["n_ctx"] == config.models[key.model].n_ctx and settings.serving["parallel"] == 1
    assert settings.serving["request"] == {
        "cache_prompt": False,
        "verbose": True,
        "response_fields": ["content"],
    }
    assert run_settings(config, shard_for(config, dataclasses.replace(key, server=None))).serving is None


def test_a_rerun_is_planned_once_per_model_and_label() -> None:
    """The protocol study's reruns (the runs on one build, ``build_run``, have a label of their own)."""
    config = load_config(ROOT / "config.yaml")
    reruns = [s for s in plan_shards(config) if s.key.rerun and "protocol" in s.kinds]
    assert sorted(s.key.model for s in reruns) == sorted(config.models)
    assert {(s.key.protocol, s.repeats, s.key.temperature) for s in reruns} == {("full", 1, 0.0)}
    data = config.model_dump()
    data["protocol_study"]["reruns"] = ["Second run"]
    with pytest.raises(ConfigError, match="rerun labels"):
        parse_config(data)


def test_a_key_by_hand_leaves_the_studys_own_settings_out_and_an_unplanned_shard_gets_the_studys_plan() -> (
    None
):
    config = load_config(ROOT / "config.yaml")
    key = shard_key(
        config, "smollm2-135m", "capability", 0.0, protocol="legacy", n_ctx=4096, max_turns=5, max_tokens=512
    )
    assert key.stem() == "capability_T0_native_repaired_tok512"
    assert shard_for(config, key) == Shard(key, config.repeats, ())
    planned = shard_for(config, ShardKey.from_name("smollm2-135m/null_control_T0_native_repaired_p-full"))
    assert planned.kinds == {"null_control"} and planned.repeats == 2
    by_hand = shard_for(config, ShardKey.from_name("smollm2-135m/null_control_T0_native_repaired"))
    assert (by_hand.repeats, by_hand.tasks, by_hand.kinds) == (2, planned.tasks, frozenset())
    with pytest.raises(
        ConfigError, match="study's own setting: its name is smollm2-135m/capability_T0_native_repaired$"
    ):
        shard_for(config, ShardKey.from_name("smollm2-135m/capability_T0_native_repaired_turns5"))
    with pytest.raises(ConfigError, match="unknown protocol 'nope'"):
        shard_key(config, "smollm2-135m", "capability", 0.0, protocol="nope")
    with pytest.raises(ConfigError, match="not a shard name"):
        shard_key(config, "smollm2-135m", "capability", 0.0, rerun="Two")


def test_resources_scale_with_the_shards_trials_and_limits(tmp_path: Path) -> None:
    config = load_config(ROOT / "config.yaml")
    base = shard_for(config, shard_key(config, "smollm2-135m", "capability", 0.0, protocol="full"))
    longer = shard_for(
        config, shard_key(config, "smollm2-135m", "capability", 0.0, protocol="full", max_turns=10)
    )
    a, b = resources(config, base, tmp_path), resources(config, longer, tmp_path)
    assert a.n_trials == 3 * b.n_trials == 93
    assert b.runtime_min > resources(config, Shard(longer.key, 1), tmp_path).runtime_min // 2


def _captured(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> tuple[Any, ShardRun | None]:
    from slmbench.cli import main

    seen: dict[str, Any] = {}

    def fake_run_shard(shard: ShardRun, factory: Any, out: Path, *_: Any, **__: Any) -> int:
        seen["run"], seen["out"] = shard, out
        return 0

    monkeypatch.setattr("slmbench.run.cli.run_shard", fake_run_shard)
    result = CliRunner().invoke(main, ["run", "--config", str(ROOT / "config.yaml"), *args])
    return result, seen.get("run")


def test_the_command_takes_a_shard_name_or_builds_the_same_key_by_hand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = ["--out", str(tmp_path / "x.jsonl"), "--no-progress"]
    named, by_name = _captured(
        monkeypatch, ["--shard", "gemma3-270m/capability_T0_native_repaired_p-full", *out]
    )
    hand, by_hand = _captured(
        monkeypatch,
        ["--model", "gemma3-270m", "--suite", "capability", "--temperature", "0", "--protocol", "full", *out],
    )
    assert named.exit_code == hand.exit_code == 0, named.output + hand.output
    assert by_name is not None and by_name == by_hand
    assert (by_name.shard.repeats, by_name.max_turns, by_name.conditions.answer_channel) == (3, 5, True)
    one, narrowed = _captured(
        monkeypatch,
        ["--shard", "gemma3-270m/null_control_T0_native_repaired", "--tasks", "IR-1", "--repeats", "1", *out],
    )
    assert one.exit_code == 0 and narrowed is not None
    assert (narrowed.key.suite, narrowed.shard.tasks, narrowed.shard.repeats) == (
        "null_control",
        ("IR-1",),
        1,
    )
    both, _ = _captured(
        monkeypatch, ["--shard", "gemma3-270m/capability_T0_native_repaired", "--model", "x", *out]
    )
    assert both.exit_code != 0 and "drop --model" in both.output
    bad, _ = _captured(monkeypatch, ["--shard", "gemma3-270m/capability_T0_native", *out])
    assert bad.exit_code != 0 and "not a shard name" in bad.output
    unknown, _ = _captured(monkeypatch, ["--shard", "nope/capability_T0_native_repaired", *out])
    assert unknown.exit_code != 0 and "unknown model 'nope'" in unknown.output


def test_concurrency_is_for_served_models_only() -> None:
    own = {"path": "~/models/mine.gguf", "sha256": "ab" * 32}
    served = {"backend": "openai", "base_url": "http://127.0.0.1:8080/v1", "served_model": "qwen"}
    model = {"params_b": 0.5, "instruct": True}
    empty = {"eligibility": None, "protocol_study": None, "null_control": None, "serving_comparison": None,
             "build_run": None}  # fmt: skip
    in_process = config_with(
        models={"m": {**model, "backend": "llamacpp", "weights": own, "concurrency": 4}}, **empty
    )
    with pytest.raises(ConfigError) as info:
        plan_shards(in_process)
    assert str(info.value) == (
        "config.yaml: models.m.concurrency: concurrency 4 needs a served backend (ollama, openai); "
        "backend llamacpp runs the model in this process, one trial at a time"
    )
    with pytest.raises(ConfigError, match="models.m.concurrency"):
        shard_for(in_process, ShardKey("m", "capability", 0.0, "native", "repaired"))
    four = config_with(models={"m": {**model, **served, "concurrency": 4}}, **empty)
    assert plan_shards(four) and {s.key.model for s in plan_shards(four)} == {"m"}


def test_the_samples_on_one_build_are_planned_for_instruction_tuned_models_as_their_own_part() -> None:
    run = {"label": "portable", "sampling": {"temperature": 0.7, "repeats": 5}}
    config = config_with(build_run=run)
    sampled = [s for s in plan_shards(config) if s.build_part == "sampling"]
    instruct = sorted(m for m, spec in config.models.items() if spec.instruct)
    assert sorted(s.key.model for s in sampled) == instruct
    assert {(s.key.stem(), s.repeats, frozenset(s.kinds)) for s in sampled} == {
        ("capability_T0.7_native_repaired_p-full_rerun-portable", 5, frozenset({"build_run"}))
    }
    primary = [s for s in plan_shards(config) if s.build_part == "primary"]
    assert {s.key.stem() for s in primary} == {"capability_T0_native_repaired_p-full_rerun-portable"}
