# Shared definitions: the validated config, the shard plan and the rules' input functions.
import functools
import os
import re
import sys
from pathlib import Path

from slmbench.analysis.topics import TOPIC_INPUTS, TOPICS, TRIAL_TOPICS, topic_files
from slmbench.config import parse_config
from slmbench.eligibility.layout import (
    BASELINES,
    RAW_DIR,
    config_id,
    eligibility_models,
    eligibility_runs,
    eligibility_variants,
    requantisable_models,
    run_path,
    variant_path,
)
from slmbench.figures.registry import FIGURE_TOPICS, FIGURES
from slmbench.figures.tables import TABLES
from slmbench.run.key import STEM_PATTERN, ShardKey
from slmbench.run.plan import plan_shards, resources, shard_for
from slmbench.vocab import ELIGIBILITY_TASKS, PROMPT_STYLES, REQUANT_TYPES, SHIPPED, STUDY_ID
from slmbench.tidy import no_trials_message
from snakemake.exceptions import WorkflowError

# Build options: settings of the build, not of the science, accepted by `--config` beside config.yaml.
BUILD_OPTIONS = ("site_base",)
STUDY = parse_config({key: value for key, value in config.items() if key not in BUILD_OPTIONS})
# Rules write `slmbench ...`; this shell function runs it with the interpreter that runs Snakemake, so a rule
# works without the virtual environment on PATH.
# (.format and then Snakemake format the prefix: each halves the braces.)
shell.prefix('set -euo pipefail; slmbench() {{{{ "{}" -m slmbench "$@"; }}}}; '.format(sys.executable))
RAW = f"data/raw/{STUDY_ID}"
PROCESSED = "data/processed"
SHARD_CACHE = f"{PROCESSED}/cache"  # each raw shard's tidy tables and replay, kept while shard and package hold
REPLAY = f"{PROCESSED}/replay_strict.parquet"


def _relative(paths):
    """Repository paths of source files (the registries give them as absolute paths)."""
    return sorted(os.path.relpath(p) for p in paths)


_TOPIC_FILES = {os.path.relpath(p) for t in TOPICS for p in topic_files(t)}
ANALYSIS_CODE = sorted(
    {str(p) for p in Path("code/slmbench/analysis").rglob("*.py") if "__pycache__" not in p.parts} - _TOPIC_FILES
    | {"code/slmbench/vocab.py", "code/slmbench/registration.py"}
)  # all the analysis but the topics (statistics, selections, phrases, shared topic code) and the vocabulary:
# editing them reruns the topics
PACKAGE_SOURCES = sorted(
    str(p)
    for part in ("tidy", "config", "conditions.py", "vocab.py", "records", "judging", "run", "tasks", "tools")
    for p in ([Path("code/slmbench", part)] if part.endswith(".py") else Path("code/slmbench", part).rglob("*"))
    if p.suffix in {".py", ".yaml"} and "__pycache__" not in p.parts
)  # what judges and tabulates a record (checks, tasks, scoring): editing any of it re-tidies
ALL_PACKAGE_SOURCES = sorted(
    str(p)
    for p in Path("code/slmbench").rglob("*")
    if p.suffix in {".py", ".yaml", ".json"} and p.is_file() and "__pycache__" not in p.parts
)  # what source_sha256 hashes: the macros rule records it in provenance.json, so any edit reruns that rule
TASK_FILES = sorted(str(p) for p in Path("code/slmbench/tasks/data").rglob("*.yaml"))
SITE = "site"
# Where each \res{} of the PDF links: <site_base>/numbers/<key>.html. Default: the site built here, relative to
# paper/main.pdf; publish both and set e.g. `--config site_base=https://example.org/slmbench`.
SITE_BASE = str(config.get("site_base", os.path.relpath(SITE, "paper")))
if not re.fullmatch(r"[A-Za-z0-9:/._~-]+", SITE_BASE):
    raise ValueError(f"site_base {SITE_BASE!r}: use letters, digits and : / . _ ~ - only (it goes into LaTeX)")


# The shard plan (slmbench.run.plan): every shard config.yaml asks for, by "<model>/<stem>".
PLAN = {shard.key.name: shard for shard in plan_shards(STUDY)}
TRIAL_SHARDS = [f"{RAW}/{name}.jsonl" for name, shard in PLAN.items() if shard.kinds - {"protocol"}]
PROTOCOL_SHARDS = [f"{RAW}/{name}.jsonl" for name, shard in PLAN.items() if "protocol" in shard.kinds]
MODEL_PATTERN = "|".join(re.escape(m) for m in STUDY.models)


@functools.cache
def _resources(name):
    shard = PLAN.get(name) or shard_for(STUDY, ShardKey.from_name(name))  # a shard the plan lacks: by hand
    return resources(STUDY, shard, Path(RAW))


def _shard_resources(wildcards):
    """Threads, memory and wall time of the shard a rule builds (``slmbench.run.plan.resources``)."""
    return _resources(f"{wildcards.model}/{wildcards.stem}")


def shard_threads(wildcards):
    """A trial shard's CPU threads (the model's size; ``slmbench.models.resources``)."""
    return _shard_resources(wildcards).threads


def shard_mem_mb(wildcards, attempt):
    """A trial shard's memory in MB (GGUF, KV cache, measured peak RSS); doubled on a retry."""
    return _shard_resources(wildcards).mem_mb * attempt


def shard_runtime(wildcards, attempt):
    """A trial shard's wall-time limit in minutes (its trials × the model's measured seconds per trial)."""
    return _shard_resources(wildcards).runtime_min * attempt


def recorded_shards(wildcards):
    """The raw shards already recorded (analysis never triggers new model runs); none at all stops the build
    with the command that records them."""
    shards = sorted(str(p) for p in Path(RAW).rglob("*.jsonl"))
    if not shards:
        raise WorkflowError(no_trials_message(Path(RAW), workflow.configfiles[-1] if workflow.configfiles else "config.yaml"))
    return shards


# Eligibility study (code/rules/eligibility.smk): configurations, planned runs, variants, input functions.
ELIG_DATA = "data/eligibility"
ELIG_BFCL = "data/external/bfcl_v4_multiple"
ELIG_CONFIGS = {
    config_id(model, quant): (model, quant)
    for model, quant in [(m, SHIPPED) for m in eligibility_models(STUDY)] + eligibility_variants(STUDY)
}
ELIG_RUNS = [str(run_path(*run)) for run in eligibility_runs(STUDY)]
ELIG_VARIANTS = [str(variant_path(model, qtype)) for model, qtype in eligibility_variants(STUDY)]
ELIG_REQUANTISABLE = requantisable_models(STUDY)
ELIG_MARGIN = STUDY.eligibility.margin if STUDY.eligibility else 0.05


def elig_variant_weights(wildcards):
    """The requantised GGUF a configuration loads (none for a shipped file: it is verified in the cache)."""
    model, quant = ELIG_CONFIGS[wildcards.config]
    return [] if quant == SHIPPED else [str(variant_path(model, quant))]


def elig_run_args(wildcards):
    """`slmbench eligibility run` options naming the configuration's model and weights (none for a shipped file
    or an Ollama model)."""
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


def elig_independent_passes(wildcards):
    """The independent labelling passes recorded (``data/eligibility/<task>/independent/labels.jsonl``)."""
    return sorted(str(p) for p in Path(ELIG_DATA).glob("*/independent/labels.jsonl"))


# Analysis and figure inputs, generated from the topic and figure registries.
ANALYSIS_BOOTSTRAP_SEED = STUDY.bootstrap_seed  # not the trial seed (`seed`): each has its own config key
ANALYSIS_N_BOOT = STUDY.bootstrap_resamples
ANALYSIS_ALPHA = STUDY.alpha
ANALYSIS_INPUTS = {
    "trials": f"{PROCESSED}/trials.parquet",
    "events": f"{PROCESSED}/events.parquet",
    "summary": f"{PROCESSED}/external_summary.parquet",
    "replay": REPLAY,
    "control": f"{PROCESSED}/control.json",
    "baselines": str(BASELINES),
    "record": elig_recorded_runs,
    "independent": elig_independent_passes,
}
"""Each topic input by name (the CLI option, ``_`` as ``-``): a path, or an input function giving a list of
paths (one option per file)."""
TOPIC_OPTIONS = {"eligibility": f"--margin {ELIG_MARGIN} --planned-runs {len(ELIG_RUNS)}"}
"""Topic parameters from the study configuration, beyond the bootstrap seed, resamples and alpha."""


def _topic_files(wildcards, topics):
    """The files the topics read (``slmbench.analysis.topics.TOPIC_INPUTS``) by CLI option name, and their
    modules (so that editing a topic reruns it and what depends on it)."""
    names = [n for n in ANALYSIS_INPUTS if any(n in TOPIC_INPUTS[t] for t in topics)]
    return {
        "module": _relative(p for t in topics for p in topic_files(t)),
        "shared": ANALYSIS_CODE,
        **{
            name: value(wildcards) if callable(value) else value
            for name, value in ((n, ANALYSIS_INPUTS[n]) for n in names)
        },
    }


def topic_inputs(wildcards):
    """The files one topic reads (a topic that does not read the trials table: rule ``analyze``)."""
    return _topic_files(wildcards, [wildcards.topic])


def trial_topic_inputs(wildcards):
    """The files the topics of the trials table read together (rule ``analyze_trials``)."""
    return _topic_files(wildcards, TRIAL_TOPICS)


def topic_options(wildcards, input):
    """``--trials ... --events ...``: one option per input file, then the topic's configured options."""
    options = [
        f"--{name.replace('_', '-')} {path}"
        for name, value in input.items()
        if name not in ("module", "shared")
        for path in ([value] if isinstance(value, str) else value)
    ]
    return " ".join([*options, TOPIC_OPTIONS.get(getattr(wildcards, "topic", ""), "")]).strip()


def table_topic(wildcards):
    """The topic JSON a table reads (its spec's topic, which need not share the table's name)."""
    return f"{PROCESSED}/{TABLES[wildcards.name].topic}.json"


TABLE_CODE = [f"code/slmbench/figures/{m}.py" for m in ("tables", "tables_grid")]  # every table's renderer
FIGURE_CODE = sorted(
    str(p)
    for p in Path("code/slmbench/figures").glob("*.py")
    if p.stem not in FIGURES and p.stem not in ("__init__", "cli", "tables", "tables_grid", "appendix")
)  # what every figure draws with (source, studies, style, layout, plots ...): editing it redraws the figures


def figure_inputs(wildcards):
    """The figure's module, the shared drawing code and the topics it reads (nothing else)."""
    return {
        "module": f"code/slmbench/figures/{wildcards.name}.py",
        "shared": FIGURE_CODE,
        **{f"topic_{t}": f"{PROCESSED}/{t}.json" for t in FIGURE_TOPICS[wildcards.name]},
    }


def figure_topic_options(wildcards, input):
    """``--topic <json>`` for each topic the figure reads."""
    return " ".join(f"--topic {path}" for name, path in input.items() if name.startswith("topic_"))


def figure_values_options(wildcards, input):
    """``--figure-values <json>`` for each figure's values file (checked by `slmbench verify`)."""
    return " ".join(f"--figure-values {path}" for path in input.values)

