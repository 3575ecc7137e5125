"""config.yaml: the shipped file validates; a bad one names the field."""

import re
from pathlib import Path

import pytest
import yaml

from slmbench.config import ConfigError, load_config, model_spec, parse_config
from slmbench.eligibility.layout import (
    eligibility_models,
    eligibility_runs,
    eligibility_variants,
    requantisable_models,
)

ROOT = Path(__file__).resolve().parents[3]


def test_the_shipped_config_is_valid_and_marks_the_base_model():
    config = load_config(ROOT / "config.yaml")
    assert set(config.models) == {"smollm2-135m", "gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}
    assert config.models["gemma3-270m"].instruct is False
    assert config.models["gemma3-270m"].chat_format == "plain"
    assert all(m.weights is not None and len(m.weights.sha256) == 64 for m in config.models.values())


def test_an_unknown_backend_names_the_field():
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    data["models"]["smollm2-135m"]["backend"] = "vllm"
    with pytest.raises(ConfigError, match=r"models\.smollm2-135m\.backend"):
        parse_config(data, "cfg.yaml")


def test_an_unknown_model_lists_the_configured_ones():
    config = load_config(ROOT / "config.yaml")
    with pytest.raises(ConfigError, match="unknown model 'gpt-9'.*smollm2-135m"):
        model_spec(config, "gpt-9")


def test_a_missing_field_is_named(tmp_path):
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    del data["seed"]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"c\.yaml: field 'seed'"):
        load_config(path)


def test_trial_and_bootstrap_seeds_are_separate_keys():
    """The trial seed drives sampling; the bootstrap seed drives resampling; a missing one takes its default."""
    from slmbench.analysis.topics import with_defaults
    from slmbench.vocab import DEFAULT_BOOTSTRAP_SEED

    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    config = parse_config(data)
    assert config.seed == data["seed"] and config.bootstrap_seed == data["bootstrap_seed"]
    del data["bootstrap_seed"]
    assert parse_config(data).bootstrap_seed == DEFAULT_BOOTSTRAP_SEED
    assert with_defaults({})["bootstrap_seed"] == DEFAULT_BOOTSTRAP_SEED
    with pytest.raises(ValueError, match="bootstrap_seed"):
        with_defaults({"seed": 1})


def test_the_eligibility_split_has_its_own_seed():
    """Changing the trials' seed leaves the eligibility split (and so every committed run's items) unchanged."""
    from slmbench.vocab import DEFAULT_SPLIT_SEED

    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    before = parse_config(data).split_seed()
    data["seed"] += 1
    assert parse_config(data).split_seed() == before == data["eligibility"]["split_seed"]
    del data["eligibility"]["split_seed"]
    assert parse_config(data).split_seed() == DEFAULT_SPLIT_SEED


def _with_ollama_model(**eligibility: object) -> dict:
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    data["models"]["llama3.2-3b"] = {
        "backend": "ollama",
        "params_b": 3.2,
        "instruct": True,
        "ollama_tag": "llama3.2",
    }
    data["eligibility"] = {**data["eligibility"], **eligibility}
    return data


def test_an_ollama_model_is_in_the_eligibility_plan_without_variants():
    config = parse_config(_with_ollama_model(requantise_models=[], requantise_tasks={}))
    assert "llama3.2-3b" in eligibility_models(config)
    assert "llama3.2-3b" not in requantisable_models(config)
    runs = eligibility_runs(config)
    assert ("llama3.2-3b", "shipped", "reranking", "fewshot") in runs
    assert not [r for r in runs if r[0] == "llama3.2-3b" and r[1] != "shipped"]
    assert eligibility_variants(config) and all(m != "llama3.2-3b" for m, _ in eligibility_variants(config))
    named = parse_config(_with_ollama_model(models=["llama3.2-3b", "qwen2.5-coder-0.5b"]))
    assert eligibility_models(named) == ["llama3.2-3b", "qwen2.5-coder-0.5b"]


@pytest.mark.parametrize(
    "plan",
    [{"requantise_models": ["llama3.2-3b"]}, {"requantise_tasks": {"llama3.2-3b": ["tool_selection"]}}],
)
def test_an_ollama_model_cannot_be_requantised(plan):
    where = next(iter(plan))
    with pytest.raises(
        ConfigError,
        match=rf"eligibility\.{where}: 'llama3\.2-3b' is not an embedded GGUF model \(backend ollama\)",
    ):
        parse_config(_with_ollama_model(**plan))


def test_every_file_the_config_names_exists() -> None:
    """A path in config.yaml's comments (a schema, a module, a document) names a file of the repository."""
    pattern = r"\b((?:code|docs|data|paper|bench)/[\w./-]+\.(?:py|yaml|md|smk))"
    named = re.findall(pattern, (ROOT / "config.yaml").read_text())
    assert named and [p for p in named if not (ROOT / p).is_file()] == []


def _with_model(**fields) -> dict:
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    data["models"] = {"m": {"params_b": 0.5, "instruct": True, **fields}}
    # the plans that name the shipped models
    for key in ("eligibility", "protocol_study", "null_control", "serving_comparison", "build_run"):
        data.pop(key, None)
    return data


SERVED = {"backend": "openai", "base_url": "http://127.0.0.1:8080/v1", "served_model": "qwen"}
OWN_FILE = {"path": "~/models/mine.gguf", "sha256": "ab" * 32}


def test_the_backend_names_are_the_registered_backends():
    """Each backend's settings model validates its entries; the names come from the registered backends."""
    from slmbench.backends import backend_names, backend_settings

    assert backend_names() == ["llamacpp", "ollama", "openai", "scripted"]
    for name in backend_names():
        assert backend_settings(name).model_fields["backend"].annotation.__args__ == (name,)
    with pytest.raises(ConfigError) as info:
        parse_config(_with_model(backend="vllm"))
    assert str(info.value) == (
        "config.yaml: field 'models.m.backend': 'vllm' is not a backend: use 'llamacpp', 'ollama', 'openai' or"
        " 'scripted'"
    )


def test_each_model_is_an_instance_of_its_backends_settings():
    from slmbench.backends.openai_backend import OpenAISettings

    spec = parse_config(_with_model(**SERVED)).models["m"]
    assert isinstance(spec, OpenAISettings) and spec.served_model == "qwen" and spec.timeout_s == 120.0
    with pytest.raises(ConfigError) as info:
        parse_config(_with_model(**SERVED, chat_format="plain"))
    assert str(info.value) == "config.yaml: field 'models.m.chat_format': Extra inputs are not permitted"
    with pytest.raises(ConfigError) as info:
        parse_config(_with_model(**SERVED, weights=OWN_FILE))
    assert str(info.value) == (
        "config.yaml: field 'models.m': weights: backend openai runs the model in its server, never a file here:"
        " remove `weights`"
    )


def test_an_openai_model_needs_its_url_and_served_name():
    parse_config(_with_model(**SERVED))
    with pytest.raises(ConfigError) as info:
        parse_config(_with_model(backend="openai", base_url="http://127.0.0.1:8080/v1"))
    assert str(info.value) == "config.yaml: field 'models.m.served_model': Field required"


def test_a_scripted_model_is_configured_by_its_replies():
    from slmbench.backends.scripted_backend import ScriptedBackend

    spec = parse_config(_with_model(backend="scripted", outputs=["I cannot help."])).models["m"]
    backend = ScriptedBackend.from_spec("m", spec, None)  # type: ignore[arg-type]
    assert backend.model_id == "m" and backend.fingerprint()["scripted_outputs"] == 1
    with pytest.raises(ConfigError, match=r"models\.m\.outputs"):
        parse_config(_with_model(backend="scripted", outputs=[]))


def test_the_api_key_field_takes_a_variable_name_and_never_echoes_a_key():
    assert (
        parse_config(_with_model(**SERVED, api_key_env="VLLM_API_KEY")).models["m"].api_key_env
        == "VLLM_API_KEY"
    )
    with pytest.raises(ConfigError) as info:
        parse_config(_with_model(**SERVED, api_key_env="sk-proj-1234567890abcdef"))
    assert "models.m.api_key_env" in str(info.value) and "sk-proj-1234567890abcdef" not in str(info.value)


def test_concurrency_is_a_positive_count():
    """Which backends may take more than 1 the plan asks the backends (tests/unit/run/test_plan.py)."""
    assert parse_config(_with_model(**SERVED, concurrency=4)).models["m"].concurrency == 4
    assert parse_config(_with_model(backend="ollama", concurrency=2)).models["m"].concurrency == 2
    assert parse_config(_with_model(**SERVED)).models["m"].concurrency == 1
    with pytest.raises(ConfigError, match=r"models\.m\.concurrency"):
        parse_config(_with_model(**SERVED, concurrency=0))


def test_own_weights_are_a_path_and_a_hash_beside_the_pypi_form():
    weights = parse_config(_with_model(backend="llamacpp", weights=OWN_FILE)).models["m"].weights
    assert weights is not None and weights.path == "~/models/mine.gguf" and weights.packages == []
    both = {**OWN_FILE, "file": "x.gguf", "packages": ["p==1"], "parts": ["p/x.gguf"]}
    with pytest.raises(ConfigError, match="either `path`.*not both"):
        parse_config(_with_model(backend="llamacpp", weights=both))
    with pytest.raises(ConfigError, match=r"models\.m\.weights': give `path`"):
        parse_config(_with_model(backend="llamacpp", weights={"sha256": "ab" * 32, "file": "x.gguf"}))
    with pytest.raises(ConfigError, match=r"models\.m\.weights\.sha256"):
        parse_config(_with_model(backend="llamacpp", weights={"path": "x.gguf", "sha256": "nothex"}))


@pytest.mark.parametrize("name", ["my model", "../up", "a/b", ".hidden", "x$y", "trailing-"])
def test_a_model_name_that_cannot_be_a_file_name_or_a_shell_word_is_refused(name: str) -> None:
    data = _with_model(**SERVED)
    data["models"] = {name: data["models"]["m"]}
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert str(info.value) == (
        f"config.yaml: models: {name!r} cannot name a model (it names files, folders and shell words): use letters"
        " and digits with single '.', '_' or '-' between them, e.g. 'my-model-7b'"
    )


@pytest.mark.parametrize("name", ["qwen2.5-coder-0.5b", "Qwen2.5_7B", "m"])
def test_model_names_of_letters_digits_and_single_separators_are_taken(name: str) -> None:
    data = _with_model(**SERVED)
    data["models"] = {name: data["models"]["m"]}
    assert list(parse_config(data).models) == [name]


def test_a_block_naming_a_model_no_longer_configured_is_one_line() -> None:
    """Today's message was a 27-line traceback ending in ``field ''``."""
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    del data["models"]["qwen2.5-coder-1.5b"]
    with pytest.raises(ConfigError) as info:
        parse_config(data, "study/config.yaml")
    assert str(info.value) == (
        "study/config.yaml: serving_comparison.models: 'qwen2.5-coder-1.5b' is not a model of this study (models:"
        " gemma3-270m, qwen2.5-coder-0.5b, smollm2-135m): remove it, or the block, or configure the model"
    )
    del data["serving_comparison"]
    with pytest.raises(ConfigError) as info:
        parse_config(data, "study/config.yaml")
    assert str(info.value) == (
        "study/config.yaml: eligibility.requantise_models: 'qwen2.5-coder-1.5b' is not a model of this study"
        " (models: gemma3-270m, qwen2.5-coder-0.5b, smollm2-135m): remove it or configure the model"
    )
    assert "\n" not in str(info.value)
    del data["eligibility"]
    with pytest.raises(ConfigError) as info:
        parse_config(data, "study/config.yaml")
    assert str(info.value) == (
        "study/config.yaml: build_run.sampling.models: 'qwen2.5-coder-1.5b' is not an instruction-tuned model of this"
        " study (models: gemma3-270m, qwen2.5-coder-0.5b, smollm2-135m): remove it or configure the model"
    )


def test_a_protocol_not_defined_names_its_field_and_the_defined_ones() -> None:
    data = _with_model(**SERVED)
    data["protocol"] = "fulll"
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert str(info.value).startswith(
        "config.yaml: protocol: 'fulll' is not defined under `protocols` (defined: "
    )
