# Figures: one rule for all, fig_<name> -> slmbench.figures.<name> -> figures/fig_<name>.pdf, generated from
# slmbench.figures.registry.FIGURE_TOPICS. Each figure lists its module and the analysis topics it reads as
# inputs, so editing one figure module reruns exactly that figure. Rerun one figure by hand:
# snakemake figures/fig_<name>.pdf -f
rule fig:
    input:
        unpack(figure_inputs),
    output:
        report("figures/fig_{name}.pdf", category="Figures", labels={"figure": "{name}"}),
    wildcard_constraints:
        name="|".join(FIGURES),
    params:
        topics=figure_topic_options,
    log:
        "logs/figures/fig_{name}.log",
    shell:
        "slmbench figure {wildcards.name} --trials {input.trials} {params.topics} --out {output} > {log} 2>&1"
