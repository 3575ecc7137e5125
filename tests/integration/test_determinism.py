"""This host's greedy replies against the committed determinism reference (data/determinism/reference.json): the
first requests of capability tasks through the smallest and the largest model at T = 0, on the portable build. A
difference fails with the model, the prompt and the first differing token.

The test sends the first ``CHECKED`` of the eight reference prompts (a 1.5B reply takes about 17 s on one core);
``slmbench determinism`` sends all eight to both models and writes the host's ledger line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slmbench.backends.llamacpp_build import installed_build
from slmbench.config import load_config
from slmbench.models.weights import weights_path
from slmbench.run.determinism import REFERENCE_FILE, REFERENCE_TASKS, differences, measure, reference_models

ROOT = Path(__file__).resolve().parents[2]
CONFIG = load_config(ROOT / "config.yaml")
MODELS = reference_models(CONFIG)
REFERENCE = json.loads((ROOT / REFERENCE_FILE).read_text())
CHECKED = REFERENCE_TASKS[:4]


def test_the_reference_is_of_the_installed_build_and_both_models() -> None:
    assert REFERENCE["build"]["identity"] == installed_build()["identity"], (
        "the reference was recorded on another build: rebuild with `make setup`, or record a new reference "
        "(`slmbench determinism --write-reference`) when the build itself changed"
    )
    assert sorted(REFERENCE["models"]) == sorted(MODELS)


@pytest.mark.model
@pytest.mark.parametrize("model", MODELS)
def test_this_host_gives_the_reference_replies(model: str) -> None:
    if not weights_path(CONFIG.models[model]).exists():
        pytest.skip(f"run `slmbench models fetch {model}` (make test does)")
    found = differences(REFERENCE, measure(CONFIG, (model,), CHECKED))
    assert not found, "greedy replies differ from the reference on this host:\n" + "\n".join(map(str, found))
