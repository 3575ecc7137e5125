"""Paraphrases of the capability tasks' instructions: three rewordings of each, one YAML file per task.

``tasks/data/paraphrases/<TASK-ID>.yaml`` holds the task's id and exactly three paraphrases, in this order: the same
request in other words and sentence structure; the facts and constraints given in another order; a terse, casual
register. Each asks for exactly what the task's check tests (``docs/tasks.md`` says who wrote them and how).
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, model_validator

from slmbench.tasks.loader import DATA_DIR, TaskFileError, read_yaml, task_index, validation_error
from slmbench.tasks.schema import task_rule
from slmbench.vocab import Suite

logger = logging.getLogger(__name__)

PARAPHRASES_DIR = DATA_DIR / "paraphrases"
PARAPHRASE_COUNT = 3
PARAPHRASED_SUITE: Suite = "capability"
"""The suite whose every task has a paraphrase file."""


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


class Paraphrases(BaseModel):
    """One task's paraphrases: exactly three non-empty, distinct rewordings, none its instruction as written.

    Validate with ``context={"instruction": ...}`` to compare them with the task's instruction.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    paraphrases: list[str]

    @model_validator(mode="after")
    def _three_distinct_rewordings(self, info: ValidationInfo) -> Paraphrases:
        if len(self.paraphrases) != PARAPHRASE_COUNT:
            raise task_rule("paraphrases", f"needs exactly {PARAPHRASE_COUNT}, got {len(self.paraphrases)}")
        instruction = (info.context or {}).get("instruction")
        seen: set[str] = set()
        for i, text in enumerate(self.paraphrases):
            folded = _folded(text)
            if not folded:
                raise task_rule(f"paraphrases.{i}", "is empty")
            if folded in seen:
                raise task_rule(f"paraphrases.{i}", "repeats an earlier paraphrase")
            if instruction is not None and folded == _folded(instruction):
                raise task_rule(f"paraphrases.{i}", "is the task's instruction as written, not a paraphrase")
            seen.add(folded)
        return self


def paraphrase_files() -> list[Path]:
    """The shipped paraphrase files."""
    return sorted(PARAPHRASES_DIR.glob("*.yaml"))


def load_paraphrases(path: Path | str) -> Paraphrases:
    """Read and validate one paraphrase file: it names a capability task (its stem) and rewords its instruction.

    Raises:
        TaskFileError: one line naming the file, the field and what was expected.
    """
    path = Path(path)
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise TaskFileError(
            path, "<file>", f"expected a mapping with task and paraphrases, got {type(data).__name__}"
        )
    task = task_index().get(str(data.get("task")))
    if "task" in data and (task is None or task.suite != PARAPHRASED_SUITE):
        raise TaskFileError(path, "task", f"{data['task']!r} is not a {PARAPHRASED_SUITE} task")
    try:
        loaded = Paraphrases.model_validate(data, context={"instruction": task.instruction if task else None})
    except ValidationError as exc:
        raise validation_error(path, exc) from exc
    if loaded.task != path.stem:
        raise TaskFileError(path, "task", f"{loaded.task!r} must equal the file name stem {path.stem!r}")
    return loaded


@cache
def paraphrase_index() -> dict[str, tuple[str, ...]]:
    """Every shipped task's paraphrases by task id (the files are read once per process)."""
    loaded = [load_paraphrases(path) for path in paraphrase_files()]
    logger.debug("loaded paraphrases of %d tasks", len(loaded))
    return {p.task: tuple(p.paraphrases) for p in loaded}


def paraphrases(task_id: str) -> tuple[str, ...]:
    """The three paraphrases of one task's instruction.

    Raises:
        KeyError: the task has no paraphrase file.
    """
    index = paraphrase_index()
    if task_id not in index:
        raise KeyError(f"no paraphrases of task {task_id!r} in {PARAPHRASES_DIR}")
    return index[task_id]
