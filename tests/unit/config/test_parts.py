"""An optional part of a study (a comparison, the null control, the protocol study, eligibility, a published
study) exists only where its config block asks for it: its shards, its topic, its figures and its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from slmbench.analysis.topics import TOPIC_PARTS, TOPICS, study_topics
from slmbench.config import ConfigError, StudyConfig, parse_config
from slmbench.figures.registry import FIGURE_TOPICS, study_figures
from slmbench.run.plan import plan_shards
from slmbench.vocab import PLAN_KINDS, STUDY_PARTS

ROOT = Path(__file__).resolve().parents[3]
SHIPPED: dict[str, Any] = yaml.safe_load((ROOT / "config.yaml").read_text())


def _without(*blocks: str) -> StudyConfig:
    return parse_config({k: v for k, v in SHIPPED.items() if k not in blocks})


def test_each_part_is_a_config_block_and_the_shipped_study_has_them_all() -> None:
    assert set(STUDY_PARTS) <= set(StudyConfig.model_fields)
    assert _without().parts() == frozenset(STUDY_PARTS)


def test_a_study_without_the_optional_blocks_plans_computes_and_draws_none_of_them() -> None:
    config = _without(*STUDY_PARTS)
    assert config.parts() == frozenset()
    assert {kind for shard in plan_shards(config) for kind in shard.kinds} == {"primary"}
    topics = study_topics(config.parts())
    assert "external" not in topics and "eligibility" not in topics
    assert set(topics) == {t for t in TOPICS if TOPIC_PARTS[t] is None}
    figures = study_figures(topics)
    assert {"external_comparison", "eligibility_margin_vs_size", "cascade_cost_accuracy"}.isdisjoint(figures)
    assert all(set(FIGURE_TOPICS[f]) <= set(topics) for f in figures) and "radar" in figures


def test_each_plan_kind_follows_its_block() -> None:
    blocks = {
        "null_control": "null_control",
        "scaffold": "scaffold_comparison",
        "context": "context_comparison",
        "serving": "serving_comparison",
        "protocol": "protocol_study",
        "build_run": "build_run",
    }
    assert set(blocks) == set(PLAN_KINDS) - {"primary"}
    for kind, block in blocks.items():
        planned = {k for shard in plan_shards(_without(block)) for k in shard.kinds}
        assert kind not in planned and kind in {k for s in plan_shards(_without()) for k in s.kinds}


def test_a_published_study_is_analysed_only_where_the_config_names_it() -> None:
    assert "external" in study_topics(_without().parts())
    assert "external" not in study_topics(_without("published_studies").parts())
    assert "eligibility" not in study_topics(_without("eligibility").parts())


def _with_sampling(**sampling: Any) -> StudyConfig:
    build_run = {**SHIPPED["build_run"], "sampling": {"temperature": 0.7, "repeats": 5, **sampling}}
    return parse_config({**SHIPPED, "build_run": build_run})


def test_the_samples_run_for_the_models_the_sampling_block_names_or_every_instruction_tuned_one() -> None:
    def sampled(config: StudyConfig) -> set[str]:
        return {
            s.key.model for s in plan_shards(config) if s.key.temperature == 0.7 and s.key.rerun == "portable"
        }

    instruct = {name for name, spec in _without().models.items() if spec.instruct}
    assert sampled(_with_sampling()) == instruct
    assert sampled(_with_sampling(models=["qwen2.5-coder-1.5b"])) == {"qwen2.5-coder-1.5b"}


def test_a_sampled_model_that_is_not_an_instruction_tuned_model_of_the_study_is_one_line() -> None:
    with pytest.raises(
        (ConfigError, ValueError), match=r"build_run.sampling.models: 'gemma3-270m' is not an"
    ):
        _with_sampling(models=["gemma3-270m"])


def _with_build_run(**fields: Any) -> StudyConfig:
    build_run = {**SHIPPED["build_run"], "perturbations": ["fault"], "protocols": ["legacy-kv"],
                 "perturbation_models": None, "protocol_models": None, **fields}  # fmt: skip
    return parse_config({**SHIPPED, "build_run": build_run})


def test_perturbations_and_protocols_run_for_the_models_their_lists_name_or_every_eligible_one() -> None:
    def perturbed(config: StudyConfig) -> set[str]:
        return {s.key.model for s in plan_shards(config) if s.key.perturbation == "fault"}

    def mechanism(config: StudyConfig) -> set[str]:
        return {s.key.model for s in plan_shards(config) if s.key.protocol == "legacy-kv"}

    every, instruct = set(_without().models), {n for n, spec in _without().models.items() if spec.instruct}
    assert (perturbed(_with_build_run()), mechanism(_with_build_run())) == (instruct, every)
    only = _with_build_run(perturbation_models=["qwen2.5-coder-1.5b"], protocol_models=["gemma3-270m"])
    assert (perturbed(only), mechanism(only)) == ({"qwen2.5-coder-1.5b"}, {"gemma3-270m"})


@pytest.mark.parametrize(
    ("field", "name", "kind"),
    [
        ("perturbation_models", "gemma3-270m", "an instruction-tuned model"),
        ("protocol_models", "gpt-9", "a model"),
    ],
)
def test_a_build_run_model_list_naming_no_model_of_its_kind_is_one_line(
    field: str, name: str, kind: str
) -> None:
    with pytest.raises(
        (ConfigError, ValueError), match=rf"build_run.{field}: '{name}' is not {kind} of this"
    ):
        _with_build_run(**{field: [name]})
