# Figures: one rule per figure, fig_<name> -> slmbench.figures.<name> -> figures/fig_<name>.pdf.
# Each rule lists its module (and the analysis topics it reads) as inputs, so editing one figure module
# reruns exactly that figure. Rerun one figure by hand: snakemake figures/fig_<name>.pdf -f


FIGURES = [
    "accuracy_vs_params",
    "accuracy_vs_temperature",
    "capability_vs_reliability",
    "composite_reliability",
    "composite_vs_params",
    "latency_vs_accuracy",
    "group_accuracy",
    "perturbation_heatmap",
    "fault_heatmap",
    "reliability_bars",
    "reliability_dimensions",
    "radar",
    "safety_breakdown",
    "temperature_sensitivity",
    "parser_modes",
    "cost_vs_reliability",
    "failure_classes",
    "scaffold_comparison",
    "context_cap",
]


rule fig_accuracy_vs_params:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/accuracy_vs_params.py",
    output:
        "figures/fig_accuracy_vs_params.pdf",
    log:
        "logs/figures/fig_accuracy_vs_params.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure accuracy_vs_params --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_accuracy_vs_temperature:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/accuracy_vs_temperature.py",
    output:
        "figures/fig_accuracy_vs_temperature.pdf",
    log:
        "logs/figures/fig_accuracy_vs_temperature.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure accuracy_vs_temperature --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_capability_vs_reliability:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/capability_vs_reliability.py",
    output:
        "figures/fig_capability_vs_reliability.pdf",
    log:
        "logs/figures/fig_capability_vs_reliability.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure capability_vs_reliability --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_composite_reliability:
    input:
        trials="data/processed/trials.parquet",
        reliability="data/processed/reliability.json",
        external="data/processed/external.json",
        module="code/slmbench/figures/composite_reliability.py",
    output:
        "figures/fig_composite_reliability.pdf",
    log:
        "logs/figures/fig_composite_reliability.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure composite_reliability --trials {input.trials} --topic {input.reliability} --topic {input.external} --out {output} > {log} 2>&1"


rule fig_composite_vs_params:
    input:
        trials="data/processed/trials.parquet",
        reliability="data/processed/reliability.json",
        external="data/processed/external.json",
        module="code/slmbench/figures/composite_vs_params.py",
    output:
        "figures/fig_composite_vs_params.pdf",
    log:
        "logs/figures/fig_composite_vs_params.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure composite_vs_params --trials {input.trials} --topic {input.reliability} --topic {input.external} --out {output} > {log} 2>&1"


rule fig_latency_vs_accuracy:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/latency_vs_accuracy.py",
    output:
        "figures/fig_latency_vs_accuracy.pdf",
    log:
        "logs/figures/fig_latency_vs_accuracy.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure latency_vs_accuracy --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_group_accuracy:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/group_accuracy.py",
    output:
        "figures/fig_group_accuracy.pdf",
    log:
        "logs/figures/fig_group_accuracy.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure group_accuracy --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_perturbation_heatmap:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/perturbation_heatmap.py",
    output:
        "figures/fig_perturbation_heatmap.pdf",
    log:
        "logs/figures/fig_perturbation_heatmap.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure perturbation_heatmap --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_fault_heatmap:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/fault_heatmap.py",
    output:
        "figures/fig_fault_heatmap.pdf",
    log:
        "logs/figures/fig_fault_heatmap.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure fault_heatmap --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_reliability_bars:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/reliability_bars.py",
    output:
        "figures/fig_reliability_bars.pdf",
    log:
        "logs/figures/fig_reliability_bars.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure reliability_bars --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_reliability_dimensions:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/reliability_dimensions.py",
    output:
        "figures/fig_reliability_dimensions.pdf",
    log:
        "logs/figures/fig_reliability_dimensions.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure reliability_dimensions --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_radar:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/radar.py",
    output:
        "figures/fig_radar.pdf",
    log:
        "logs/figures/fig_radar.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure radar --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_safety_breakdown:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/safety_breakdown.py",
    output:
        "figures/fig_safety_breakdown.pdf",
    log:
        "logs/figures/fig_safety_breakdown.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure safety_breakdown --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_temperature_sensitivity:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/temperature_sensitivity.py",
    output:
        "figures/fig_temperature_sensitivity.pdf",
    log:
        "logs/figures/fig_temperature_sensitivity.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure temperature_sensitivity --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_cost_vs_reliability:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/cost_vs_reliability.py",
    output:
        "figures/fig_cost_vs_reliability.pdf",
    log:
        "logs/figures/fig_cost_vs_reliability.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure cost_vs_reliability --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_failure_classes:
    input:
        trials="data/processed/trials.parquet",
        module="code/slmbench/figures/failure_classes.py",
    output:
        "figures/fig_failure_classes.pdf",
    log:
        "logs/figures/fig_failure_classes.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure failure_classes --trials {input.trials} --out {output} > {log} 2>&1"


rule fig_parser_modes:
    input:
        trials="data/processed/trials.parquet",
        boundary="data/processed/boundary.json",
        module="code/slmbench/figures/parser_modes.py",
    output:
        "figures/fig_parser_modes.pdf",
    log:
        "logs/figures/fig_parser_modes.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure parser_modes --trials {input.trials} --topic {input.boundary} --out {output} > {log} 2>&1"


rule fig_scaffold_comparison:
    input:
        trials="data/processed/trials.parquet",
        scaffold="data/processed/scaffold.json",
        module="code/slmbench/figures/scaffold_comparison.py",
        helper="code/slmbench/figures/paired_plot.py",
    output:
        "figures/fig_scaffold_comparison.pdf",
    log:
        "logs/figures/fig_scaffold_comparison.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure scaffold_comparison --trials {input.trials} --topic {input.scaffold} --out {output} > {log} 2>&1"


rule fig_context_cap:
    input:
        trials="data/processed/trials.parquet",
        context="data/processed/context.json",
        module="code/slmbench/figures/context_cap.py",
        helper="code/slmbench/figures/paired_plot.py",
    output:
        "figures/fig_context_cap.pdf",
    log:
        "logs/figures/fig_context_cap.log",
    conda:
        "../../envs/environment.yml"
    shell:
        "slmbench figure context_cap --trials {input.trials} --topic {input.context} --out {output} > {log} 2>&1"
