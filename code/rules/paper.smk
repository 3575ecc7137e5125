# Paper: LaTeX tables from the analysis topics, then the PDF with latexmk.
include: "inputs/paper.smk"


PAPER_TEMPLATES = sorted(tool_path(p.relative_to(TOOL_DIR)) for p in (TOOL_DIR / "paper/templates").glob("*.tex.j2"))
PAPER_TEXT = [f"paper/generated/text_{place}.tex" for place in ("abstract", "body", "appendix")]


rule paper_text:
    """The paper's text (slmbench.paper): every section the study ran, rendered from the templates with the
    study's facts (config, plan, trials) and result keys."""
    input:
        templates=PAPER_TEMPLATES,
        config=STUDY_CONFIG,
        numbers="paper/generated/numbers.tex",
        trials=f"{PROCESSED}/trials.parquet",
        code=PAPER_TEXT_CODE,
    output:
        PAPER_TEXT,
    params:
        templates=input_dir,  # the templates' folder
        out_dir=output_dir,
    log:
        "logs/paper/paper_text.log",
    shell:
        "slmbench paper-text --config {input.config:q} --numbers {input.numbers:q} --trials {input.trials:q}"
        " --templates {params.templates:q} --out-dir {params.out_dir:q} > {log:q} 2>&1"


rule table:
    """A LaTeX table (slmbench.figures.tables.TABLES) from the analysis topic it declares."""
    input:
        topic=table_topic,
        code=TABLE_CODE,
    output:
        report("paper/generated/tab_{name}.tex", category="Tables", labels={"table": "{name}"}),
    wildcard_constraints:
        name="|".join(STUDY_TABLES),
    log:
        "logs/paper/table_{name}.log",
    shell:
        "slmbench table {wildcards.name:q} --analysis {input.topic:q} --out {output:q} > {log:q} 2>&1"


rule appendix:
    """The per-task table and example transcripts (from the protocol topic, or without a protocol study the
    capability topic, and the raw records)."""
    input:
        protocol=f"{PROCESSED}/protocol.json",
        capability=f"{PROCESSED}/capability.json",
        trials=f"{PROCESSED}/trials.parquet",
        code=code_inputs("appendix"),
    output:
        table="paper/generated/tab_per_task.tex",
        transcripts="paper/generated/transcripts.tex",
    log:
        "logs/paper/appendix.log",
    shell:
        "slmbench appendix --protocol {input.protocol:q} --capability {input.capability:q}"
        " --trials {input.trials:q}"
        " --out-table {output.table:q} --out-transcripts {output.transcripts:q} > {log:q} 2>&1"


if not STUDY_IS_TOOL:

    rule paper_sources:
        """A study folder's copy of the paper's LaTeX sources (the text, numbers, tables and figures are its own)."""
        input:
            main=tool_path("paper/main.tex"),
            bib=tool_path("paper/references.bib"),
        output:
            main="paper/main.tex",
            bib="paper/references.bib",
        log:
            "logs/paper/paper_sources.log",
        shell:
            "cp {input.main:q} {output.main:q} && cp {input.bib:q} {output.bib:q} 2> {log:q}"


rule pdf:
    input:
        main="paper/main.tex",
        text=rules.paper_text.output,
        bib="paper/references.bib",
        numbers="paper/generated/numbers.tex",
        tables=expand("paper/generated/tab_{name}.tex", name=STUDY_TABLES),
        appendix=rules.appendix.output,
        figures=expand("figures/fig_{name}.pdf", name=STUDY_FIGURES),
    output:
        report("paper/main.pdf", category="Paper"),
    params:
        site=SITE_BASE,  # each \res{} links to {site}/numbers/<key>.html
    log:
        "logs/paper/pdf.log",
    shell:
        "latexmk -g -cd -pdf -interaction=nonstopmode -halt-on-error"
        " -usepretex='\\def\\slmsite{{{params.site}}}' {input.main:q} > {log:q} 2>&1"
