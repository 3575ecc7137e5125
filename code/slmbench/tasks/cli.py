"""``slmbench tasks``: list the shipped tasks and validate task files."""

from __future__ import annotations

from pathlib import Path

import click

from slmbench.tasks.loader import TaskFileError, load_suite, load_task, suite_files, suite_names


@click.group()
def tasks() -> None:
    """Inspect and validate the task suites."""


@tasks.command("list")
@click.option("--suite", "suite", type=str, default=None, help="Only this suite (default: all).")
def list_tasks(suite: str | None) -> None:
    """Print one line per task: id, group, difficulty, tools."""
    names = [suite] if suite else suite_names()
    for name in names:
        try:
            loaded = load_suite(name)
        except KeyError as exc:
            raise click.BadParameter(str(exc.args[0]), param_hint="--suite") from exc
        for task in loaded:
            click.echo(f"{task.id}\t{task.group}\t{task.difficulty}\t{','.join(task.tools)}")


@tasks.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--solve", is_flag=True, help="Also replay each task's solution and wrong solution.")
def validate(paths: tuple[Path, ...], solve: bool) -> None:
    """Validate task files (default: every shipped file, paraphrase files included); exit non-zero naming each bad
    file and field."""
    files = list(paths) or [p for name in suite_names() for p in suite_files(name)]
    failures = 0
    for path in files:
        try:
            task = load_task(path)
            if solve:
                from slmbench.tasks.replay import SolutionError, self_check

                try:
                    verdict = self_check(task)
                except SolutionError as exc:
                    raise TaskFileError(path, "solution", str(exc)) from exc
                if not verdict.solution.passed:
                    raise TaskFileError(path, "solution", f"does not pass: {verdict.solution.criteria}")
                if verdict.wrong_solution.passed:
                    raise TaskFileError(path, "wrong_solution", "passes the check, which is leaky")
        except TaskFileError as exc:
            failures += 1
            click.echo(f"ERROR {exc}", err=True)
    click.echo(f"{len(files) - failures}/{len(files)} task files valid")
    if not paths:
        failures += _validate_paraphrases()
    if failures:
        raise SystemExit(1)


def _validate_paraphrases() -> int:
    """Validate every shipped paraphrase file, echoing each bad one; return how many were bad."""
    from slmbench.tasks.paraphrases import load_paraphrases, paraphrase_files

    files = paraphrase_files()
    failures = 0
    for path in files:
        try:
            load_paraphrases(path)
        except TaskFileError as exc:
            failures += 1
            click.echo(f"ERROR {exc}", err=True)
    click.echo(f"{len(files) - failures}/{len(files)} paraphrase files valid")
    return failures
