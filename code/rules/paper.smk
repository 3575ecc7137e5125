# Paper: LaTeX tables from the analysis topics, then the PDF with latexmk.
# Uses FIGURES from figures.smk (included before this file).



SECTIONS = sorted(str(p) for p in Path("paper/sections").glob("*.tex"))


rule table:
    """A LaTeX table (slmbench.figures.tables.TABLES) from the analysis topic it declares."""
    input:
        topic=table_topic,
        module="code/slmbench/figures/tables.py",
    output:
        report("paper/generated/tab_{name}.tex", category="Tables", labels={"table": "{name}"}),
    wildcard_constraints:
        name="|".join(TABLES),
    log:
        "logs/paper/table_{name}.log",
    shell:
        "slmbench table {wildcards.name} --analysis {input.topic} --out {output} > {log} 2>&1"


rule pdf:
    input:
        main="paper/main.tex",
        sections=SECTIONS,
        bib="paper/references.bib",
        numbers="paper/generated/numbers.tex",
        tables=expand("paper/generated/tab_{name}.tex", name=TABLES),
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
