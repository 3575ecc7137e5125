# Shared definitions: the validated config and the shard plan.
from pathlib import Path

from slmbench.config import parse_config

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
