# The table rule's inputs, from the table registry (rules in code/rules/paper.smk).
from slmbench.figures.tables import TABLES

STUDY_TABLES = [name for name, spec in TABLES.items() if spec.topic in STUDY_TOPICS]
"""The tables this study writes: those of the topics it computes."""


def table_topic(wildcards):
    """The topic JSON a table reads (its spec's topic, which need not share the table's name)."""
    return f"{PROCESSED}/{TABLES[wildcards.name].topic}.json"


TABLE_CODE = code_inputs("table")  # every table's renderer and what it imports
PAPER_TEXT_CODE = code_inputs("paper-text")  # the paper text's renderer and what it imports
