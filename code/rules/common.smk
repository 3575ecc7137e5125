# Shared definitions: the validated config and the shard plan.
import re
import shlex
import sys
from pathlib import Path

from slmbench.config import parse_config
from slmbench.eligibility.layout import BASELINES, RAW_DIR, TOPIC, config_id, run_path, variant_path
from slmbench.vocab import ELIGIBILITY_TASKS, PROMPT_STYLES, REQUANT_TYPES, SHIPPED

STUDY = parse_config(config)
RAW = "data/raw/slmbench"
PROCESSED = "data/processed"


def _temp_tag(t):
    return f"{t:g}"


SHARDS = [
    f"{RAW}/{model}/{suite}_T{_temp_tag(t)}_{STUDY.scaffold}_{STUDY.parser_mode}.jsonl"
    for model in STUDY.models
    for suite in STUDY.suites
    for t in STUDY.temperatures
]
COMPARISON = [
    f"{RAW}/{model}/{suite}_T{_temp_tag(t)}_{scaffold}_{STUDY.parser_mode}.jsonl"
    for model, suite, t, scaffold in STUDY.comparison_shards()
]
CONTEXT = [
    f"{RAW}/{model}/{suite}_T{_temp_tag(t)}_{STUDY.scaffold}_{STUDY.parser_mode}_ctx{n_ctx}.jsonl"
    for model, suite, t, n_ctx in STUDY.context_shards()
]
PROTOCOL = [
    f"{RAW}/{shard.model}/{shard.stem(STUDY.scaffold, STUDY.parser_mode)}.jsonl"
    for shard in STUDY.protocol_shards()
]
PROTOCOL_SHARDS = {
    f"{shard.model}/{shard.stem(STUDY.scaffold, STUDY.parser_mode)}": shard
    for shard in STUDY.protocol_shards()
}


def protocol_args(wildcards):
    """The `slmbench run` options of one protocol-study shard (from its planned spec)."""
    shard = PROTOCOL_SHARDS[f"{wildcards.model}/{wildcards.stem}"]
    args = f"--suite {shard.suite} --temperature {shard.temperature:g} --protocol {shard.protocol}"
    args += f" --repeats {shard.repeats}"
    args += f" --max-turns {shard.max_turns}" if shard.max_turns else ""
    args += f" --max-tokens {shard.max_tokens}" if shard.max_tokens else ""
    return args


NULL_CONTROL = (
    [f"{RAW}/{model}/null_control_T0_{STUDY.scaffold}_{STUDY.parser_mode}.jsonl" for model in STUDY.models]
    if STUDY.null_control
    else []
)


def recorded_shards(wildcards):
    """The raw shards already recorded (analysis never triggers new model runs)."""
    return sorted(str(p) for p in Path(RAW).rglob("*.jsonl"))


# Eligibility study (code/rules/eligibility.smk): configurations, planned runs, variants, input functions.
SLMBENCH = f"{shlex.quote(sys.executable)} -m slmbench"
ELIG_DATA = "data/eligibility"
ELIG_BFCL = "data/external/bfcl_v4_multiple"
ELIG_CONFIGS = {
    config_id(model, quant): (model, quant)
    for model, quant in [(m, SHIPPED) for m in STUDY.eligibility_models()] + STUDY.eligibility_variants()
}
ELIG_RUNS = [str(run_path(*run)) for run in STUDY.eligibility_runs()]
ELIG_VARIANTS = [str(variant_path(model, qtype)) for model, qtype in STUDY.eligibility_variants()]
ELIG_MARGIN = STUDY.eligibility.margin if STUDY.eligibility else 0.05
ELIG_FIGURES = ["eligibility_margin_vs_size", "eligibility_margin_vs_quant", "cascade_cost_accuracy"]
ELIG_TABLES = ["eligibility", "eligibility_diagnosis", "eligibility_cascade"]


def elig_variant_weights(wildcards):
    """The requantised GGUF a configuration loads (none for a shipped file: it is verified in the cache)."""
    model, quant = ELIG_CONFIGS[wildcards.config]
    return [] if quant == SHIPPED else [str(variant_path(model, quant))]


def elig_run_args(wildcards):
    """`slmbench eligibility run` options naming the configuration's model and weights."""
    model, quant = ELIG_CONFIGS[wildcards.config]
    args = f"--model {model} --quant {quant}"
    return args if quant == SHIPPED else args + f" --weights {variant_path(model, quant)}"


def elig_data_dir(wildcards, input):
    """The folder of the task folders (from the baselines rule's item files)."""
    return str(Path(input.item_files[0]).parent.parent)


def elig_bfcl_dir(wildcards, input):
    """The BFCL folder (from the baselines rule's question file)."""
    return str(Path(input.bfcl[0]).parent)


def elig_recorded_runs(wildcards):
    """The eligibility runs already recorded (the analysis never triggers model runs)."""
    return sorted(str(p) for p in RAW_DIR.rglob("*.jsonl"))


def elig_second_passes(wildcards):
    """The blind second labelling passes recorded so far (``data/eligibility/<task>/labels2.jsonl``)."""
    return sorted(str(p) for p in Path(ELIG_DATA).glob("*/labels2.jsonl"))


def elig_second_pass_args(wildcards, input):
    """One ``--second-pass`` option per recorded second pass."""
    return " ".join(f"--second-pass {path}" for path in input.second)
