# Paper: LaTeX tables from the analysis topics, then the PDF with latexmk.
# Uses FIGURES from figures.smk (included before this file).



SECTIONS = [
    "paper/sections/introduction.tex",
    "paper/sections/harness.tex",
    "paper/sections/tasks.tex",
    "paper/sections/models.tex",
    "paper/sections/statistics.tex",
    "paper/sections/results.tex",
    "paper/sections/boundary.tex",
    "paper/sections/threats.tex",
    "paper/sections/appendix_reproduction.tex",
]


rule table:
    """A LaTeX table (slmbench.figures.tables.TABLES) from the analysis topic it declares."""
    input:
        topic=table_topic,
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_{name}.tex",
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
        "paper/main.pdf",
    log:
        "logs/paper/pdf.log",
    shell:
        "latexmk -g -cd -pdf -interaction=nonstopmode -halt-on-error {input.main} > {log} 2>&1"
