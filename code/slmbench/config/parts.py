"""The optional parts of a study beside its primary condition: the null control, the scaffold, context and serving
comparisons, the protocol study and the eligibility study."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from slmbench.vocab import (
    DEFAULT_SPLIT_SEED,
    ELIGIBILITY_TASKS,
    NAME_PATTERN,
    PROMPT_STYLES,
    EligibilityTask,
    Perturbation,
    PromptStyle,
    RequantType,
    ScaffoldName,
    ServerName,
    Suite,
)


def _capability_only() -> list[Suite]:
    return ["capability"]


class NullControl(BaseModel):
    """Tasks rerun with nothing changed, at T=0: what differs between the reruns is the machine's noise."""

    model_config = ConfigDict(extra="forbid")
    tasks: list[str]
    reruns: int = Field(ge=2)


class ScaffoldComparison(BaseModel):
    """Extra scaffolds run on some suites at the lowest temperature, each paired task by task with the primary."""

    model_config = ConfigDict(extra="forbid")
    scaffolds: list[ScaffoldName] = Field(min_length=1)
    suites: list[Suite] = Field(default_factory=_capability_only)
    protocol: str | None = Field(
        default=None,
        description="the protocol its shards run under, e.g. the scaffold's own forms of the primary protocol's"
        " conditions (None: the primary protocol)",
    )
    repeats: int | None = Field(default=None, ge=1, description="repeats of each task (None: the study's)")


class ContextComparison(BaseModel):
    """Smaller context windows run on some suites at the lowest temperature, paired with the configured one."""

    model_config = ConfigDict(extra="forbid")
    n_ctx: list[int] = Field(min_length=1)
    suites: list[Suite] = Field(default_factory=_capability_only)
    repeats: int | None = Field(default=None, ge=1, description="repeats of each task (None: the study's)")

    @field_validator("n_ctx")
    @classmethod
    def _at_least_256(cls, values: list[int]) -> list[int]:
        if any(v < 256 for v in values):
            raise ValueError("every context window must be at least 256 tokens")
        return values


class ServingComparison(BaseModel):
    """Embedded models run again behind a serving stack the runner starts on the same GGUF file (its own chat
    template and tool-call parser), under the primary protocol at the lowest temperature, paired task by task
    with the in-process trials."""

    model_config = ConfigDict(extra="forbid")
    models: list[str] = Field(min_length=1, description="embedded models of the study (backend llamacpp)")
    server: ServerName = Field(default="llama-server", description="the serving stack")
    suites: list[Suite] = Field(default_factory=_capability_only)
    repeats: int | None = Field(default=None, ge=1, description="repeats of each task (None: the study's)")

    @field_validator("models")
    @classmethod
    def _distinct(cls, values: list[str]) -> list[str]:
        if len(set(values)) != len(values):
            raise ValueError(f"models are named once each: {values}")
        return values


class ProtocolStudy(BaseModel):
    """The protocol study: the best honest protocol against legacy (planned once at the lowest temperature when it
    is not the primary protocol), its ablations, limits, repeats and sweep."""

    model_config = ConfigDict(extra="forbid")
    protocol: str = Field(description="the protocol compared with legacy (a name in `protocols`)")
    ablation: list[str] = Field(default_factory=list, description="protocols each run once at the lowest T")
    max_turns: list[int] = Field(default_factory=list, description="other turn limits under `protocol`")
    max_tokens: list[int] = Field(default_factory=list, description="other token caps under `protocol`")
    repeats: int = Field(default=1, ge=1, description="repeats of `protocol` at every temperature")
    reruns: list[str] = Field(
        default_factory=list,
        description="labels of reruns of `protocol` at the lowest T, one repeat each (e.g. on another kind of CPU:"
        " comparisons pair trials that ran on one kind of CPU where they can)",
    )
    temperatures: list[float] = Field(
        default_factory=list, description="sweep temperatures (instruct models)"
    )
    suites: list[Suite] = Field(default_factory=_capability_only)

    @field_validator("reruns")
    @classmethod
    def _rerun_labels(cls, values: list[str]) -> list[str]:
        bad = [v for v in values if not re.fullmatch(NAME_PATTERN, v)]
        if bad or len(set(values)) != len(values):
            raise ValueError(f"rerun labels are distinct lower-case words joined by '-': {values}")
        return values


class Sampling(BaseModel):
    """Samples of every task at a temperature above zero: outcome consistency (pass^k) from ``repeats`` samples."""

    model_config = ConfigDict(extra="forbid")
    temperature: float = Field(gt=0)
    repeats: int = Field(ge=2, description="samples of each task")
    suites: list[Suite] = Field(default_factory=_capability_only)
    models: list[str] | None = Field(
        default=None, description="the instruction-tuned models sampled (default: every one)"
    )

    def samples(self, model: str) -> bool:
        """Whether ``model`` (an instruction-tuned one) is sampled."""
        return self.models is None or model in self.models


class BuildRun(BaseModel):
    """The study's runs on one build, kept apart by a rerun label: the primary condition once per task on each
    suite (at T = 0 on one build a repeat cannot differ), samples above T = 0, each task's perturbations, and
    protocols that isolate one mechanism each. Sampling and perturbations run for instruction-tuned models."""

    model_config = ConfigDict(extra="forbid")
    label: str = Field(description="the rerun label of every shard of these runs")
    suites: list[Suite] = Field(default_factory=_capability_only)
    repeats: int = Field(default=1, ge=1, description="repeats of each task of the primary condition")
    sampling: Sampling | None = None
    perturbations: list[Perturbation] = Field(default_factory=list)
    perturbation_suites: list[Suite] = Field(default_factory=_capability_only)
    perturbation_models: list[str] | None = Field(
        default=None, description="the instruction-tuned models perturbed (default: every one)"
    )
    protocols: list[str] = Field(
        default_factory=list,
        description="other protocols (names in `protocols`), each once on the capability suite at the lowest T",
    )
    protocol_models: list[str] | None = Field(
        default=None, description="the models the other protocols run for (default: every one)"
    )

    def perturbs(self, model: str) -> bool:
        """Whether ``model`` (an instruction-tuned one) runs the perturbations."""
        return self.perturbation_models is None or model in self.perturbation_models

    def runs_protocols(self, model: str) -> bool:
        """Whether ``model`` runs the other protocols."""
        return self.protocol_models is None or model in self.protocol_models

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        if not re.fullmatch(NAME_PATTERN, value):
            raise ValueError(f"a rerun label is lower-case words joined by '-': {value!r}")
        return value


def _all_tasks() -> list[EligibilityTask]:
    return list(ELIGIBILITY_TASKS)


def _all_prompts() -> list[PromptStyle]:
    return list(PROMPT_STYLES)


class EligibilityPlan(BaseModel):
    """The eligibility study: which models, tasks and prompts are scored, and which requantised variants."""

    model_config = ConfigDict(extra="forbid")
    tasks: list[EligibilityTask] = Field(default_factory=_all_tasks, min_length=1)
    prompts: list[PromptStyle] = Field(default_factory=_all_prompts, min_length=1)
    models: list[str] = Field(default_factory=list, description="empty: every embedded and Ollama model")
    requantise: list[RequantType] = Field(default_factory=list, description="llama.cpp types of the variants")
    requantise_models: list[str] = Field(default_factory=list, description="empty: the embedded `models`")
    requantise_tasks: dict[str, list[EligibilityTask]] = Field(
        default_factory=dict, description="per model, the tasks its variants are scored on (not named: all)"
    )
    margin: float = Field(default=0.05, ge=0, lt=1, description="the stated margin over the baseline")
    split_seed: int = Field(
        default=DEFAULT_SPLIT_SEED, description="seeds the calibration/test split and the few-shot examples"
    )
