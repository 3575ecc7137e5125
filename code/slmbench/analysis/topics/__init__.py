"""Analysis topics: each module has ``compute(trials, events, params) -> TopicResult``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pandas as pd

from slmbench.analysis.numbers import TopicResult

TOPICS = (
    "external",
    "capability",
    "reliability",
    "failures",
    "temperature",
    "boundary",
    "scaffold",
    "context",
    "protocol",
)
TOPIC_INPUTS: dict[str, tuple[str, ...]] = {
    "external": ("trials", "summary"),
    "capability": ("trials", "events", "control"),
    "reliability": ("trials", "events"),
    "failures": ("trials", "events"),
    "temperature": ("trials", "events"),
    "boundary": ("trials", "events", "replay"),
    "scaffold": ("trials",),
    "context": ("trials",),
    "protocol": ("trials",),
}
"""What each topic reads (the ``slmbench analyze`` options); the analysis rule is generated from this."""
assert set(TOPIC_INPUTS) == set(TOPICS)

DEFAULT_PARAMS: dict[str, Any] = {"alpha": 0.05, "seed": 20260101, "n_boot": 1000, "margin": 0.05}

Compute = Callable[[pd.DataFrame, pd.DataFrame | None, dict[str, Any]], TopicResult]


def get_topic(name: str) -> Compute:
    """The ``compute`` function of topic ``name``."""
    if name not in TOPICS:
        raise KeyError(f"unknown topic {name!r}; known: {', '.join(TOPICS)}")
    module = importlib.import_module(f"slmbench.analysis.topics.{name}")
    fn: Compute = module.compute
    return fn


def with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """Topic parameters completed with the defaults."""
    return {**DEFAULT_PARAMS, **{k: v for k, v in params.items() if v is not None}}
