# Analysis: tidy tables -> one JSON per topic -> the paper's number macros with provenance.
# Every path is an argument of the command, so each line also runs by hand.
include: "inputs/analysis.smk"


rule analyze_trials:
    """The topics of the trials table in one process, which reads the tables once and computes the topics in
    forked workers (slmbench.analysis.batch): tidy tables -> data/processed/<topic>.json each. Editing one topic
    reruns them all (seconds at this study's scale)."""
    input:
        unpack(trial_topic_inputs),
    output:
        expand(f"{PROCESSED}/{{topic}}.json", topic=STUDY_TRIAL_TOPICS),
    params:
        topics=shlex.join(STUDY_TRIAL_TOPICS),
        options=topic_options,
        out_dir=output_dir,
        bootstrap_seed=ANALYSIS_BOOTSTRAP_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
        equivalence_margin=ANALYSIS_EQUIVALENCE_MARGIN,
    threads: workflow.cores
    log:
        "logs/analysis/analyze_trials.log",
    shell:
        "slmbench analyze-trials {params.topics} {params.options} --out-dir {params.out_dir:q} --jobs {threads}"
        " --bootstrap-seed {params.bootstrap_seed} --n-boot {params.n_boot} --alpha {params.alpha}"
        " --equivalence-margin {params.equivalence_margin} > {log:q} 2>&1"


rule analyze:
    """One topic that reads its own inputs, not the trials table: -> data/processed/<topic>.json."""
    input:
        unpack(topic_inputs),
    output:
        f"{PROCESSED}/{{topic}}.json",
    wildcard_constraints:
        topic="|".join(t for t in STUDY_TOPICS if t not in TRIAL_TOPICS) or "^$",
    params:
        options=topic_options,
        bootstrap_seed=ANALYSIS_BOOTSTRAP_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    log:
        "logs/analysis/analyze_{topic}.log",
    shell:
        "slmbench analyze {wildcards.topic:q} {params.options} --out {output:q}"
        " --bootstrap-seed {params.bootstrap_seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log:q} 2>&1"


rule replay_strict:
    """The boundary study: every recorded model output re-parsed through the strict parser, offline."""
    input:
        shards=recorded_shards,
        code=code_inputs("replay"),
    output:
        REPLAY,
    params:
        cache=SHARD_CACHE,
    threads: workflow.cores
    log:
        "logs/analysis/replay_strict.log",
    shell:
        "slmbench replay {input.shards:q} --mode strict --out {output:q} --cache-dir {params.cache:q}"
        " --jobs {threads} > {log:q} 2>&1"


rule positive_control:
    """Every task's reference and wrong solution driven through the loop by a scripted model."""
    input:
        code=code_inputs("control"),  # the task files among them
    output:
        f"{PROCESSED}/control.json",
    log:
        "logs/analysis/positive_control.log",
    shell:
        "slmbench control --out {output:q} > {log:q} 2>&1"


rule macros:
    input:
        manifest="data/processed/manifest.json",
        topics=expand(f"{PROCESSED}/{{topic}}.json", topic=STUDY_TOPICS),
        package=ALL_PACKAGE_SOURCES,
    output:
        tex="paper/generated/numbers.tex",
        provenance="paper/generated/provenance.json",
    log:
        "logs/analysis/macros.log",
    shell:
        "slmbench macros --manifest {input.manifest:q} --out-tex {output.tex:q}"
        " --out-provenance {output.provenance:q} {input.topics:q} > {log:q} 2>&1"


rule verify:
    """Recompute every number from the raw shards (tidy again, analyse again) and compare with paper/generated,
    and every value a figure plotted (figures/*.values.json) with the recomputed number of its key."""
    input:
        shards=recorded_shards,
        external=PUBLISHED_TRIALS,
        summary=PUBLISHED_SUMMARY,
        replay=REPLAY,
        control=f"{PROCESSED}/control.json",
        baselines=ELIG_BASELINES,
        config=STUDY_CONFIG,
        values=expand("figures/fig_{name}.values.json", name=STUDY_FIGURES),
        code=code_inputs("tidy", "verify"),
    params:
        raw=RAW_ROOT,
        external=external_option,
        summary=summary_option,
        generated="paper/generated",  # read as committed, never rebuilt before the comparison
        values=figure_values_options,
    threads: workflow.cores
    log:
        "logs/analysis/verify.log",
    shell:
        "tmp=$(mktemp -d) && slmbench tidy --config {input.config:q} --raw-dir {params.raw:q} {params.external}"
        " --jobs {threads}"
        ' --out-trials "$tmp/trials.parquet" --out-events "$tmp/events.parquet" --out-manifest "$tmp/manifest.json"'
        ' > {log:q} 2>&1 && slmbench verify --trials "$tmp/trials.parquet" --events "$tmp/events.parquet"'
        " {params.summary} --generated {params.generated:q} {params.values} >> {log:q} 2>&1; status=$?;"
        ' rm -rf "$tmp"; cat {log:q}; exit $status'
