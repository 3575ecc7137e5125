# The eligibility study's model runs: every configuration (embedded or Ollama model x prompt x quantisation)
# scores four side-tasks; requantised variants are built from the shipped GGUFs (embedded models only; an
# Ollama model is served at OLLAMA_HOST and scored under its own rule). Runs are precious (protected) and only
# built on request (`snakemake eligibility_runs`); like trial shards they are written to `<run>.part` and
# renamed when complete, so an interrupted run resumes. The topic, figures and tables come from the generic
# `analyze`, `fig` and `table` rules (registries: TOPIC_INPUTS, FIGURE_TOPICS, TABLES) and the baselines from
# `eligibility_baselines` below; the topic reads the runs already recorded and never triggers one.
include: "inputs/eligibility.smk"


rule eligibility_runs:
    """Every planned eligibility run (run one at a time: each takes both cores)."""
    input:
        ELIG_RUNS,


rule eligibility_variants:
    """Every requantised variant of the shipped GGUFs, with its checksum sidecar."""
    input:
        ELIG_VARIANTS,


rule eligibility_run:
    """One configuration scores every item of one task under one prompt (both splits)."""
    input:
        weights=elig_variant_weights,
    output:
        protected("data/raw/eligibility/{config}/{task}_{prompt}.jsonl"),
    wildcard_constraints:
        config="|".join(re.escape(c) for c in ELIG_CONFIGS) or "^$",
        task="|".join(ELIGIBILITY_TASKS),
        prompt="|".join(PROMPT_STYLES),
    params:
        config=STUDY_CONFIG,
        args=elig_run_args,
        data=ELIG_DATA,
        bfcl=ELIG_BFCL,
        part=part_file,
    log:
        "logs/eligibility/{config}/{task}_{prompt}.log",
    threads: 2
    resources:
        mem_mb=6000,
        runtime=600,
    shell:
        "slmbench eligibility run --config {params.config:q} {params.args} --task {wildcards.task:q}"
        " --prompt {wildcards.prompt:q} --data-dir {params.data:q} --bfcl-dir {params.bfcl:q} --n-threads {threads}"
        " --out {params.part:q} 2> {log:q} && mv {params.part:q} {output:q}"


rule eligibility_quantize:
    """A shipped GGUF requantised to a lower-bit type (requantisation allowed); sha256s in the sidecar."""
    output:
        gguf=protected("data/models/{model}-{qtype}.gguf"),  # the weights precious runs were scored with
        sidecar=protected("data/models/{model}-{qtype}.gguf.json"),
    wildcard_constraints:
        model="|".join(re.escape(m) for m in ELIG_REQUANTISABLE) or "^$",
        qtype="|".join(REQUANT_TYPES),
    params:
        config=STUDY_CONFIG,
    log:
        "logs/eligibility/quantize_{model}-{qtype}.log",
    threads: 2
    resources:
        mem_mb=8000,
    shell:
        "slmbench eligibility quantize --config {params.config:q} --model {wildcards.model:q}"
        " --type {wildcards.qtype:q} --out {output.gguf:q} --n-threads {threads} > {log:q} 2>&1"


rule eligibility_baselines:
    """The eligibility study's non-LLM baselines: a prediction for every item of every task (no model)."""
    input:
        item_files=expand(f"{ELIG_DATA}/{{task}}/items.jsonl", task=ELIGIBILITY_TASKS),
        rubrics=expand(f"{ELIG_DATA}/{{task}}/rubric.md", task=ELIGIBILITY_TASKS),
        bfcl=[f"{ELIG_BFCL}/BFCL_v4_multiple.json", f"{ELIG_BFCL}/possible_answer/BFCL_v4_multiple.json"],
        config=STUDY_CONFIG,
        code=code_inputs("eligibility"),
    output:
        str(BASELINES),
    params:
        data=elig_data_dir,
        bfcl=elig_bfcl_dir,
    log:
        "logs/eligibility/baselines.log",
    shell:
        "slmbench eligibility baselines --config {input.config:q} --data-dir {params.data:q}"
        " --bfcl-dir {params.bfcl:q} --out {output:q} > {log:q} 2>&1"
