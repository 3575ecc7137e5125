"""The study configuration (config.yaml): a validated pydantic model with clear errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    ValidationError,
    model_validator,
)

from slmbench.backends import backend_facts
from slmbench.conditions import LEGACY, LEGACY_NAME, ProtocolConditions
from slmbench.config.errors import ConfigError
from slmbench.config.models import ModelSpec, WeightsSpec, validated_models
from slmbench.config.parts import (
    BuildRun,
    ContextComparison,
    EligibilityPlan,
    NullControl,
    ProtocolStudy,
    ScaffoldComparison,
    ServingComparison,
)
from slmbench.vocab import (
    DEFAULT_BOOTSTRAP_SEED,
    DEFAULT_EQUIVALENCE_MARGIN,
    DEFAULT_SPLIT_SEED,
    MODEL_NAME_PATTERN,
    NAME_PATTERN,
    STUDY_PARTS,
    ParserMode,
    PublishedStudy,
    ScaffoldName,
    StudyPart,
    Suite,
)
from slmbench.yamltext import safe_load

__all__ = [
    "BuildRun", "ConfigError", "ContextComparison", "EligibilityPlan", "ModelSpec", "NullControl",
    "ProtocolStudy", "ScaffoldComparison", "ServingComparison", "StudyConfig", "WeightsSpec", "load_config",
    "model_spec", "parse_config",
]  # fmt: skip


def _legacy_only() -> dict[str, dict[str, bool]]:
    return {LEGACY_NAME: {}}


def _listed(names: list[str] | Any) -> str:
    return ", ".join(sorted(names)) or "none"


class StudyConfig(BaseModel):
    """The whole config.yaml. Its models are instances of their backends' settings models (``parse_config``)."""

    model_config = ConfigDict(extra="forbid")
    schema_version: str
    models: dict[str, SerializeAsAny[ModelSpec]] = Field(min_length=1)
    suites: list[Suite]
    temperatures: list[float] = Field(min_length=1)
    scaffold: ScaffoldName
    parser_mode: ParserMode
    repeats: int = Field(ge=1)
    seed: int = Field(
        description="the trial seed: each trial's sampling seed derives from it (and the eligibility split's)"
    )
    bootstrap_seed: int = Field(
        default=DEFAULT_BOOTSTRAP_SEED, description="the seed of every bootstrap resampling of the analysis"
    )
    max_turns: int = Field(ge=1)
    trial_budget_s: float = Field(gt=0)
    max_tokens: int = Field(ge=16)
    alpha: float = Field(gt=0, lt=1)
    bootstrap_resamples: int = Field(ge=100)
    equivalence_margin: float = Field(
        default=DEFAULT_EQUIVALENCE_MARGIN,
        gt=0,
        lt=1,
        description="the largest difference in accuracy (a share) that the study treats as negligible: two conditions"
        " on the same tasks are read as the same only when TOST shows their paired difference within plus or minus"
        " this (slmbench.analysis.stats_equivalence)",
    )
    choices_after_results: list[str] = Field(
        default_factory=list,
        description="choices of the study's design or analysis made after some of its results were seen, one"
        " sentence each (LaTeX): the paper's limits list them",
    )
    null_control: NullControl | None = None
    scaffold_comparison: ScaffoldComparison | None = None
    context_comparison: ContextComparison | None = None
    serving_comparison: ServingComparison | None = None
    tasks: list[str] | dict[Suite, list[str]] = Field(
        default_factory=list,
        description="Run only these task ids: one list for every suite, or a list per suite (empty or a suite not "
        "named: the whole suite); checked against the suites when the shards are planned (slmbench.run.plan)",
    )
    protocols: dict[str, dict[str, bool]] = Field(
        default_factory=_legacy_only,
        description="named protocol conditions (harness.protocol); 'legacy' (all off) is the first dataset's",
    )
    protocol: str = Field(default=LEGACY_NAME, description="the primary protocol (a name in `protocols`)")
    protocol_study: ProtocolStudy | None = None
    build_run: BuildRun | None = Field(
        default=None,
        description="the study's runs on one build, under one rerun label (slmbench.config.parts.BuildRun)",
    )
    primary_build: str | None = Field(
        default=None,
        description="the build whose trials the primary results read, as tidy names it: a portable build's identity,"
        " or 'native/<CPU>' for trials from before it (llama.cpp compiled for that kind of CPU). Of the primary"
        " condition's runs, the first on this build (greedy replies can differ between builds). None: the rule of"
        " slmbench.run.roles.primary (the portable build with the most primary-condition trials, else the original"
        " runs)",
    )
    eligibility: EligibilityPlan | None = None
    published_studies: list[PublishedStudy] = Field(
        default_factory=list,
        description="published studies reproduced from their own reports (data/external): their trials are"
        " imported beside ours and their analysis regenerated; none unless named",
    )
    _source: str = PrivateAttr(default="config.yaml")

    @property
    def source(self) -> str:
        """The file the config was read from, as errors name it (``config.yaml`` when it was built in memory)."""
        return self._source

    @model_validator(mode="after")
    def _model_names(self) -> StudyConfig:
        for name in self.models:
            if not re.fullmatch(MODEL_NAME_PATTERN, name):
                raise ValueError(
                    f"models: {name!r} cannot name a model (it names files, folders and shell words): use letters"
                    " and digits with single '.', '_' or '-' between them, e.g. 'my-model-7b'"
                )
        return self

    @model_validator(mode="after")
    def _comparison_differs(self) -> StudyConfig:
        if self.scaffold_comparison and self.scaffold in self.scaffold_comparison.scaffolds:
            raise ValueError(
                f"scaffold_comparison.scaffolds: {self.scaffold!r} is the primary scaffold (scaffold): list only"
                " the other scaffolds"
            )
        return self

    @model_validator(mode="after")
    def _served_models_embedded(self) -> StudyConfig:
        for name in self.serving_comparison.models if self.serving_comparison else []:
            spec = self.models.get(name)
            if spec is None:
                raise ValueError(
                    f"serving_comparison.models: {name!r} is not a model of this study (models: "
                    f"{_listed(self.models)}): remove it, or the block, or configure the model"
                )
            if not spec.embedded:
                raise ValueError(
                    f"serving_comparison.models: {name!r} runs no GGUF file of its own here (backend "
                    f"{spec.backend}): name models with `weights`, whose file the server runs"
                )
        return self

    @model_validator(mode="after")
    def _protocols_known(self) -> StudyConfig:
        for name, values in self.protocols.items():
            if not re.fullmatch(NAME_PATTERN, name):
                raise ValueError(f"protocols: {name!r}: names are lower-case words joined by '-'")
            conditions = ProtocolConditions.from_mapping(values, f"protocols.{name}")
            if name == LEGACY_NAME and conditions != LEGACY:
                raise ValueError("protocols.legacy: must switch every condition off (the first dataset's)")
        named = [("protocol", self.protocol)]
        if self.scaffold_comparison and self.scaffold_comparison.protocol:
            named.append(("scaffold_comparison.protocol", self.scaffold_comparison.protocol))
        if self.protocol_study:
            named.append(("protocol_study.protocol", self.protocol_study.protocol))
            named += [("protocol_study.ablation", name) for name in self.protocol_study.ablation]
        for where, name in named:
            if name not in self.protocols:
                raise ValueError(
                    f"{where}: {name!r} is not defined under `protocols` (defined: {_listed(self.protocols)}):"
                    " define it there or name one of those"
                )
        return self

    def conditions(self, name: str) -> ProtocolConditions:
        """The protocol conditions of a named protocol."""
        if name not in self.protocols:
            raise ConfigError(f"unknown protocol {name!r}; defined: {', '.join(sorted(self.protocols))}")
        return ProtocolConditions.from_mapping(self.protocols[name], f"protocols.{name}")

    @model_validator(mode="after")
    def _eligibility_models_known(self) -> StudyConfig:
        plan = self.eligibility
        if plan is None:
            return self
        for name in plan.models:
            spec = self.models.get(name)
            if spec is None:
                raise ValueError(
                    f"eligibility.models: {name!r} is not a model of this study (models: {_listed(self.models)}):"
                    " remove it or configure the model"
                )
            if backend_facts(spec.backend).labels is None:
                raise ValueError(
                    f"eligibility.models: {name!r} cannot score labels (backend {spec.backend}): name an embedded"
                    " GGUF model or an Ollama model"
                )
        for where, names in (
            ("requantise_models", plan.requantise_models),
            ("requantise_tasks", list(plan.requantise_tasks)),
        ):
            for name in names:
                spec = self.models.get(name)
                if spec is None:
                    raise ValueError(
                        f"eligibility.{where}: {name!r} is not a model of this study (models: "
                        f"{_listed(self.models)}): remove it or configure the model"
                    )
                if not spec.embedded:
                    raise ValueError(
                        f"eligibility.{where}: {name!r} is not an embedded GGUF model (backend {spec.backend}):"
                        " only embedded GGUF files are requantised (score it in eligibility.models)"
                    )
        return self

    @model_validator(mode="after")
    def _build_run_models_known(self) -> StudyConfig:
        run = self.build_run
        if run is None:
            return self
        named = (
            ("sampling.models", run.sampling.models if run.sampling else None, True),
            ("perturbation_models", run.perturbation_models, True),
            ("protocol_models", run.protocol_models, False),
        )
        for where, names, instruct_only in named:
            for name in names or []:
                if name not in self.models or (instruct_only and not self.models[name].instruct):
                    kind = "an instruction-tuned model" if instruct_only else "a model"
                    raise ValueError(
                        f"build_run.{where}: {name!r} is not {kind} of this study "
                        f"(models: {_listed(self.models)}): remove it or configure the model"
                    )
        return self

    def parts(self) -> frozenset[StudyPart]:
        """The optional parts this study asks for (each a config block that is given, or a list that is not
        empty): only these are planned, analysed, drawn and written about."""
        return frozenset(part for part in STUDY_PARTS if getattr(self, part))

    def split_seed(self) -> int:
        """The eligibility study's split seed (its own, never the trials' ``seed``)."""
        return self.eligibility.split_seed if self.eligibility else DEFAULT_SPLIT_SEED


def _line(source: str, loc: tuple[str | int, ...], message: str) -> str:
    """One error of ``source``: the field's path and the problem, or the validator's own line (it names its
    fields itself)."""
    message = message.removeprefix("Value error, ")
    if not loc:
        return f"{source}: {message}"
    return f"{source}: field '{'.'.join(str(p) for p in loc)}': {message}"


def parse_config(data: dict[str, Any], source: str = "config.yaml") -> StudyConfig:
    """Validate a loaded config mapping, each model by its backend's settings model; errors are one line each,
    naming the source, the field path and the problem.

    Raises:
        ConfigError: Every problem found, one line each.
    """
    if "models" in data and not data["models"]:
        raise ConfigError(
            f"{source}: models: no model is configured: add one under `models:` (docs/models.md shows an entry for"
            " each backend)"
        )
    models, errors = validated_models(data.get("models"))
    lines = [_line(source, loc, message) for loc, message in errors]
    if not lines:
        try:
            config = StudyConfig.model_validate({**data, "models": models} if "models" in data else data)
            config._source = source
            return config
        except ValidationError as exc:
            lines = [_line(source, tuple(err["loc"]), err["msg"]) for err in exc.errors()]
    raise ConfigError("\n".join(lines))


def load_config(path: Path | str = "config.yaml") -> StudyConfig:
    """Read and validate config.yaml."""
    path = Path(path)
    try:
        data = safe_load(path.read_text())
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
