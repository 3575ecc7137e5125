# Raw shards + the imported published study → tidy tables.


rule import_external:
    input:
        "data/external/karmacharya2026/README.md",
    output:
        trials=PROCESSED + "/external_trials.parquet",
        summary=PROCESSED + "/external_summary.parquet",
    log:
        "logs/import_external.log",
    shell:
        "slmbench import-external --root data/external/karmacharya2026"
        " --out {output.trials} --out-summary {output.summary} 2> {log}"


rule tidy:
    input:
        shards=recorded_shards,
        external=PROCESSED + "/external_trials.parquet",
        config="config.yaml",
    output:
        trials=PROCESSED + "/trials.parquet",
        events=PROCESSED + "/events.parquet",
        manifest=PROCESSED + "/manifest.json",
    log:
        "logs/tidy.log",
    shell:
        "slmbench tidy --config {input.config} --raw-dir data/raw --external {input.external}"
        " --out-trials {output.trials} --out-events {output.events} --out-manifest {output.manifest} 2> {log}"
