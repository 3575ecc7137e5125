"""Each trial's role in the plan: primary (the primary condition's primary run) or one side of a comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from slmbench.config import ConfigError, StudyConfig, load_config, parse_config
from slmbench.run.key import ShardKey
from slmbench.run.roles import build_part, comparison, cpu_primary, primary

ROOT = Path(__file__).resolve().parents[3]


def config_with(**changes: Any) -> StudyConfig:
    data = load_config(ROOT / "config.yaml").model_dump()
    data.update(changes)
    return parse_config(data)


def trial(stem: str, model: str = "smollm2-135m", cpu: str = "AMD EPYC") -> dict[str, Any]:
    """A trial as tidy sees it: its condition as the shard's stem names it."""
    key = ShardKey.from_stem(model, stem)
    return {
        "model": model, "suite": key.suite, "temperature": key.temperature, "scaffold": key.scaffold,
        "parser_mode": key.mode, "protocol": key.protocol, "n_ctx": key.n_ctx, "max_turns": key.max_turns,
        "max_tokens": key.max_tokens, "rerun": key.rerun, "server": key.server, "cpu": cpu,
        "build": cpu if cpu is None or not cpu[0].isupper() else f"native/{cpu}", "perturbation": key.perturbation,
        "source_file": f"data/raw/slmbench/{model}/{stem}.jsonl",
    }  # fmt: skip


STEMS = [
    ("capability_T0_native_repaired_p-full", "Intel Xeon"),
    ("capability_T0_native_repaired_p-full_rerun-2", "AMD EPYC"),
    ("capability_T0_native_repaired", "AMD EPYC"),
    ("capability_T0.7_native_repaired_p-full", "AMD EPYC"),
    ("capability_T0_native_repaired_p-full_turns10", "AMD EPYC"),
    ("capability_T0_native_repaired_ctx1024_p-full", "AMD EPYC"),
    ("capability_T0_react_repaired_p-full-react", "AMD EPYC"),
    ("capability_T0_react_repaired", "AMD EPYC"),
    ("reliability_T0_native_repaired_p-full", "AMD EPYC"),
    ("null_control_T0_native_repaired_p-full", "AMD EPYC"),
    ("capability_T0_native_repaired_p-full_srv-llama-server", "AMD EPYC"),
]


def frame() -> pd.DataFrame:
    return pd.DataFrame([trial(stem, cpu=cpu) for stem, cpu in STEMS], index=[s for s, _ in STEMS])


def test_with_a_primary_cpu_the_primary_run_is_the_one_on_that_kind_of_cpu() -> None:
    got = primary(frame(), config_with(primary_build="native/AMD EPYC"))
    assert sorted(got[got].index) == [
        "capability_T0_native_repaired_p-full_rerun-2",  # the full protocol's run on AMD: a rerun
        "null_control_T0_native_repaired_p-full",
        "reliability_T0_native_repaired_p-full",
    ]


def test_without_a_primary_cpu_the_original_runs_at_the_study_temperatures_are_primary() -> None:
    got = primary(frame(), config_with(primary_build=None))
    assert sorted(got[got].index) == [
        "capability_T0_native_repaired_p-full",  # T0.7 is the sweep's, turns10 a limit's, rerun-2 a rerun
        "null_control_T0_native_repaired_p-full",
        "reliability_T0_native_repaired_p-full",
    ]


def test_the_cpu_primary_run_is_the_first_run_of_the_primary_condition_on_each_kind_of_cpu() -> None:
    """On the primary kind it is the primary run; on another kind, that kind's first run (here the original run
    on Intel); a served trial never, since it did not run on the model's own backend."""
    config = config_with(primary_build="native/AMD EPYC")
    got = cpu_primary(frame(), config)
    assert got[got].index.tolist() == [
        "capability_T0_native_repaired_p-full",
        "capability_T0_native_repaired_p-full_rerun-2",
        "reliability_T0_native_repaired_p-full",
        "null_control_T0_native_repaired_p-full",
    ]
    assert (primary(frame(), config) <= got).all()


def test_an_original_run_on_the_primary_cpu_comes_before_its_reruns() -> None:
    df = pd.DataFrame(
        [
            trial("capability_T0_native_repaired_p-full"),
            trial("capability_T0_native_repaired_p-full_rerun-2"),
            trial("capability_T0_native_repaired_p-full_rerun-3", cpu="Intel Xeon"),
        ]
    )
    assert primary(df, config_with(primary_build="native/AMD EPYC")).tolist() == [True, False, False]
    with pytest.raises(
        ConfigError,
        match=r"^config.yaml: primary_build: no trial of the primary condition ran on "
        r"'native/Apple M2' \(builds recorded: native/AMD EPYC, native/Intel Xeon\)",
    ):
        primary(df, config_with(primary_build="native/Apple M2"))


def test_without_a_configured_build_the_portable_build_with_most_primary_trials_is_primary() -> None:
    """The stated rule: a portable build (an identity) before native ones; the most trials of the primary
    condition; its first run (here the rerun labelled portable)."""
    df = pd.DataFrame(
        [
            trial("capability_T0_native_repaired_p-full"),
            trial("capability_T0_native_repaired_p-full_rerun-portable", cpu="0123456789abcdef"),
            trial("reliability_T0_native_repaired_p-full_rerun-portable", cpu="0123456789abcdef"),
            trial("capability_T0_native_repaired_p-full_rerun-other", cpu="fedcba9876543210"),
            trial("capability_T0_native_repaired_p-full_v-fault", cpu="0123456789abcdef"),
        ]
    )
    assert primary(df, config_with(primary_build=None)).tolist() == [False, True, True, False, False]


def test_a_suite_that_only_the_build_run_adds_is_not_the_primary_condition() -> None:
    df = pd.DataFrame(
        [
            trial("safety_T0_native_repaired_p-full_rerun-portable", cpu="0123456789abcdef"),
            trial("null_control_T0_native_repaired_p-full"),
        ]
    )
    config = config_with(primary_build=None)
    assert "safety" not in config.suites
    assert primary(df, config).tolist() == [False, True]
    assert cpu_primary(df, config).tolist() == [False, True]


def test_a_comparison_is_the_part_of_the_plan_its_shard_belongs_to() -> None:
    got = comparison(frame(), config_with()).dropna()
    assert got.to_dict() == {
        "capability_T0_native_repaired_ctx1024_p-full": "context",
        "capability_T0_react_repaired_p-full-react": "scaffold",  # the legacy ReAct shard is no longer planned
    }
    served = comparison(frame(), config_with(serving_comparison={"models": ["smollm2-135m"]})).dropna()
    assert served["capability_T0_native_repaired_p-full_srv-llama-server"] == "serving"


def test_a_served_trial_is_never_primary() -> None:
    """It runs the primary condition, but behind a server: one side of the serving comparison only."""
    config = config_with(serving_comparison={"models": ["smollm2-135m"]}, primary_build="native/AMD EPYC")
    for build in ("native/AMD EPYC", None):
        assert not primary(frame(), config_with(primary_build=build))[
            "capability_T0_native_repaired_p-full_srv-llama-server"
        ]
    assert primary(frame().drop(columns="server"), config).sum() == primary(frame(), config).sum()


def test_a_trial_of_the_runs_on_one_build_names_the_part_of_them_its_shard_belongs_to() -> None:
    """The primary condition, the samples above T = 0, a perturbation and another protocol, each under the build
    run's label; a trial of any other shard has none (the protocol study's rerun 2 among them)."""
    stems = [
        "capability_T0_native_repaired_p-full_rerun-portable",
        "capability_T0.7_native_repaired_p-full_rerun-portable",
        "capability_T0_native_repaired_p-full_rerun-portable_v-paraphrase",
        "capability_T0_native_repaired_p-legacy-kv-answer_rerun-portable",
        "capability_T0.7_native_repaired_p-full",
        "capability_T0_native_repaired_p-full_rerun-2",
    ]
    trials = pd.DataFrame([trial(stem) for stem in stems], index=stems)
    run = {"label": "portable", "sampling": {"temperature": 0.7, "repeats": 5}, "perturbations": ["paraphrase"],
           "protocols": ["legacy-kv-answer"]}  # fmt: skip
    got = build_part(trials, config_with(build_run=run))
    assert got.tolist()[:4] == ["primary", "sampling", "perturbation", "protocol"]
    assert got.iloc[4:].isna().all()
    assert build_part(trials, config_with(build_run=None)).isna().all()


def test_build_run_marks_the_shards_of_the_runs_on_one_build() -> None:
    from slmbench.run.roles import build_run

    stems = [
        "capability_T0_native_repaired_p-full_rerun-portable",
        "capability_T0_native_repaired_p-full_rerun-portable_v-paraphrase",
        "capability_T0_native_repaired_p-full_rerun-portable_v-fault",
        "safety_T0_native_repaired_p-full_rerun-portable",
        "capability_T0_native_repaired_p-full_rerun-2",  # the protocol study's rerun: another part
        "capability_T0_native_repaired_p-full",
    ]
    df = pd.DataFrame([trial(s) for s in stems], index=stems)
    run = {"label": "portable", "suites": ["capability", "safety"], "perturbations": ["paraphrase", "fault"]}
    got = build_run(df, config_with(build_run=run))
    assert sorted(got[got].index) == sorted(stems[:4])
    assert not build_run(df, config_with(build_run=None)).any()
