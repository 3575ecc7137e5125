# The figure rule's input functions, generated from the figure registry (rules in code/rules/figures.smk).
from slmbench.figures.registry import FIGURE_TOPICS, figure


def figure_inputs(wildcards):
    """The code that draws the figure (its module and what it imports) and the topics it reads (nothing else)."""
    return {
        "code": code_inputs("figure", files=figure.declared[wildcards.name].files),
        **{f"topic_{t}": f"{PROCESSED}/{t}.json" for t in FIGURE_TOPICS[wildcards.name]},
    }


def figure_topic_options(wildcards, input):
    """``--topic <json>`` for each topic the figure reads."""
    return " ".join(f"--topic {shlex.quote(path)}" for name, path in input.items() if name.startswith("topic_"))
