# Figures: one rule for all, fig_<name> -> slmbench.figures.<name> -> figures/fig_<name>.pdf and the values it
# plotted (figures/fig_<name>.values.json, checked by `snakemake verify`), generated from
# slmbench.figures.registry.FIGURE_TOPICS. Each figure reads only the analysis topics it declares (never the trials
# table); the code that draws it (its module and what that imports) and those topics are its inputs. Rerun one
# figure by hand:
# snakemake figures/fig_<name>.pdf -f
include: "inputs/figures.smk"


rule fig:
    input:
        unpack(figure_inputs),
    output:
        pdf=report("figures/fig_{name}.pdf", category="Figures", labels={"figure": "{name}"}),
        values="figures/fig_{name}.values.json",
    wildcard_constraints:
        name="|".join(STUDY_FIGURES) or "^$",
    params:
        topics=figure_topic_options,
    log:
        "logs/figures/fig_{name}.log",
    shell:
        "slmbench figure {wildcards.name:q} {params.topics} --out {output.pdf:q} --values {output.values:q}"
        " > {log:q} 2>&1"
