"""What a trial was asked, from the task files: the instruction of its variant and its check's criteria."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from slmbench.tasks.loader import task_index
from slmbench.tasks.variants import variants
from slmbench.vocab import ORIGINAL_VARIANT


@dataclass(frozen=True)
class Posed:
    """A task in one variant as the model got it, and what its check asks for (one criterion a line)."""

    instruction: str
    tools: tuple[str, ...]
    criteria: tuple[str, ...]


@cache
def _posed() -> dict[tuple[str, str], Posed]:
    out: dict[tuple[str, str], Posed] = {}
    for task in task_index().values():
        criteria = tuple(json.dumps(c.model_dump(mode="json"), sort_keys=True) for c in task.check)
        for name, instruction, _ in variants(task):
            out[(task.id, name)] = Posed(instruction, tuple(task.tools), criteria)
    return out


def posed(task_id: str, variant: str) -> Posed | None:
    """The task ``task_id`` in ``variant`` as posed, or None when no suite holds it."""
    return _posed().get((task_id, variant))


def sample_id(task_id: str, variant: str) -> str:
    """The id of a task in one variant as one sample: the task's id, ``<task>:<variant>`` for other variants."""
    return task_id if variant == ORIGINAL_VARIANT else f"{task_id}:{variant}"
