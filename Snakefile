# slmbench: trials → raw JSONL → tidy tables → statistics → figures → paper/main.pdf
# `snakemake paper` rebuilds the paper from committed raw data (never reruns models);
# `snakemake trials` runs the shards that config.yaml plans and that are not yet recorded.
# This folder is the shipped study; `slmbench init DIR` makes a study folder of its own, whose workflow/Snakefile
# uses this one as a module (code/rules/common.smk: what is the study's and what is the workflow's).
from snakemake.utils import min_version

from slmbench.run.failures import report_failures

min_version("8.0")


configfile: "config.yaml"


include: "code/rules/common.smk"
include: "code/rules/trials.smk"
include: "code/rules/tidy.smk"
include: "code/rules/eligibility.smk"
include: "code/rules/analysis.smk"
include: "code/rules/figures.smk"
include: "code/rules/paper.smk"
include: "code/rules/site.smk"


rule paper:
    default_target: True
    input:
        "paper/main.pdf",


onerror:
    report_failures(log)
