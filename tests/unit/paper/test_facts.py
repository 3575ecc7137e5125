"""The study's facts: which models ran, and which planned parts the records hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from slmbench.config import load_config, parse_config
from slmbench.paper.facts import study_facts
from slmbench.run.key import ShardKey

ROOT = Path(__file__).resolve().parents[3]
CONFIG = load_config(ROOT / "config.yaml")


def trial(model: str, stem: str, cpu: str = "AMD EPYC") -> dict[str, Any]:
    key = ShardKey.from_stem(model, stem)
    return {
        "study": "slmbench", "model": model, "suite": key.suite, "temperature": key.temperature,
        "scaffold": key.scaffold, "parser_mode": key.mode, "protocol": key.protocol, "n_ctx": key.n_ctx,
        "max_turns": key.max_turns, "max_tokens": key.max_tokens, "rerun": key.rerun, "server": key.server,
        "cpu": cpu, "source_file": f"data/raw/slmbench/{model}/{stem}.jsonl",
    }  # fmt: skip


def test_models_are_the_configured_ones_smallest_first() -> None:
    facts = study_facts(CONFIG, pd.DataFrame([trial("smollm2-135m", "capability_T0_native_repaired_p-full")]))
    assert [m.name for m in facts.models] == [
        "smollm2-135m",
        "gemma3-270m",
        "qwen2.5-coder-0.5b",
        "qwen2.5-coder-1.5b",
    ]
    assert [m.name for m in facts.base] == ["gemma3-270m"] and facts.largest.name == "qwen2.5-coder-1.5b"
    assert (
        facts.model("gemma3-270m").slug == "gemma3-270m"
        and facts.model("qwen2.5-coder-0.5b").slug == "qwen2-5-coder-0-5b"
    )
    assert all(m.pypi for m in facts.models)


def test_a_part_ran_only_when_its_planned_shards_have_records() -> None:
    frame = pd.DataFrame(
        [
            trial("smollm2-135m", "capability_T0_native_repaired_p-full", cpu="Intel"),
            trial("smollm2-135m", "capability_T0_native_repaired_p-full_rerun-2"),
            trial("smollm2-135m", "capability_T0_native_repaired"),
            trial("gemma3-270m", "capability_T0_react_repaired_p-full-react"),
            trial("smollm2-135m", "capability_T0_native_repaired_p-unplanned"),
        ]
    )
    from slmbench.config import parse_config

    config = parse_config({**CONFIG.model_dump(), "primary_build": "native/AMD EPYC"})
    facts = study_facts(config, frame, eligibility=True)
    assert facts.ran == {"capability", "protocol", "rerun", "legacy", "scaffold", "eligibility"}
    assert {"reliability", "context", "null_control", "serving", "ablation", "sweep", "external"} <= set(
        facts.not_run
    )
    assert facts.cpus["rerun"] == ("AMD EPYC",) and facts.cpus["protocol"] == ("Intel",)
    assert facts.cpus["primary"] == ("AMD EPYC",)  # primary_build: the rerun on that build
    assert facts.has("capability", "legacy") and not facts.has("capability", "context")


def test_a_study_without_comparisons_plans_none() -> None:
    data = CONFIG.model_dump()
    for part in ("protocol_study", "scaffold_comparison", "context_comparison", "serving_comparison", "null_control",
                 "eligibility", "primary_build", "build_run"):  # fmt: skip
        data[part] = None
    data["suites"] = ["capability"]
    from slmbench.config import parse_config

    config = parse_config(data)
    facts = study_facts(config, pd.DataFrame([trial("smollm2-135m", "capability_T0_native_repaired_p-full")]))
    assert facts.planned == {"capability", "external"} and facts.ran == {"capability"}
    assert facts.not_run == ("external",)
    data["published_studies"] = []  # absent: not planned, so the text says nothing of it
    facts = study_facts(
        parse_config(data), pd.DataFrame([trial("smollm2-135m", "capability_T0_native_repaired_p-full")])
    )
    assert facts.planned == {"capability"} and facts.not_run == ()
    with pytest.raises(KeyError, match="unknown part"):
        facts.has("protocols")  # type: ignore[arg-type]


def test_the_protocol_study_names_come_from_the_config() -> None:
    facts = study_facts(CONFIG, pd.DataFrame([trial("smollm2-135m", "capability_T0_native_repaired_p-full")]))
    assert (facts.cmp, facts.reruns, facts.legacy) == ("full", ("2",), "legacy")
    assert facts.five_conditions and set(facts.conditions) == {
        "canonical_history", "stuck_detection", "answer_channel", "closing_turn", "clean_kv",
    }  # fmt: skip
    data = CONFIG.model_dump()
    data["protocol_study"] = None
    data["protocol"] = "full-no-stuck"
    data["scaffold_comparison"] = None
    from slmbench.config import parse_config

    other = study_facts(
        parse_config(data), pd.DataFrame([trial("smollm2-135m", "capability_T0_native_repaired_p-full")])
    )
    assert other.cmp == "full-no-stuck" and other.reruns == () and not other.five_conditions


def test_a_part_records_which_models_ran_it() -> None:
    frame = pd.DataFrame(
        [
            trial("qwen2.5-coder-0.5b", "capability_T0_native_repaired_p-full_srv-llama-server"),
            trial("smollm2-135m", "capability_T0_native_repaired_p-full"),
        ]
    )
    facts = study_facts(CONFIG, frame)
    assert facts.ran_models["serving"] == ("qwen2.5-coder-0.5b",) and facts.has("serving")
    assert facts.ran_models["capability"] == ("smollm2-135m",) and facts.ran_models["context"] == ()


def test_the_runs_on_one_build_are_parts_by_perturbation_and_safety_suite() -> None:
    data = CONFIG.model_dump()
    data["build_run"] = {
        "label": "portable",
        "suites": ["capability", "safety"],
        "perturbations": ["paraphrase", "fault"],
    }
    config = parse_config(data)
    stems = ["capability_T0_native_repaired_p-full_rerun-portable",
             "capability_T0_native_repaired_p-full_rerun-portable_v-paraphrase",
             "safety_T0_native_repaired_p-full_rerun-portable"]  # fmt: skip
    facts = study_facts(config, pd.DataFrame([trial("qwen2.5-coder-0.5b", s) for s in stems]))
    assert {"paraphrases", "safety_suite"} <= facts.ran and "faults" not in facts.ran
    assert "faults" in facts.not_run  # planned for the instruction-tuned models, not recorded
    assert facts.ran_models["paraphrases"] == ("qwen2.5-coder-0.5b",)
    faults_only = parse_config({**data, "build_run": {**data["build_run"], "perturbations": ["fault"]}})
    assert (
        "paraphrases"
        not in study_facts(faults_only, pd.DataFrame([trial("qwen2.5-coder-0.5b", stems[1])])).planned
    )
