# Raw shards + the imported published study → tidy tables.


rule import_external:
    input:
        readme="data/external/karmacharya2026/README.md",
        code=code_inputs("import-external"),
    output:
        trials="data/processed/external_trials.parquet",
        summary="data/processed/external_summary.parquet",
    log:
        "logs/import_external.log",
    shell:
        "slmbench import-external --root data/external/karmacharya2026"
        " --out {output.trials} --out-summary {output.summary} 2> {log}"


rule tidy:
    input:
        shards=recorded_shards,
        external="data/processed/external_trials.parquet",
        config="config.yaml",
        code=code_inputs("tidy"),  # what judges and tabulates a record: editing it re-tidies
    output:
        trials="data/processed/trials.parquet",
        events="data/processed/events.parquet",
        manifest="data/processed/manifest.json",
    params:
        cache=SHARD_CACHE,
    threads: workflow.cores
    log:
        "logs/tidy.log",
    shell:
        "slmbench tidy --config {input.config} --raw-dir data/raw --external {input.external}"
        " --out-trials {output.trials} --out-events {output.events} --out-manifest {output.manifest}"
        " --cache-dir {params.cache} --jobs {threads} 2> {log}"
