# Shared definitions: the validated config and the shard plan.
import os
import re
import sys
from pathlib import Path

from slmbench.analysis.topics import TOPIC_INPUTS, TOPICS
from slmbench.config import parse_config
from slmbench.figures.registry import FIGURE_TOPICS, FIGURES
from slmbench.figures.tables import TABLES

# Build options: settings of the build, not of the science, accepted by `--config` beside config.yaml.
BUILD_OPTIONS = ("site_base",)
STUDY = parse_config({key: value for key, value in config.items() if key not in BUILD_OPTIONS})
# Rules write `slmbench ...`; this shell function runs it with the interpreter that runs Snakemake, so a rule
# works without the virtual environment on PATH.
# (.format and then Snakemake format the prefix: each halves the braces.)
shell.prefix('set -euo pipefail; slmbench() {{{{ "{}" -m slmbench "$@"; }}}}; '.format(sys.executable))
RAW = "data/raw/slmbench"
PROCESSED = "data/processed"
SITE = "site"
# Where each \res{} of the PDF links: <site_base>/numbers/<key>.html. Default: the site built here, relative to
# paper/main.pdf; publish both and set e.g. `--config site_base=https://example.org/slmbench`.
SITE_BASE = str(config.get("site_base", os.path.relpath(SITE, "paper")))
if not re.fullmatch(r"[A-Za-z0-9:/._~-]+", SITE_BASE):
    raise ValueError(f"site_base {SITE_BASE!r}: use letters, digits and : / . _ ~ - only (it goes into LaTeX)")


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


# Analysis and figure inputs, generated from the topic and figure registries.
ANALYSIS_SEED = config.get("seed", 20260101)
ANALYSIS_N_BOOT = config.get("bootstrap_resamples", 1000)
ANALYSIS_ALPHA = config.get("alpha", 0.05)
ANALYSIS_INPUTS = {
    "trials": f"{PROCESSED}/trials.parquet",
    "events": f"{PROCESSED}/events.parquet",
    "summary": f"{PROCESSED}/external_summary.parquet",
    "replay": f"{PROCESSED}/replay_strict.json",
}


def topic_inputs(wildcards):
    """The tables a topic reads (``slmbench.analysis.topics.TOPIC_INPUTS``), by CLI option name."""
    return {name: ANALYSIS_INPUTS[name] for name in TOPIC_INPUTS[wildcards.topic]}


def topic_options(wildcards, input):
    """``--trials ... --events ...``: one option per input of the topic."""
    return " ".join(f"--{name} {path}" for name, path in input.items())




def figure_inputs(wildcards):
    """The trials table, the figure's module and the topics it reads."""
    topics = FIGURE_TOPICS[wildcards.name]
    return {
        "trials": f"{PROCESSED}/trials.parquet",
        "module": f"code/slmbench/figures/{wildcards.name}.py",
        **{f"topic_{t}": f"{PROCESSED}/{t}.json" for t in topics},
    }


def figure_topic_options(wildcards, input):
    """``--topic <json>`` for each topic the figure reads."""
    return " ".join(f"--topic {path}" for name, path in input.items() if name.startswith("topic_"))


def table_topic(wildcards):
    """The analysis topic JSON a table reads (``TABLES[name].topic``)."""
    return f"{PROCESSED}/{TABLES[wildcards.name].topic}.json"
