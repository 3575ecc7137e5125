# Trial shards: every shard config.yaml plans (slmbench.run.plan), expensive, so only built on request
# (`snakemake trials`, `snakemake protocol_trials`). One rule runs any shard by its name, <model>/<stem>: the
# plan gives its repeats and tasks, and from its model and trial count its threads, memory and wall time
# (shard_threads, shard_mem_mb, shard_runtime in inputs/trials.smk; slmbench.models.resources), which is what a
# SLURM job asks for. A shard is written to `<shard>.part` and renamed when complete, so an interrupted run
# keeps every finished trial and resumes where it stopped.
include: "inputs/trials.smk"


rule trials:
    """The primary shards, the null control and the scaffold and context comparisons (resumable)."""
    input:
        TRIAL_SHARDS,


rule protocol_trials:
    """The protocol study's shards only (resumable; run one at a time: each takes both cores)."""
    input:
        PROTOCOL_SHARDS,


rule shard:
    """One shard of trials, `slmbench run --shard <model>/<stem>`."""
    output:
        protected(f"{RAW}/{{model}}/{{stem}}.jsonl"),
    wildcard_constraints:
        model=MODEL_PATTERN,
        stem=STEM_PATTERN,
    params:
        config=STUDY_CONFIG,
        shard=shard_name,
        part=part_file,
    log:
        "logs/trials/{model}/{stem}.log",
    threads: shard_threads
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
        **SERVED_CLAIMS,
    shell:
        "slmbench run --config {params.config:q} --shard {params.shard:q} --no-progress"
        " --out {params.part:q} 2> {log:q} && mv {params.part:q} {output:q}"
