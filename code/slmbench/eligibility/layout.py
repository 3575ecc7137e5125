"""Where the eligibility study's artefacts live (one path per artefact; the rules import these)."""

from __future__ import annotations

from pathlib import Path

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
