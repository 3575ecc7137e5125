# The eligibility study: every configuration (embedded model x prompt x quantisation) scores four side-tasks;
# the baselines need no model; requantised variants are built from the shipped GGUFs; one topic, three
# figures, three tables. Uses STUDY from common.smk. Model runs are precious (protected) and only built on
# request (`snakemake eligibility_runs`); the analysis reads the runs already recorded, never triggers one.
# Rules call the package through the interpreter that runs Snakemake, so no PATH lookup is involved.
# Constants and input functions are in common.smk (section "Eligibility study").


rule eligibility_runs:
    """Every planned eligibility run (resumable; run one at a time: each takes both cores)."""
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
        cli=SLMBENCH,
        args=elig_run_args,
        data=ELIG_DATA,
        bfcl=ELIG_BFCL,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/eligibility/{config}/{task}_{prompt}.log",
    threads: 2
    resources:
        mem_mb=6000,
        runtime=600,
    shell:
        "{params.cli} eligibility run {params.args} --task {wildcards.task} --prompt {wildcards.prompt}"
        " --data-dir {params.data} --bfcl-dir {params.bfcl} --n-threads {threads}"
        " --out {output}.part 2> {log} && mv {output}.part {output}"


rule eligibility_quantize:
    """A shipped GGUF requantised to a lower-bit type (requantisation allowed); sha256s in the sidecar."""
    output:
        gguf="data/models/{model}-{qtype}.gguf",
        sidecar="data/models/{model}-{qtype}.gguf.json",
    wildcard_constraints:
        model="|".join(re.escape(m) for m in STUDY.eligibility_models()) or "^$",
        qtype="|".join(REQUANT_TYPES),
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/eligibility/quantize_{model}-{qtype}.log",
    threads: 2
    resources:
        mem_mb=8000,
    shell:
        "{params.cli} eligibility quantize --model {wildcards.model} --type {wildcards.qtype}"
        " --out {output.gguf} --n-threads {threads} > {log} 2>&1"


rule eligibility_baselines:
    """The non-LLM baselines' predictions for every item of every task (no model)."""
    input:
        item_files=expand("data/eligibility/{task}/items.jsonl", task=ELIGIBILITY_TASKS),
        bfcl=[
            "data/external/bfcl_v4_multiple/BFCL_v4_multiple.json",
            "data/external/bfcl_v4_multiple/possible_answer/BFCL_v4_multiple.json",
        ],
        config="config.yaml",
    output:
        str(BASELINES),
    params:
        cli=SLMBENCH,
        data=elig_data_dir,
        bfcl=elig_bfcl_dir,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/eligibility/baselines.log",
    shell:
        "{params.cli} eligibility baselines --config {input.config} --data-dir {params.data}"
        " --bfcl-dir {params.bfcl} --out {output} > {log} 2>&1"


rule analyze_eligibility:
    """The eligibility topic from the recorded runs and the baselines."""
    input:
        records=elig_recorded_runs,
        baselines=rules.eligibility_baselines.output,
        second=elig_second_passes,
    output:
        str(TOPIC),
    params:
        cli=SLMBENCH,
        alpha=ANALYSIS_ALPHA,
        margin=ELIG_MARGIN,
        second=elig_second_pass_args,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_eligibility.log",
    shell:
        "{params.cli} analyze eligibility {input.records} --baselines {input.baselines} {params.second}"
        " --out {output}"
        " --alpha {params.alpha} --margin {params.margin} > {log} 2>&1"


rule fig_eligibility_margin_vs_size:
    input:
        topic=rules.analyze_eligibility.output,
        module="code/slmbench/figures/eligibility_margin_vs_size.py",
        helper="code/slmbench/figures/eligibility_plot.py",
    output:
        pdf="figures/fig_eligibility_margin_vs_size.pdf",
        values="figures/fig_eligibility_margin_vs_size.values.json",
    log:
        "logs/figures/fig_eligibility_margin_vs_size.log",
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    shell:
        "{params.cli} figure eligibility_margin_vs_size --topic {input.topic} --out {output.pdf} > {log} 2>&1"


rule fig_eligibility_margin_vs_quant:
    input:
        topic=rules.analyze_eligibility.output,
        module="code/slmbench/figures/eligibility_margin_vs_quant.py",
        helper="code/slmbench/figures/eligibility_plot.py",
    output:
        pdf="figures/fig_eligibility_margin_vs_quant.pdf",
        values="figures/fig_eligibility_margin_vs_quant.values.json",
    log:
        "logs/figures/fig_eligibility_margin_vs_quant.log",
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    shell:
        "{params.cli} figure eligibility_margin_vs_quant --topic {input.topic} --out {output.pdf} > {log} 2>&1"


rule fig_cascade_cost_accuracy:
    input:
        topic=rules.analyze_eligibility.output,
        module="code/slmbench/figures/cascade_cost_accuracy.py",
        helper="code/slmbench/figures/eligibility_plot.py",
    output:
        pdf="figures/fig_cascade_cost_accuracy.pdf",
        values="figures/fig_cascade_cost_accuracy.values.json",
    log:
        "logs/figures/fig_cascade_cost_accuracy.log",
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    shell:
        "{params.cli} figure cascade_cost_accuracy --topic {input.topic} --out {output.pdf} > {log} 2>&1"


rule table_eligibility:
    input:
        topic=rules.analyze_eligibility.output,
        module="code/slmbench/figures/tables_grid.py",
    output:
        "paper/generated/tab_eligibility.tex",
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_eligibility.log",
    shell:
        "{params.cli} table eligibility --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_eligibility_diagnosis:
    input:
        topic=rules.analyze_eligibility.output,
        module="code/slmbench/figures/tables_grid.py",
    output:
        "paper/generated/tab_eligibility_diagnosis.tex",
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_eligibility_diagnosis.log",
    shell:
        "{params.cli} table eligibility_diagnosis --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_eligibility_cascade:
    input:
        topic=rules.analyze_eligibility.output,
        module="code/slmbench/figures/tables_grid.py",
    output:
        "paper/generated/tab_eligibility_cascade.tex",
    params:
        cli=SLMBENCH,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_eligibility_cascade.log",
    shell:
        "{params.cli} table eligibility_cascade --analysis {input.topic} --out {output} > {log} 2>&1"
