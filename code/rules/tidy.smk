# Raw shards + the imported published study → tidy tables. The published study is imported only where the config
# names it (`published_studies`): a study without it tabulates its own trials alone.
PUBLISHED_ROOT = tool_path("data/external/karmacharya2026")
PUBLISHED_TRIALS = [f"{PROCESSED}/external_trials.parquet"] if STUDY.published_studies else []
PUBLISHED_SUMMARY = [f"{PROCESSED}/external_summary.parquet"] if STUDY.published_studies else []


rule import_external:
    input:
        readme=f"{PUBLISHED_ROOT}/README.md",
        code=code_inputs("import-external"),
    output:
        trials=f"{PROCESSED}/external_trials.parquet",
        summary=f"{PROCESSED}/external_summary.parquet",
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
        external=PUBLISHED_TRIALS,
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
