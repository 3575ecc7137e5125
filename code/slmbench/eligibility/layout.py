"""The eligibility study's plan and where its artefacts live (one path per artefact; the rules import these).

Its runs are planned here rather than as trial shards: a run scores one task's items under one prompt from label
log-probabilities, with no suite, temperature, scaffold, parser mode or protocol, in a format and folder of its
own, so a shard key would carry fields that mean nothing for it.
"""

from __future__ import annotations

from pathlib import Path

from slmbench.backends import backend_facts
from slmbench.config import StudyConfig
from slmbench.vocab import ELIGIBILITY_RAW, SHIPPED

RAW_DIR = Path("data/raw") / ELIGIBILITY_RAW
MODELS_DIR = Path("data/models")
BASELINES = Path("data/processed/eligibility_baselines.json")
TOPIC = Path("data/processed/eligibility.json")


def config_id(model: str, quant: str = SHIPPED) -> str:
    """The folder of a configuration's runs: the model for its shipped file, ``<model>-<type>`` for a variant."""
    return model if quant == SHIPPED else f"{model}-{quant}"


def variant_path(model: str, qtype: str) -> Path:
    """The GGUF of a requantised variant (its sidecar is ``<path>.json``)."""
    return MODELS_DIR / f"{model}-{qtype}.gguf"


def run_path(model: str, quant: str, task: str, prompt: str) -> Path:
    """The raw file of one run."""
    return RAW_DIR / config_id(model, quant) / f"{task}_{prompt}.jsonl"


def eligibility_models(config: StudyConfig) -> list[str]:
    """The models of the eligibility study (default: every model whose backend can score labels: embedded GGUF
    files and Ollama models)."""
    if config.eligibility is None:
        return []
    return config.eligibility.models or [
        m for m, spec in config.models.items() if backend_facts(spec.backend).labels is not None
    ]


def requantisable_models(config: StudyConfig) -> list[str]:
    """The eligibility study's models with embedded weights (only these have requantised variants)."""
    return [m for m in eligibility_models(config) if config.models[m].embedded]


def eligibility_variants(config: StudyConfig) -> list[tuple[str, str]]:
    """(model, llama.cpp type) of every requantised variant of the eligibility study."""
    plan = config.eligibility
    if plan is None:
        return []
    models = plan.requantise_models or requantisable_models(config)
    return [(model, qtype) for model in models for qtype in plan.requantise]


def eligibility_runs(config: StudyConfig) -> list[tuple[str, str, str, str]]:
    """(model, quantisation tag, task, prompt) of every planned eligibility run (``shipped`` first)."""
    plan = config.eligibility
    if plan is None:
        return []
    configs = [(m, SHIPPED) for m in eligibility_models(config)] + eligibility_variants(config)
    return [
        (m, q, t, p)
        for m, q in configs
        for t in (plan.tasks if q == SHIPPED else plan.requantise_tasks.get(m, plan.tasks))
        for p in plan.prompts
    ]
