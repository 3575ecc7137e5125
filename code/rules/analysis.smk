# Analysis: tidy tables -> one JSON per topic -> the paper's number macros with provenance.
# Every path is an argument of the command, so each line also runs by hand.

ANALYSIS_SEED = config.get("seed", 20260101)
ANALYSIS_N_BOOT = config.get("bootstrap_resamples", 1000)
ANALYSIS_ALPHA = config.get("alpha", 0.05)


rule analyze_external:
    input:
        trials="data/processed/trials.parquet",
        summary="data/processed/external_summary.parquet",
    output:
        "data/processed/external.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_external.log",
    shell:
        "slmbench analyze external --trials {input.trials} --summary {input.summary} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule analyze_capability:
    input:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
    output:
        "data/processed/capability.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_capability.log",
    shell:
        "slmbench analyze capability --trials {input.trials} --events {input.events} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule analyze_reliability:
    input:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
    output:
        "data/processed/reliability.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_reliability.log",
    shell:
        "slmbench analyze reliability --trials {input.trials} --events {input.events} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule analyze_failures:
    input:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
    output:
        "data/processed/failures.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_failures.log",
    shell:
        "slmbench analyze failures --trials {input.trials} --events {input.events} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule analyze_temperature:
    input:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
    output:
        "data/processed/temperature.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_temperature.log",
    shell:
        "slmbench analyze temperature --trials {input.trials} --events {input.events} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule replay_strict:
    """The boundary study: every recorded model output re-parsed through the strict parser, offline."""
    input:
        shards=recorded_shards,
    output:
        "data/processed/replay_strict.json",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/replay_strict.log",
    shell:
        "slmbench replay {input.shards} --mode strict --out {output} > {log} 2>&1"


rule analyze_boundary:
    input:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
        replay="data/processed/replay_strict.json",
    output:
        "data/processed/boundary.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_boundary.log",
    shell:
        "slmbench analyze boundary --trials {input.trials} --events {input.events} --replay {input.replay}"
        " --out {output} --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule analyze_scaffold:
    """The scaffold comparison: the same tasks in the primary and the other scaffold, paired."""
    input:
        trials="data/processed/trials.parquet",
    output:
        "data/processed/scaffold.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_scaffold.log",
    shell:
        "slmbench analyze scaffold --trials {input.trials} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule analyze_context:
    """The context-cap comparison: the same tasks with the configured and a smaller context window, paired."""
    input:
        trials="data/processed/trials.parquet",
    output:
        "data/processed/context.json",
    params:
        seed=ANALYSIS_SEED,
        n_boot=ANALYSIS_N_BOOT,
        alpha=ANALYSIS_ALPHA,
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/analyze_context.log",
    shell:
        "slmbench analyze context --trials {input.trials} --out {output}"
        " --seed {params.seed} --n-boot {params.n_boot} --alpha {params.alpha} > {log} 2>&1"


rule macros:
    input:
        manifest="data/processed/manifest.json",
        topics=[
            "data/processed/external.json",
            "data/processed/capability.json",
            "data/processed/reliability.json",
            "data/processed/failures.json",
            "data/processed/temperature.json",
            "data/processed/boundary.json",
            "data/processed/scaffold.json",
            "data/processed/context.json",
        ],
    output:
        tex="paper/generated/numbers.tex",
        provenance="paper/generated/provenance.json",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/macros.log",
    shell:
        "slmbench macros --manifest {input.manifest} --out-tex {output.tex}"
        " --out-provenance {output.provenance} {input.topics} > {log} 2>&1"


rule verify:
    """Recompute every number from the raw shards (tidy again, analyse again) and compare with paper/generated."""
    input:
        shards=recorded_shards,
        external="data/processed/external_trials.parquet",
        summary="data/processed/external_summary.parquet",
        replay="data/processed/replay_strict.json",
        config="config.yaml",
    params:
        generated="paper/generated",  # read as committed, never rebuilt before the comparison
    conda:
        "../../envs/environment.yml"
    log:
        "logs/analysis/verify.log",
    shell:
        "tmp=$(mktemp -d) && slmbench tidy --config {input.config} --raw-dir data/raw --external {input.external}"
        " --out-trials $tmp/trials.parquet --out-events $tmp/events.parquet --out-manifest $tmp/manifest.json"
        " > {log} 2>&1 && slmbench verify --trials $tmp/trials.parquet --events $tmp/events.parquet"
        " --summary {input.summary} --generated {params.generated} >> {log} 2>&1; status=$?; rm -rf $tmp;"
        " cat {log}; exit $status"
