"""Analysis topics: one module (or package) per topic, registered where it is defined (``registry``).

Importing this package imports no topic: the registry is read at every Snakemake start, without pandas or
statistics.
"""

from __future__ import annotations

from typing import Any

from slmbench.analysis.topics.registry import (
    INPUT_TOPICS,
    TOPIC_INPUTS,
    TOPIC_PARTS,
    TOPICS,
    TRIAL_TOPICS,
    Compute,
    audit_read,
    event_columns,
    get_input_topic,
    get_topic,
    large_text_read,
    study_topics,
    topic,
    topic_files,
    topic_inputs,
)
from slmbench.vocab import DEFAULT_BOOTSTRAP_SEED, DEFAULT_EQUIVALENCE_MARGIN

__all__ = [
    "DEFAULT_PARAMS", "INPUT_TOPICS", "TOPICS", "TOPIC_INPUTS", "TOPIC_PARTS", "TRIAL_TOPICS", "Compute", "audit_read",
    "event_columns", "get_input_topic", "get_topic", "large_text_read", "study_topics", "topic", "topic_files",
    "topic_inputs", "with_defaults",
]  # fmt: skip

DEFAULT_PARAMS: dict[str, Any] = {
    "alpha": 0.05,
    "bootstrap_seed": DEFAULT_BOOTSTRAP_SEED,
    "n_boot": 1000,
    "margin": 0.05,
    "equivalence_margin": DEFAULT_EQUIVALENCE_MARGIN,
}


def with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """Topic parameters completed with the defaults.

    Raises:
        ValueError: a ``seed`` parameter (resampling takes ``bootstrap_seed``; the trial seed is not the analysis's).
    """
    if "seed" in params:
        raise ValueError("topic parameter 'seed' is ambiguous: the resampling seed is 'bootstrap_seed'")
    return {**DEFAULT_PARAMS, **{k: v for k, v in params.items() if v is not None}}
