"""The analysis topics, each registered where it is defined: ``@topic(reads=...)`` on its ``compute``.

A topic is a module or a package of ``slmbench.analysis.topics`` whose name is the topic's. It follows one of
two contracts, which its ``reads`` (the ``slmbench analyze`` options it takes) tell apart:

- a topic of the trials table (``"trials"`` in ``reads``): ``compute(trials, events, params) -> TopicResult``,
  given the trials table (and the events table, if it reads ``"events"``);
- a topic of its own input files (eligibility reads raw runs): ``load(params) -> (inputs, record)``, registered
  with ``@topic_inputs``, reads the files its parameters name and returns what it read with a record of them
  (e.g. their sha256, kept with the topic's parameters); then ``compute(inputs, params) -> TopicResult``.

The decorator's other arguments say what a topic of the trials table reads of it: ``events``, the event
columns (default: all of them); ``large_text``, the large text columns of the trials table
(``tidy.LARGE_TEXT_COLUMNS``; default: none); ``audit``, the audit columns it reads (``tidy.AUDIT_COLUMNS``;
default: none). ``part`` names the optional part of a study the topic analyses (a config block,
``vocab.STUDY_PARTS``): a study computes it only where it asks for that part (``study_topics``). This module
reads the declarations from the source (``slmbench.registration``): listing the topics imports no topic, pandas
or statistics.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slmbench.registration import Registry
from slmbench.vocab import STUDY_PARTS

if TYPE_CHECKING:
    import pandas as pd

    from slmbench.analysis.numbers import TopicResult

Compute = Callable[["pd.DataFrame", "pd.DataFrame | None", dict[str, Any]], "TopicResult"]
"""A topic of the trials table."""
Load = Callable[[dict[str, Any]], tuple[Any, dict[str, Any]]]
"""A topic's reader of its own inputs: the inputs and a record of what was read."""
ComputeInputs = Callable[[Any, dict[str, Any]], "TopicResult"]
"""A topic of its own inputs."""

topic: Registry[Callable[..., TopicResult]] = Registry(__package__ or "", Path(__file__).parent, "topic")
"""The decorator of a topic's ``compute``: ``@topic(reads=("trials",), events=(...), large_text=(...))``."""
_LOADERS: dict[str, Load] = {}


def topic_inputs(fn: Load) -> Load:
    """The decorator of the ``load`` of a topic of its own inputs."""
    _LOADERS[topic.name_of(fn.__module__)] = fn
    return fn


def _declared(name: str) -> dict[str, Any]:
    if name not in topic.declared:
        raise KeyError(f"unknown topic {name!r}; known: {', '.join(topic.declared)}")
    return topic.declared[name].arguments


TOPICS: tuple[str, ...] = tuple(topic.declared)
TOPIC_INPUTS: dict[str, tuple[str, ...]] = {name: tuple(_declared(name)["reads"]) for name in TOPICS}
"""What each topic reads (the ``slmbench analyze`` options); the analysis rules are generated from this."""
TRIAL_TOPICS: tuple[str, ...] = tuple(t for t in TOPICS if "trials" in TOPIC_INPUTS[t])
"""The topics of the trials table: one process computes them together (``slmbench analyze-trials``)."""
INPUT_TOPICS: tuple[str, ...] = tuple(t for t in TOPICS if t not in TRIAL_TOPICS)
"""The topics that read their own input files instead."""


TOPIC_PARTS: dict[str, str | None] = {name: _declared(name).get("part") for name in TOPICS}
"""The optional part of a study each topic analyses (None: every study has it)."""
_unknown = {p for p in TOPIC_PARTS.values() if p is not None} - set(STUDY_PARTS)
if _unknown:
    raise ValueError(f"topics declare parts that are no part of a study: {sorted(_unknown)}")


def study_topics(parts: frozenset[str] | set[str]) -> tuple[str, ...]:
    """The topics a study with these optional ``parts`` computes: every topic of no part, and those of its
    parts."""
    return tuple(t for t in TOPICS if TOPIC_PARTS[t] is None or TOPIC_PARTS[t] in parts)


def topic_files(name: str) -> tuple[Path, ...]:
    """The source files of topic ``name`` (editing one reruns it)."""
    _declared(name)
    return topic.declared[name].files


def event_columns(name: str) -> list[str] | None:
    """The event columns topic ``name`` reads, or None for all of them."""
    columns = _declared(name).get("events")
    return list(columns) if columns is not None else None


def audit_read(name: str) -> tuple[str, ...]:
    """The audit columns of the trials table (``tidy.AUDIT_COLUMNS``) topic ``name`` reads (none unless its
    declaration names them)."""
    return tuple(_declared(name).get("audit", ()))


def large_text_read(name: str) -> tuple[str, ...]:
    """The large text columns of the trials table (``tidy.LARGE_TEXT_COLUMNS``) topic ``name`` reads."""
    return tuple(_declared(name).get("large_text", ()))


def get_topic(name: str) -> Compute:
    """The ``compute`` of topic ``name`` of the trials table.

    Raises:
        KeyError: An unknown topic, or one that reads its own inputs (``get_input_topic``).
    """
    if name in INPUT_TOPICS:
        raise KeyError(f"topic {name!r} reads its own inputs: get_input_topic")
    fn: Compute = topic.get(name)
    return fn


def get_input_topic(name: str) -> tuple[Load, ComputeInputs]:
    """The ``load`` and ``compute`` of topic ``name`` of its own inputs.

    Raises:
        KeyError: An unknown topic, one of the trials table, or one without a registered ``load``.
    """
    if name not in INPUT_TOPICS:
        raise KeyError(f"topic {name!r} is not a topic of its own inputs")
    compute: ComputeInputs = topic.get(name)
    if name not in _LOADERS:
        raise KeyError(f"topic {name!r} registers no @topic_inputs loader")
    return _LOADERS[name], compute
