# The eligibility study's constants and input functions (rules in code/rules/eligibility.smk).
from slmbench.vocab import ELIGIBILITY_TASKS, PROMPT_STYLES, REQUANT_TYPES, SHIPPED
from slmbench.eligibility.layout import (
    BASELINES,
    config_id,
    eligibility_models,
    eligibility_runs,
    eligibility_variants,
    requantisable_models,
    run_path,
    variant_path,
)

# The eligibility study: configurations, planned runs, variants, input functions.
ELIG_DATA = tool_path("data/eligibility")  # the data sets: the workflow's, in every study
ELIG_BFCL = tool_path("data/external/bfcl_v4_multiple")
ELIG_CONFIGS = {
    config_id(model, quant): (model, quant)
    for model, quant in [(m, SHIPPED) for m in eligibility_models(STUDY)] + eligibility_variants(STUDY)
}
ELIG_RUNS = [str(run_path(*run)) for run in eligibility_runs(STUDY)]
ELIG_VARIANTS = [str(variant_path(model, qtype)) for model, qtype in eligibility_variants(STUDY)]
ELIG_REQUANTISABLE = requantisable_models(STUDY)
ELIG_MARGIN = STUDY.eligibility.margin if STUDY.eligibility else 0.05
ELIG_BASELINES = [str(BASELINES)] if STUDY.eligibility else []


def elig_variant_weights(wildcards):
    """The requantised GGUF a configuration loads (none for a shipped file: it is verified in the cache)."""
    model, quant = ELIG_CONFIGS[wildcards.config]
    return [] if quant == SHIPPED else [str(variant_path(model, quant))]


def elig_run_args(wildcards):
    """`slmbench eligibility run` options naming the configuration's model and weights (none for a shipped file
    or an Ollama model)."""
    model, quant = ELIG_CONFIGS[wildcards.config]
    args = ["--model", model, "--quant", quant]
    return shlex.join(args if quant == SHIPPED else [*args, "--weights", str(variant_path(model, quant))])


def elig_data_dir(wildcards, input):
    """The folder of the task folders (from the baselines rule's item files)."""
    return str(Path(input.item_files[0]).parent.parent)


def elig_bfcl_dir(wildcards, input):
    """The BFCL folder (from the baselines rule's question file)."""
    return str(Path(input.bfcl[0]).parent)


def elig_recorded_runs(wildcards):
    """The planned eligibility runs already recorded (the analysis never triggers model runs, and reads no run of
    a configuration the config no longer plans)."""
    return sorted(run for run in ELIG_RUNS if Path(run).is_file())


def elig_independent_passes(wildcards):
    """The independent labelling passes recorded (``data/eligibility/<task>/independent/labels.jsonl``)."""
    return sorted(str(p) for p in Path(ELIG_DATA).glob("*/independent/labels.jsonl"))
