"""The paper's text built from studies other than the project's own, as a user would build them (each a folder
made by `slmbench init`, its config written there): a study of two models of the user's own (capability suite only, protocol `full`, no base control; trials run for real), and a
study with a base control but no protocol study (a selection of the project's committed records: no model runs).
Each text is checked against its study (tests/fixtures/paper_text.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from tests.fixtures.paper_text import problems, prose, text_of
from tests.integration.smoke_workdir import snakemake

from slmbench.config import load_config
from slmbench.models.weights import weights_path
from slmbench.paper import study_facts
from slmbench.study import write_study

ROOT = Path(__file__).resolve().parents[2]
STUDY = load_config(ROOT / "config.yaml")
SMOLLM = STUDY.models["smollm2-135m"]
TEXT = [f"paper/generated/text_{place}.tex" for place in ("abstract", "body", "appendix")]
FULL = {
    "canonical_history": True,
    "stuck_detection": True,
    "answer_channel": True,
    "closing_turn": True,
    "clean_kv": True,
}
BASE: dict[str, Any] = {
    "schema_version": "1.0", "temperatures": [0.0], "scaffold": "native", "parser_mode": "repaired",
    "seed": 20261129, "trial_budget_s": 300, "alpha": 0.05, "bootstrap_resamples": 200,
    "protocols": {"legacy": {}, "full": FULL}, "protocol": "full",
}  # fmt: skip

pytestmark = [pytest.mark.slow]


def build(
    tmp: Path, config: dict[str, Any], raw: dict[str, list[str]] | None = None, run: bool = False
) -> Path:
    """A study folder made by `slmbench init` (a space in its path) with ``config``, the committed shards ``raw``
    (model -> stems) copied in, its trials run when ``run``, and its paper text rendered there."""
    work = tmp / "a study"
    write_study(work)
    (work / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    for model, stems in (raw or {}).items():
        (work / "data/raw/slmbench" / model).mkdir(parents=True)
        for stem in stems:
            shutil.copy(
                ROOT / "data/raw/slmbench" / model / f"{stem}.jsonl", work / "data/raw/slmbench" / model
            )
    if run:
        trials = snakemake(work, "trials")
        assert trials.returncode == 0, trials.stderr[-4000:]
    text = snakemake(work, *TEXT)
    assert text.returncode == 0, text.stderr[-4000:]
    return work


def facts_of(work: Path):  # type: ignore[no-untyped-def]
    numbers = work / "paper/generated/numbers.tex"
    from slmbench.paper import Results

    results = Results.from_macros(numbers)
    return study_facts(
        load_config(work / "config.yaml"),
        pd.read_parquet(work / "data/processed/trials.parquet"),
        eligibility=results.defined("elig.n.configs") and results.number("elig.n.configs") > 0,
        external=results.defined("ext.n.models") and results.number("ext.n.models") > 0,
    )


@pytest.fixture(scope="module")
def user_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not weights_path(SMOLLM).exists():
        pytest.skip("run `slmbench models fetch smollm2-135m`")
    assert SMOLLM.weights is not None
    own = {"path": str(weights_path(SMOLLM)), "sha256": SMOLLM.weights.sha256}
    model = {"backend": "llamacpp", "params_b": 0.135, "instruct": True, "n_ctx": 4096, "weights": own}
    config = {
        **BASE,
        "models": {"acme-tiny-a": model, "acme-tiny-b": {**model, "params_b": 0.136}},
        "suites": ["capability"],
        "repeats": 1,
        "max_turns": 3,
        "max_tokens": 128,
        "tasks": {"capability": ["DA-1", "SCH-1", "COM-1"]},
    }
    return build(tmp_path_factory.mktemp("user"), config, run=True)


@pytest.mark.model
def test_a_user_study_of_its_own_models_gets_a_text_true_for_it(user_study: Path) -> None:
    facts = facts_of(user_study)
    assert facts.ran == {"capability"}  # no published study: its config names none
    assert problems(user_study / "paper", load_config(user_study / "config.yaml"), facts) == []
    words = prose(text_of(user_study / "paper"))
    assert "acme-tiny-a" in words and "acme-tiny-b" in words
    assert "two models" in words and "capability suite" in words
    assert "% section protocol: left out" in text_of(user_study / "paper")


@pytest.fixture(scope="module")
def base_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    models = {m: STUDY.models[m].model_dump(exclude_none=True) for m in ("smollm2-135m", "gemma3-270m")}
    config = {
        **BASE,
        "models": models,
        "suites": ["capability", "reliability"],
        "repeats": 3,
        "max_turns": STUDY.max_turns,
        "max_tokens": STUDY.max_tokens,
    }
    stems = ["capability_T0_native_repaired_p-full", "reliability_T0_native_repaired_p-full"]
    return build(tmp_path_factory.mktemp("base"), config, raw={m: stems for m in models})


def test_a_study_with_a_base_control_and_no_protocol_study_gets_a_text_true_for_it(base_study: Path) -> None:
    facts = facts_of(base_study)
    assert facts.ran == {"capability", "reliability"} and [m.name for m in facts.base] == ["gemma3-270m"]
    assert problems(base_study / "paper", load_config(base_study / "config.yaml"), facts) == []
    text = text_of(base_study / "paper")
    assert "the pretrained base model\ngemma3-270m as a floor control" in text or "base model" in prose(text)
    for left_out in ("protocol", "comparisons", "eligibility", "appendix_protocol"):
        assert f"% section {left_out}: left out" in text
    assert "% section reliability\n" in text
