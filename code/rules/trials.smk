# Trial shards (model × suite × temperature × scaffold × mode; scaffold-comparison shards at the lowest
# temperature): expensive, so only built on request
# (`snakemake trials`). Each shard's threads, memory and wall time come from its model and its trial count
# (shard_threads, shard_mem_mb, shard_runtime in common.smk; slmbench.models.resources), which is what a
# SLURM job asks for. A shard is written to `<shard>.part` and renamed when complete, so an interrupted
# run keeps every finished trial and resumes where it stopped.


rule trials:
    input:
        SHARDS + NULL_CONTROL + COMPARISON + CONTEXT,


rule protocol_trials:
    """The protocol study's shards only (resumable; run one at a time: each takes both cores)."""
    input:
        PROTOCOL,


rule shard:
    output:
        protected(f"{RAW}/{{model}}/{{suite}}_T{{temp}}_{{scaffold}}_{{mode}}.jsonl"),
    wildcard_constraints:
        suite=SUITE_PATTERN,
        scaffold=SCAFFOLD_PATTERN,
        mode=MODE_PATTERN,
    params:
        tasks=",".join(STUDY.tasks),
    log:
        "logs/trials/{model}/{suite}_T{temp}_{scaffold}_{mode}.log",
    threads: shard_threads
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    shell:
        "slmbench run --model {wildcards.model} --suite {wildcards.suite} --temperature {wildcards.temp}"
        " --scaffold {wildcards.scaffold} --mode {wildcards.mode} --tasks '{params.tasks}'"
        " --no-progress --out {output}.part"
        " 2> {log} && mv {output}.part {output}"


rule context_shard:
    """The same trials with a smaller context window (the context-cap comparison)."""
    output:
        protected(f"{RAW}/{{model}}/{{suite}}_T{{temp}}_{{scaffold}}_{{mode}}_ctx{{n_ctx}}.jsonl"),
    wildcard_constraints:
        suite=SUITE_PATTERN,
        scaffold=SCAFFOLD_PATTERN,
        mode=MODE_PATTERN,
        n_ctx="[0-9]+",
    params:
        tasks=",".join(STUDY.tasks),
    log:
        "logs/trials/{model}/{suite}_T{temp}_{scaffold}_{mode}_ctx{n_ctx}.log",
    threads: shard_threads
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    shell:
        "slmbench run --model {wildcards.model} --suite {wildcards.suite} --temperature {wildcards.temp}"
        " --scaffold {wildcards.scaffold} --mode {wildcards.mode} --tasks '{params.tasks}' --n-ctx {wildcards.n_ctx}"
        " --no-progress --out {output}.part"
        " 2> {log} && mv {output}.part {output}"


rule null_control_shard:
    output:
        protected(f"{RAW}/{{model}}/null_control_T0_{{scaffold}}_{{mode}}.jsonl"),
    params:
        tasks=",".join(STUDY.null_control.tasks) if STUDY.null_control else "",
        reruns=STUDY.null_control.reruns if STUDY.null_control else 2,
    log:
        "logs/trials/{model}/null_control_{scaffold}_{mode}.log",
    threads: shard_threads
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    shell:
        "slmbench run --model {wildcards.model} --suite capability --temperature 0"
        " --scaffold {wildcards.scaffold} --mode {wildcards.mode} --tasks {params.tasks}"
        " --repeats {params.reruns} --shard-name null_control --suite-label null_control --no-progress --out {output}.part"
        " 2> {log} && mv {output}.part {output}"


rule protocol_shard:
    """A protocol-study shard: named protocol conditions, repeats and limits as config plans them."""
    output:
        protected(f"{RAW}/{{model}}/{{stem}}.jsonl"),
    wildcard_constraints:
        stem="[a-z_]+_T[0-9.]+_[a-z]+_[a-z]+_p-[a-z0-9-]+(_turns[0-9]+)?(_tok[0-9]+)?(_rerun-[a-z0-9-]+)?",
    params:
        args=protocol_args,
        tasks=",".join(STUDY.tasks),
    log:
        "logs/trials/{model}/{stem}.log",
    threads: shard_threads
    resources:
        mem_mb=shard_mem_mb,
        runtime=shard_runtime,
    shell:
        "slmbench run --model {wildcards.model} {params.args} --tasks '{params.tasks}'"
        " --shard-name {wildcards.stem} --no-progress --out {output}.part"
        " 2> {log} && mv {output}.part {output}"
