# Raw shards + the imported published study → tidy tables.
PUBLISHED_ROOT = "data/external/karmacharya2026"


rule import_external:
    input:
        readme=f"{PUBLISHED_ROOT}/README.md",
        code=code_inputs("import-external"),
    output:
        trials="data/processed/external_trials.parquet",
        summary="data/processed/external_summary.parquet",
    log:
        "logs/import_external.log",
    params:
        root=input_dir,  # its README's folder
    shell:
        "slmbench import-external --root {params.root:q}"
        " --out {output.trials:q} --out-summary {output.summary:q} 2> {log:q}"


rule tidy:
    input:
        shards=recorded_shards,
        external="data/processed/external_trials.parquet",
        config=STUDY_CONFIG,
        code=code_inputs("tidy"),  # what judges and tabulates a record: editing it re-tidies
    output:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
        manifest="data/processed/manifest.json",
    params:
        raw=RAW_ROOT,
        external=external_option,
        cache=SHARD_CACHE,
    threads: workflow.cores
    log:
        "logs/tidy.log",
    shell:
        "slmbench tidy --config {input.config:q} --raw-dir {params.raw:q} {params.external}"
        " --out-trials {output.trials:q} --out-events {output.events:q} --out-manifest {output.manifest:q}"
        " --cache-dir {params.cache:q} --jobs {threads} 2> {log:q}"
