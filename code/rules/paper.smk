# Paper: LaTeX tables from the analysis topics, then the PDF with latexmk.
# Uses FIGURES from figures.smk (included before this file).


TABLES = ["capability", "reliability", "external", "failures", "scaffold", "context"]

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


rule table_capability:
    input:
        topic="data/processed/capability.json",
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_capability.tex",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_capability.log",
    shell:
        "slmbench table capability --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_reliability:
    input:
        topic="data/processed/reliability.json",
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_reliability.tex",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_reliability.log",
    shell:
        "slmbench table reliability --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_external:
    input:
        topic="data/processed/external.json",
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_external.tex",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_external.log",
    shell:
        "slmbench table external --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_failures:
    input:
        topic="data/processed/failures.json",
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_failures.tex",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_failures.log",
    shell:
        "slmbench table failures --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_scaffold:
    input:
        topic="data/processed/scaffold.json",
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_scaffold.tex",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_scaffold.log",
    shell:
        "slmbench table scaffold --analysis {input.topic} --out {output} > {log} 2>&1"


rule table_context:
    input:
        topic="data/processed/context.json",
        module="code/slmbench/figures/tables.py",
    output:
        "paper/generated/tab_context.tex",
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/table_context.log",
    shell:
        "slmbench table context --analysis {input.topic} --out {output} > {log} 2>&1"


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
    conda:
        "../../envs/environment.yml"
    log:
        "logs/paper/pdf.log",
    shell:
        "latexmk -g -cd -pdf -interaction=nonstopmode -halt-on-error {input.main} > {log} 2>&1"
