# Paper: LaTeX tables from the analysis topics, then the PDF with latexmk.
include: "inputs/paper.smk"


PAPER_TEMPLATES = sorted(str(p) for p in Path("paper/templates").glob("*.tex.j2"))
PAPER_TEXT = [f"paper/generated/text_{place}.tex" for place in ("abstract", "body", "appendix")]
STUDY_CONFIG = workflow.configfiles[-1] if workflow.configfiles else "config.yaml"


rule paper_text:
    """The paper's text (slmbench.paper): every section the study ran, rendered from the templates with the
    study's facts (config, plan, trials) and result keys."""
    input:
        config=STUDY_CONFIG,
        numbers="paper/generated/numbers.tex",
        trials=f"{PROCESSED}/trials.parquet",
        templates=PAPER_TEMPLATES,
        code=PAPER_TEXT_CODE,
    output:
        PAPER_TEXT,
    log:
        "logs/paper/paper_text.log",
    shell:
        "slmbench paper-text --config {input.config} --numbers {input.numbers} --trials {input.trials}"
        " --templates paper/templates --out-dir paper/generated > {log} 2>&1"


rule table:
    """A LaTeX table (slmbench.figures.tables.TABLES) from the analysis topic it declares."""
    input:
        topic=table_topic,
        code=TABLE_CODE,
    output:
        report("paper/generated/tab_{name}.tex", category="Tables", labels={"table": "{name}"}),
    wildcard_constraints:
        name="|".join(TABLES),
    log:
        "logs/paper/table_{name}.log",
    shell:
        "slmbench table {wildcards.name} --analysis {input.topic} --out {output} > {log} 2>&1"


rule appendix:
    """The per-task table and example transcripts (from the protocol topic and the raw records)."""
    input:
        protocol=f"{PROCESSED}/protocol.json",
        trials=f"{PROCESSED}/trials.parquet",
        code=code_inputs("appendix"),
    output:
        table="paper/generated/tab_per_task.tex",
        transcripts="paper/generated/transcripts.tex",
    log:
        "logs/paper/appendix.log",
    shell:
        "slmbench appendix --protocol {input.protocol} --trials {input.trials}"
        " --out-table {output.table} --out-transcripts {output.transcripts} > {log} 2>&1"


rule pdf:
    input:
        main="paper/main.tex",
        text=rules.paper_text.output,
        bib="paper/references.bib",
        numbers="paper/generated/numbers.tex",
        tables=expand("paper/generated/tab_{name}.tex", name=TABLES),
        appendix=rules.appendix.output,
        figures=expand("figures/fig_{name}.pdf", name=FIGURES),
    output:
        report("paper/main.pdf", category="Paper"),
    params:
        site=SITE_BASE,  # each \res{} links to {site}/numbers/<key>.html
    log:
        "logs/paper/pdf.log",
    shell:
        "latexmk -g -cd -pdf -interaction=nonstopmode -halt-on-error"
        " -usepretex='\\def\\slmsite{{{params.site}}}' {input.main} > {log} 2>&1"
