"""Loading task files: one YAML file per task, validated, with errors that name the file and the field."""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from slmbench.judging.criteria import CRITERION_KINDS
from slmbench.tasks.schema import Task
from slmbench.vocab import SUITES
from slmbench.yamltext import safe_load

logger = logging.getLogger(__name__)

DATA_DIR = Path(__file__).parent / "data"


class TaskFileError(ValueError):
    """A task file could not be read or broke the schema; the message names the file and the field."""

    def __init__(self, path: Path | str, field: str, problem: str) -> None:
        self.path = Path(path)
        self.field = field
        self.problem = problem
        super().__init__(f"{path}: {field}: {problem}")


def _field_path(error: Any) -> tuple[str, str]:
    """The dotted field path and message of one pydantic error (a task rule names its own field)."""
    loc = [str(part) for part in error["loc"]]
    # a discriminated union adds the tag to the path (check.0.state.tool); drop it for readers
    if len(loc) >= 3 and loc[0] == "check" and loc[2] in CRITERION_KINDS:
        del loc[2]
    ctx = error.get("ctx") or {}
    if error["type"] == "task_rule":
        return ".".join(loc + [str(ctx["field"])]), str(ctx["message"])
    message = str(error["msg"])
    if error["type"] == "union_tag_invalid":
        message += f" (got {ctx.get('tag')!r})"
    return ".".join(loc) or "<task>", message


def validation_error(path: Path | str, exc: ValidationError) -> TaskFileError:
    """The one-line :class:`TaskFileError` of a schema error: ``path``, the first error's field, how many more."""
    field, problem = _field_path(exc.errors()[0])
    more = len(exc.errors()) - 1
    return TaskFileError(path, field, problem + (f" (and {more} more errors)" if more else ""))


def parse_task(data: Any, path: Path | str = "<memory>") -> Task:
    """Validate already-parsed task data; raise :class:`TaskFileError` naming ``path`` and the field."""
    if not isinstance(data, dict):
        raise TaskFileError(path, "<task>", f"expected a mapping of task fields, got {type(data).__name__}")
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        raise validation_error(path, exc) from exc


def read_yaml(path: Path) -> Any:
    """The parsed YAML of a data file; :class:`TaskFileError` (``<file>`` or ``<yaml>``) if it cannot be read."""
    try:
        return safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TaskFileError(path, "<file>", f"cannot read: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise TaskFileError(path, "<yaml>", f"not valid YAML{where}: {getattr(exc, 'problem', exc)}") from exc


def load_task(path: Path | str) -> Task:
    """Read and validate one task file; its ``id`` must equal the file's stem."""
    path = Path(path)
    task = parse_task(read_yaml(path), path)
    if task.id != path.stem:
        raise TaskFileError(path, "id", f"{task.id!r} must equal the file name stem {path.stem!r}")
    return task


def suite_names() -> list[str]:
    """Names of the shipped suites: those of ``vocab.SUITES`` with task files (``data/`` holds other files too)."""
    return sorted(name for name in SUITES if any((DATA_DIR / name).glob("*.yaml")))


def suite_files(name: str) -> list[Path]:
    """The task files of one shipped suite."""
    directory = DATA_DIR / name
    if not directory.is_dir():
        raise KeyError(f"no suite {name!r}; known: {suite_names()}")
    return sorted(directory.glob("*.yaml"))


def _id_key(task_id: str) -> tuple[str, int]:
    prefix, _, number = task_id.rpartition("-")
    return prefix, int(number)


def load_suite(name: str) -> list[Task]:
    """Load every task of a shipped suite, sorted by id (numbers compared as numbers)."""
    tasks = [load_task(p) for p in suite_files(name)]
    for task, path in zip(tasks, suite_files(name), strict=True):
        if task.suite != name:
            raise TaskFileError(path, "suite", f"{task.suite!r} but the file is in suite {name!r}")
    logger.debug("loaded %d tasks of suite %s", len(tasks), name)
    return sorted(tasks, key=lambda t: _id_key(t.id))


@cache
def task_index() -> dict[str, Task]:
    """Every task of every suite by id (the suites are read once per process)."""
    return {task.id: task for suite in SUITES for task in load_suite(suite)}
