# The reviewer's audit site: raw shards + tidy trials + the paper's provenance -> site/ (static HTML, opens
# from disk). `snakemake site`, then open site/index.html; each \res{} of the PDF links to site/numbers/<key>.html.


rule site:
    """Every trial's transcript and one page per number with the trials behind it (`slmbench view`)."""
    input:
        shards=recorded_shards,
        trials=f"{PROCESSED}/trials.parquet",
        provenance=rules.macros.output.provenance,
        code=code_inputs("view"),  # the site's assets among them
    output:
        directory(SITE),
    params:
        raw=RAW_ROOT,
    log:
        "logs/site/site.log",
    shell:
        "slmbench view --raw-dir {params.raw:q} --trials {input.trials:q} --provenance {input.provenance:q}"
        " --out {output:q} > {log:q} 2>&1"
