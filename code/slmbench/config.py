"""The study configuration (config.yaml): a validated pydantic model with clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

Suite = Literal["capability", "reliability"]


def _capability_only() -> list[Suite]:
    return ["capability"]


class ConfigError(ValueError):
    """config.yaml is malformed: the message names the file, the field and what was expected."""


class WeightsSpec(BaseModel):
    """Where an embedded model's GGUF comes from: PyPI packages whose files are joined in order."""

    model_config = ConfigDict(extra="forbid")
    file: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    packages: list[str] = Field(min_length=1)
    parts: list[str] = Field(min_length=1)


class ModelSpec(BaseModel):
    """One model of the study."""

    model_config = ConfigDict(extra="forbid")
    backend: Literal["llamacpp", "ollama"]
    params_b: float = Field(gt=0)
    instruct: bool
    family: str = ""
    quantisation: str = ""
    licence: str = ""
    n_ctx: int = Field(default=4096, ge=256)
    chat_format: str | None = Field(
        default=None, description="None: the GGUF's own chat template; 'plain' for base models"
    )
    weights: WeightsSpec | None = None
    ollama_tag: str | None = None


class NullControl(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tasks: list[str]
    reruns: int = Field(ge=2)


class ScaffoldComparison(BaseModel):
    """Extra scaffolds run on some suites at the lowest temperature, each paired task by task with the primary."""

    model_config = ConfigDict(extra="forbid")
    scaffolds: list[Literal["native", "react"]] = Field(min_length=1)
    suites: list[Suite] = Field(default_factory=_capability_only)


class ContextComparison(BaseModel):
    """Smaller context windows run on some suites at the lowest temperature, paired with the configured one."""

    model_config = ConfigDict(extra="forbid")
    n_ctx: list[int] = Field(min_length=1)
    suites: list[Suite] = Field(default_factory=_capability_only)

    @field_validator("n_ctx")
    @classmethod
    def _at_least_256(cls, values: list[int]) -> list[int]:
        if any(v < 256 for v in values):
            raise ValueError("every context window must be at least 256 tokens")
        return values


class StudyConfig(BaseModel):
    """The whole config.yaml."""

    model_config = ConfigDict(extra="forbid")
    schema_version: str
    models: dict[str, ModelSpec] = Field(min_length=1)
    suites: list[Literal["capability", "reliability"]]
    temperatures: list[float] = Field(min_length=1)
    scaffold: Literal["native", "react"]
    parser_mode: Literal["strict", "repaired"]
    repeats: int = Field(ge=1)
    seed: int
    max_turns: int = Field(ge=1)
    trial_budget_s: float = Field(gt=0)
    max_tokens: int = Field(ge=16)
    alpha: float = Field(gt=0, lt=1)
    bootstrap_resamples: int = Field(ge=100)
    null_control: NullControl | None = None
    scaffold_comparison: ScaffoldComparison | None = None
    context_comparison: ContextComparison | None = None
    tasks: list[str] = Field(
        default_factory=list, description="Run only these task ids (empty: whole suites)"
    )

    @model_validator(mode="after")
    def _comparison_differs(self) -> StudyConfig:
        if self.scaffold_comparison and self.scaffold in self.scaffold_comparison.scaffolds:
            raise ValueError(f"scaffold_comparison.scaffolds repeats the primary scaffold {self.scaffold!r}")
        return self

    def comparison_shards(self) -> list[tuple[str, str, float, str]]:
        """(model, suite, temperature, scaffold) of every scaffold-comparison shard (lowest temperature)."""
        if not self.scaffold_comparison:
            return []
        t = min(self.temperatures)
        return [
            (model, suite, t, scaffold)
            for model in self.models
            for suite in self.scaffold_comparison.suites
            for scaffold in self.scaffold_comparison.scaffolds
        ]

    def context_shards(self) -> list[tuple[str, str, float, int]]:
        """(model, suite, temperature, n_ctx) of every context-comparison shard (lowest temperature).

        A window equal to the model's configured one is the primary condition, not a comparison.
        """
        if not self.context_comparison:
            return []
        t = min(self.temperatures)
        return [
            (model, suite, t, n_ctx)
            for model, spec in self.models.items()
            for suite in self.context_comparison.suites
            for n_ctx in self.context_comparison.n_ctx
            if n_ctx != spec.n_ctx
        ]


def parse_config(data: dict[str, Any], source: str = "config.yaml") -> StudyConfig:
    """Validate a loaded config mapping; errors name the source, the field path and the problem."""
    try:
        return StudyConfig.model_validate(data)
    except ValidationError as exc:
        lines = [
            f"{source}: field '{'.'.join(str(p) for p in err['loc'])}': {err['msg']}" for err in exc.errors()
        ]
        raise ConfigError("\n".join(lines)) from None


def load_config(path: Path | str = "config.yaml") -> StudyConfig:
    """Read and validate config.yaml."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return parse_config(data, str(path))


def model_spec(config: StudyConfig, model: str) -> ModelSpec:
    """The spec of one model, or a clear error listing the configured ones."""
    if model not in config.models:
        raise ConfigError(f"unknown model {model!r}; configured: {', '.join(sorted(config.models))}")
    return config.models[model]
