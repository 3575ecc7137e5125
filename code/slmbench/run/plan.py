"""The study's shard plan, defined once: every shard config.yaml asks for, each a ``ShardKey`` with its repeats
and tasks.

The plan holds the primary condition (every model x suite x temperature), the null control, the scaffold, context
and serving comparisons (at the lowest temperature) and the protocol study, all under the config's scaffold,
parser mode and protocol unless a comparison says otherwise. Two parts that plan the same shard (the primary shard under
``protocol: full`` is the protocol study's ``full`` shard) plan it once, with both kinds; planning it with other
repeats or tasks is an error. The trial rules, ``slmbench run --shard`` and the SLURM resources read it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from slmbench.backends import backend_facts, backend_names
from slmbench.conditions import LEGACY_NAME
from slmbench.config import ConfigError, StudyConfig, model_spec
from slmbench.models.resources import ShardResources, shard_resources
from slmbench.models.weights import weights_path
from slmbench.run.key import NULL_CONTROL_SUITE, ShardKey
from slmbench.tasks.loader import task_index
from slmbench.vocab import NULL_CONTROL, BuildPart, ParserMode, Perturbation, PlanKind, ScaffoldName

NULL_CONTROL_TEMPERATURE = 0.0
"""The null control reruns at T=0, where any difference between reruns is noise of the machine."""


@dataclass(frozen=True)
class Shard:
    """A planned shard: its key, the repeats of each variant and its tasks (empty: the whole suite), why it is
    planned, and for a shard of the runs on one build which of their parts it is."""

    key: ShardKey
    repeats: int
    tasks: tuple[str, ...] = ()
    kinds: frozenset[PlanKind] = frozenset()
    build_part: BuildPart | None = None


def shard_key(
    config: StudyConfig,
    model: str,
    suite: str,
    temperature: float,
    *,
    scaffold: ScaffoldName | None = None,
    mode: ParserMode | None = None,
    n_ctx: int | None = None,
    protocol: str | None = None,
    max_turns: int | None = None,
    max_tokens: int | None = None,
    rerun: str | None = None,
    server: str | None = None,
    perturbation: Perturbation | None = None,
) -> ShardKey:
    """The key of a shard of ``model``: the config's scaffold, mode and protocol where none is given, and a context
    window or limit that equals the model's or the study's own left out of the name.

    Raises:
        ConfigError: an unknown model or protocol, or a name (protocol, rerun label) a file name cannot hold.
    """
    spec = model_spec(config, model)
    protocol = protocol or config.protocol
    config.conditions(protocol)
    key = ShardKey(
        model=model,
        suite=suite,
        temperature=temperature,
        scaffold=scaffold or config.scaffold,
        mode=mode or config.parser_mode,
        n_ctx=n_ctx if n_ctx != spec.n_ctx else None,
        protocol=protocol,
        max_turns=max_turns if max_turns != config.max_turns else None,
        max_tokens=max_tokens if max_tokens != config.max_tokens else None,
        rerun=rerun,
        server=server,
        perturbation=perturbation,
    )
    try:
        ShardKey.from_stem(model, key.stem())
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return key


def selected_tasks(config: StudyConfig, suite: str) -> tuple[str, ...]:
    """The task ids config.yaml's ``tasks`` selects of ``suite`` (empty: every task of it).

    Raises:
        ConfigError: an id that is not a task of the suite (one line naming the field, the id and the fix).
    """
    if isinstance(config.tasks, dict):
        chosen, where = config.tasks.get(suite, []), f"tasks.{suite}"  # type: ignore[call-overload]
    else:
        chosen, where = config.tasks, "tasks"
    return _known(config, chosen, suite, where)


def _known(config: StudyConfig, ids: list[str], suite: str, where: str) -> tuple[str, ...]:
    suite_ids = {t.id for t in task_index().values() if t.suite == suite}
    unknown = [i for i in ids if i not in suite_ids]
    if unknown:
        raise ConfigError(
            f"{config.source}: {where}: {unknown[0]!r} is not a task of suite {suite}: remove it "
            f"(`slmbench tasks list --suite {suite}` lists the suite's tasks)"
        )
    return tuple(ids)


@dataclass(frozen=True)
class _Part:
    """One shard as one part of the config plans it, with the fields its repeats and tasks come from."""

    kind: PlanKind
    key: ShardKey
    repeats: int
    tasks: tuple[str, ...]
    repeats_from: str
    tasks_from: str
    build_part: BuildPart | None = None


def _parts(config: StudyConfig, model: str) -> Iterator[_Part]:
    """Every shard of ``model``, part by part of the config."""
    t0, repeats = min(config.temperatures), config.repeats
    for suite in config.suites:
        tasks, tasks_from = selected_tasks(config, suite), _tasks_field(config, suite)
        for t in config.temperatures:
            yield _Part("primary", shard_key(config, model, suite, t), repeats, tasks, "repeats", tasks_from)
    if config.null_control:
        nc = config.null_control
        tasks = _known(config, nc.tasks, NULL_CONTROL_SUITE, "null_control.tasks")
        key = shard_key(config, model, NULL_CONTROL, NULL_CONTROL_TEMPERATURE)
        yield _Part("null_control", key, nc.reruns, tasks, "null_control.reruns", "null_control.tasks")
    if config.scaffold_comparison:
        sc = config.scaffold_comparison
        for suite in sc.suites:
            for scaffold in sc.scaffolds:
                key = shard_key(config, model, suite, t0, scaffold=scaffold, protocol=sc.protocol)
                yield _Part(
                    "scaffold", key, sc.repeats or repeats, selected_tasks(config, suite),
                    "scaffold_comparison.repeats" if sc.repeats else "repeats",
                    _tasks_field(config, suite),
                )  # fmt: skip
    if config.context_comparison:
        cc, window = config.context_comparison, config.models[model].n_ctx
        for suite in cc.suites:
            for n_ctx in (n for n in cc.n_ctx if n != window):
                key = shard_key(config, model, suite, t0, n_ctx=n_ctx)
                yield _Part(
                    "context", key, cc.repeats or repeats, selected_tasks(config, suite),
                    "context_comparison.repeats" if cc.repeats else "repeats", _tasks_field(config, suite),
                )  # fmt: skip
    if config.serving_comparison and model in config.serving_comparison.models:
        sv = config.serving_comparison
        for suite in sv.suites:
            key = shard_key(config, model, suite, t0, server=sv.server)
            yield _Part(
                "serving", key, sv.repeats or repeats, selected_tasks(config, suite),
                "serving_comparison.repeats" if sv.repeats else "repeats", _tasks_field(config, suite),
            )  # fmt: skip
    yield from _protocol_study(config, model)
    yield from _build_run(config, model)


def _build_run(config: StudyConfig, model: str) -> Iterator[_Part]:
    """The shards of ``model`` on one build (``build_run``), all under its rerun label: the primary condition on
    each suite, then for instruction-tuned models the samples and each perturbation, then each other protocol."""
    run = config.build_run
    if run is None:
        return
    t0, label, instruct = min(config.temperatures), run.label, config.models[model].instruct

    def part(key: ShardKey, repeats: int, repeats_from: str, suite: str, build_part: BuildPart) -> _Part:
        return _Part("build_run", key, repeats, selected_tasks(config, suite), repeats_from,
                     _tasks_field(config, suite), build_part)  # fmt: skip

    for suite in run.suites:
        for t in config.temperatures:
            key = shard_key(config, model, suite, t, rerun=label)
            yield part(key, run.repeats, "build_run.repeats", suite, "primary")
    if run.sampling is not None and instruct and run.sampling.samples(model):
        s = run.sampling
        for suite in s.suites:
            key = shard_key(config, model, suite, s.temperature, rerun=label)
            yield part(key, s.repeats, "build_run.sampling.repeats", suite, "sampling")
    for perturbation in run.perturbations if instruct and run.perturbs(model) else []:
        for suite in run.perturbation_suites:
            key = shard_key(config, model, suite, t0, rerun=label, perturbation=perturbation)
            yield part(key, 1, "build_run.perturbations", suite, "perturbation")
    for protocol in run.protocols if run.runs_protocols(model) else []:
        key = shard_key(config, model, "capability", t0, protocol=protocol, rerun=label)
        yield part(key, 1, "build_run.protocols", "capability", "protocol")


def _tasks_field(config: StudyConfig, suite: str) -> str:
    return f"tasks.{suite}" if isinstance(config.tasks, dict) else "tasks"


def _protocol_study(config: StudyConfig, model: str) -> Iterator[_Part]:
    """The protocol study's shards of ``model``: ``protocol`` with its repeats, the legacy baseline (when it is not
    the primary protocol), each ablation, rerun and limit once, and the temperature sweep with the repeats for
    instruction-tuned models."""
    study = config.protocol_study
    if study is None:
        return
    t0, name = min(config.temperatures), study.protocol
    sweep = study.temperatures if config.models[model].instruct else []
    for suite in study.suites:
        tasks, tasks_from = selected_tasks(config, suite), _tasks_field(config, suite)

        def part(key: ShardKey, repeats: int, repeats_from: str) -> _Part:
            return _Part("protocol", key, repeats, tasks, repeats_from, tasks_from)  # noqa: B023

        yield part(
            shard_key(config, model, suite, t0, protocol=name), study.repeats, "protocol_study.repeats"
        )
        if config.protocol != LEGACY_NAME:
            key = shard_key(config, model, suite, t0, protocol=LEGACY_NAME)
            yield part(key, 1, "protocol_study (its legacy baseline runs once)")
        for other in study.ablation:
            key = shard_key(config, model, suite, t0, protocol=other)
            yield part(key, 1, "protocol_study.ablation (each runs once)")
        for label in study.reruns:
            key = shard_key(config, model, suite, t0, protocol=name, rerun=label)
            yield part(key, 1, "protocol_study.reruns (each runs once)")
        for turns in study.max_turns:
            key = shard_key(config, model, suite, t0, protocol=name, max_turns=turns)
            yield part(key, 1, "protocol_study.max_turns (each runs once)")
        for tokens in study.max_tokens:
            key = shard_key(config, model, suite, t0, protocol=name, max_tokens=tokens)
            yield part(key, 1, "protocol_study.max_tokens (each runs once)")
        for t in sweep:
            key = shard_key(config, model, suite, t, protocol=name)
            yield part(key, study.repeats, "protocol_study.repeats")


def check_concurrency(config: StudyConfig) -> None:
    """Refuse a model that would run several trials at once in this process (the backends say which run in it).

    Raises:
        ConfigError: ``concurrency`` above 1 for a backend that runs the model in this process.
    """
    several = {name: spec for name, spec in config.models.items() if spec.concurrency > 1}
    for name, spec in several.items():
        if backend_facts(spec.backend).in_process:
            served = [n for n in backend_names() if not backend_facts(n).in_process]
            raise ConfigError(
                f"{config.source}: models.{name}.concurrency: concurrency {spec.concurrency} needs a served backend "
                f"({', '.join(served)}); backend {spec.backend} runs the model in this process, one trial at a time"
            )


def plan_shards(config: StudyConfig) -> list[Shard]:
    """Every shard the config plans, each once, in the order the config's parts name them.

    Raises:
        ConfigError: two parts plan one shard with different repeats or tasks, a selected task is unknown, or a
            model runs several trials at once in this process (``check_concurrency``).
    """
    check_concurrency(config)
    planned: dict[str, Shard] = {}
    first: dict[str, _Part] = {}
    for model in config.models:
        for part in _parts(config, model):
            name = part.key.name
            earlier = planned.get(name)
            if earlier is None:
                planned[name] = Shard(
                    part.key, part.repeats, part.tasks, frozenset({part.kind}), part.build_part
                )
                first[name] = part
            elif (earlier.repeats, earlier.tasks) == (part.repeats, part.tasks):
                planned[name] = dataclasses.replace(
                    earlier,
                    kinds=earlier.kinds | {part.kind},
                    build_part=earlier.build_part or part.build_part,
                )
            else:
                raise ConfigError(_disagree(config, first[name], part))
    return list(planned.values())


def _disagree(config: StudyConfig, one: _Part, other: _Part) -> str:
    """The one-line error of two parts that plan one shard differently: both fields, their values, the fix."""
    if one.repeats != other.repeats:
        a, b = f"{one.repeats_from} ({one.repeats})", f"{other.repeats_from} ({other.repeats})"
        what = "repeats"
    else:
        a, b = (
            f"{one.tasks_from} ({_tasks_text(one.tasks)})",
            f"{other.tasks_from} ({_tasks_text(other.tasks)})",
        )
        what = "tasks"
    return (
        f"{config.source}: {a} and {b} both plan shard {one.key.name} ({one.kind} and {other.kind}) with other"
        f" {what}: make them equal"
    )


def _tasks_text(tasks: tuple[str, ...]) -> str:
    return ",".join(tasks) if tasks else "every task"


def shard_for(config: StudyConfig, key: ShardKey) -> Shard:
    """The planned shard of ``key``, or (for one the config does not plan) the study's repeats and tasks of its
    suite (the null control's for ``null_control``).

    Raises:
        ConfigError: the key names the model's or the study's own setting under another name, or an unknown model.
    """
    for shard in plan_shards(config):
        if shard.key == key:
            return shard
    fields = {f.name: getattr(key, f.name) for f in dataclasses.fields(key)}
    if shard_key(config, **fields) != key:
        own = shard_key(config, **fields).stem()
        raise ConfigError(f"shard {key.name} runs the study's own setting: its name is {key.model}/{own}")
    if key.suite == NULL_CONTROL and config.null_control:
        nc = config.null_control
        return Shard(key, nc.reruns, _known(config, nc.tasks, NULL_CONTROL_SUITE, "null_control.tasks"))
    return Shard(key, config.repeats, selected_tasks(config, key.task_suite))


def resources(config: StudyConfig, shard: Shard, raw_dir: Path) -> ShardResources:
    """Threads, memory and wall time of one shard (``slmbench.models.resources``): its model, its trials and its
    limits against the study's."""
    key = shard.key
    spec = model_spec(config, key.model)
    turns = (key.max_turns or config.max_turns) / config.max_turns
    tokens = (key.max_tokens or config.max_tokens) / config.max_tokens
    return shard_resources(
        key.model,
        spec,
        suite=key.task_suite,
        tasks=shard.tasks,
        repeats=shard.repeats,
        n_ctx=key.n_ctx,
        trial_budget_s=config.trial_budget_s,
        scale=turns * tokens,
        raw_dir=raw_dir,
        gguf=weights_path(spec) if spec.weights else None,
    )
