"""The facts of one study that its text may state: which models ran (name, size, instruction-tuned or the base
control), which suites, the primary condition, and which comparisons and controls the configuration planned and
the records hold. Built once from the configuration, its shard plan and the tidy trials table; a template states
nothing about the study that is not read from here or from a result key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal, get_args

import pandas as pd

from slmbench.analysis.numbers import slug
from slmbench.conditions import LEGACY_NAME
from slmbench.config import StudyConfig
from slmbench.paper.model_facts import IDENTITY_FACT_COLUMNS, ModelFacts, model_facts, same_file, served_pairs
from slmbench.records.fingerprint import NATIVE_BUILD
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard, plan_shards
from slmbench.run.roles import primary
from slmbench.tasks.loader import task_index
from slmbench.vocab import COMPARISON_KINDS, DIMENSIONS, STUDY_ID, Perturbation, Suite

Part = Literal[
    "capability", "reliability", "null_control", "scaffold", "context", "serving", "twins", "protocol", "legacy",
    "ablation", "rerun", "limits", "sweep", "sampling", "eligibility", "external", "paraphrases", "faults",
    "safety_suite",
]  # fmt: skip
"""The parts of a study that its text can speak of: the two suites of the primary condition, the null control,
the three comparisons, one file run in-process and served by two of the study's models (``twins``), the protocol
study's parts (its protocol's repeats, the legacy baseline, the ablations,
the reruns, the other limits, the temperature sweep), the eligibility study, the reproduced published study, and
of the runs on one build the samples of every task above temperature 0 (``sampling``), the paraphrases and the
injected faults of every task and the safety suite."""
PARTS: tuple[Part, ...] = get_args(Part)
COMPARISON_PARTS: tuple[Part, ...] = tuple(p for p in PARTS if p in COMPARISON_KINDS)
"""The parts that are comparisons with the primary results (``vocab.COMPARISON_KINDS``)."""
FIVE_CONDITIONS = ("canonical_history", "stuck_detection", "answer_channel", "closing_turn", "clean_kv")
"""The five protocol conditions the text describes one by one (the scaffold-specific ones aside)."""
PART_TEXT: dict[Part, str] = {
    "capability": "the capability suite",
    "reliability": "the reliability suite",
    "null_control": "the null control",
    "scaffold": "the scaffold comparison",
    "context": "the context-window comparison",
    "serving": "the serving-stack comparison",
    "twins": "the comparison of one file in-process and served",
    "protocol": "the protocol study",
    "legacy": "the legacy protocol baseline",
    "ablation": "the protocol ablations",
    "rerun": "the rerun of the primary protocol",
    "limits": "the larger turn and token limits",
    "sweep": "the temperature sweep",
    "sampling": "the samples of every task above temperature 0 on one build",
    "eligibility": "the eligibility study",
    "external": "the reproduction of the published study",
    "paraphrases": "the paraphrases of every task",
    "faults": "the injected faults on every task",
    "safety_suite": "the safety suite",
}
"""How the text names each part (in the sentence that says what was not run)."""


@dataclass(frozen=True)
class StudyFacts:
    """What one study planned and ran (see the module docstring)."""

    models: tuple[ModelFacts, ...]
    suites: tuple[str, ...]
    protocol: str
    scaffold: str
    parser_mode: str
    temperatures: tuple[float, ...]
    repeats: int
    primary_build: str | None
    planned: frozenset[Part]
    ran: frozenset[Part]
    cpus: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The kinds of CPU the trials of each part ran on (``primary``: the primary results)."""
    ran_models: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The models whose trials of each part are recorded (a part can have run for some models only)."""
    scaffolds_other: tuple[str, ...] = ()
    windows_other: tuple[int, ...] = ()
    served_models: tuple[str, ...] = ()
    server: str | None = None
    legacy: str = LEGACY_NAME
    study_protocol: str | None = None
    """The protocol the protocol study compares with the legacy one (its comparison's keys: ``proto.cmp.<slug>``)."""
    reruns: tuple[str, ...] = ()
    """The labels of the protocol study's reruns of its protocol (keys ``proto.cmp.rerun-<label>.…``)."""
    conditions: tuple[str, ...] = ()
    """The protocol conditions the primary protocol switches on (``canonical_history``, ...)."""
    eligibility_tasks: tuple[str, ...] = ()
    """The side-tasks of the eligibility study (``tool_selection``: the key part is ``tool-selection``)."""
    same_file: tuple[tuple[str, ...], ...] = ()
    """Groups of models whose records name one file (one sha256)."""
    served_pairs: tuple[tuple[str, str], ...] = ()
    """(in-process model, served model) of one file, both with primary trials: compared task by task."""
    dimensions: tuple[str, ...] = ()
    """The reliability dimensions the primary trials cover (``vocab.DIMENSIONS`` order)."""
    refusals: bool = False
    """Whether a primary trial's task is judged on a refusal (its check has a ``refused`` criterion)."""
    replayed: bool = False
    """Whether a trial was judged on a replay of its calls (its record predates the stored end state)."""
    choices_after_results: tuple[str, ...] = ()
    """The choices the config says were made after some results were seen (the limits list them)."""

    @property
    def instruct(self) -> tuple[ModelFacts, ...]:
        """The instruction-tuned models, smallest first."""
        return tuple(m for m in self.models if m.instruct)

    @property
    def base(self) -> tuple[ModelFacts, ...]:
        """The pretrained base models (floor controls), smallest first."""
        return tuple(m for m in self.models if not m.instruct)

    @property
    def largest(self) -> ModelFacts:
        """The largest instruction-tuned model (the largest model if none is)."""
        return (self.instruct or self.models)[-1]

    @property
    def several(self) -> bool:
        """Whether the study has more than one model: a study of one compares no models and speaks of one."""
        return len(self.models) > 1

    @property
    def largest_alone(self) -> bool:
        """Whether the largest instruction-tuned model is larger than every other (no other shares its size)."""
        pool = self.instruct or self.models
        return sum(m.params_b == self.largest.params_b for m in pool) == 1

    @property
    def cmp(self) -> str:
        """The key part of the protocol study's comparison with the legacy protocol (``proto.cmp.<cmp>.…``)."""
        return slug(self.study_protocol or self.protocol)

    @property
    def five_conditions(self) -> bool:
        """Whether the primary protocol switches on the five conditions of the native scaffold's ``full``."""
        return set(FIVE_CONDITIONS) <= set(self.conditions)

    @property
    def not_run(self) -> tuple[Part, ...]:
        """Parts the configuration planned that the records do not hold."""
        return tuple(p for p in PARTS if p in self.planned and p not in self.ran)

    def has(self, *parts: Part) -> bool:
        """Whether every part in ``parts`` ran."""
        unknown = [p for p in parts if p not in PARTS]
        if unknown:
            raise KeyError(f"unknown part {unknown[0]!r}; parts: {', '.join(PARTS)}")
        return all(p in self.ran for p in parts)

    def model(self, name: str) -> ModelFacts:
        """The configured model ``name``."""
        for m in self.models:
            if m.name == name:
                return m
        raise KeyError(f"{name!r} is not a model of this study")


def _shard_parts(config: StudyConfig) -> dict[str, set[Part]]:
    """The parts each planned shard (``model/stem``) belongs to."""
    out: dict[str, set[Part]] = {}
    study, t0 = config.protocol_study, min(config.temperatures)
    for shard in plan_shards(config):
        parts = out.setdefault(shard.key.name, set())
        for kind in shard.kinds:
            if kind == "primary":
                parts.add(shard.key.suite)  # type: ignore[arg-type]
            elif kind in ("null_control", *COMPARISON_KINDS):
                parts.add(kind)  # type: ignore[arg-type]
            elif kind == "protocol" and study is not None:
                parts.add(_protocol_part(shard.key, study.ablation, t0))
            elif kind == "build_run" and (part := _build_run_part(shard)) is not None:
                parts.add(part)
    return out


BUILD_RUN_PARTS: dict[Perturbation, Part] = {"paraphrase": "paraphrases", "fault": "faults"}
"""The part of the runs on one build that each perturbation's shards are."""
SAFETY_SUITE: Suite = "safety"


def _build_run_part(shard: Shard) -> Part | None:
    """The part a shard of the runs on one build is: the samples above T = 0, its perturbation's, or the safety
    suite (None: the other shards of those runs, which no text speaks of on their own)."""
    key = shard.key
    if shard.build_part == "sampling":
        return "sampling"
    if key.perturbation is not None:
        return BUILD_RUN_PARTS[key.perturbation]
    return "safety_suite" if key.suite == SAFETY_SUITE else None


def _protocol_part(key: ShardKey, ablation: Iterable[str], t0: float) -> Part:
    if key.protocol == LEGACY_NAME:
        return "legacy"
    if key.protocol in ablation:
        return "ablation"
    if key.rerun is not None:
        return "rerun"
    if key.max_turns is not None or key.max_tokens is not None:
        return "limits"
    if key.temperature != t0:
        return "sweep"
    return "protocol"


def _primary(ours: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Which of ``ours`` are primary results: the role tidy decided, else decided here."""
    if not len(ours):
        return pd.Series(False, index=ours.index)
    return ours["primary"].fillna(False).astype(bool) if "primary" in ours else primary(ours, config)


def _portable_build(firsts: pd.DataFrame) -> str | None:
    """The portable build the primary results ran on (``roles.primary_build``'s rule chose it), else None."""
    builds = sorted(set(firsts["build"].dropna().astype(str))) if "build" in firsts else []
    return next((b for b in builds if not b.startswith(NATIVE_BUILD)), None)


FACT_COLUMNS = ("study", "model", "source_file", "cpu", "build", "primary", "suite", "dimension", "task_id", "state_source",
                *IDENTITY_FACT_COLUMNS)  # fmt: skip
"""The trials table's columns the facts read (``primary``: the role tidy decided; without it, decided here)."""


def planned_parts(config: StudyConfig, shard_parts: dict[str, set[Part]] | None = None) -> frozenset[Part]:
    """The parts ``config`` plans: those of its shards (``shard_parts``, default: of its plan), the eligibility
    study and the published studies where it configures them (the study's records have no say)."""
    by_shard = _shard_parts(config) if shard_parts is None else shard_parts
    planned: set[Part] = set().union(*by_shard.values()) if by_shard else set()
    if config.eligibility is not None:
        planned.add("eligibility")
    if config.published_studies:
        planned.add("external")
    return frozenset(planned)


def study_facts(
    config: StudyConfig, trials: pd.DataFrame, *, eligibility: bool = False, external: bool = False
) -> StudyFacts:
    """The facts of the study that ``config`` plans and ``trials`` (the tidy trials table) records.

    Args:
        config: the parsed configuration.
        trials: the tidy trials table (every study's rows; only this study's are read).
        eligibility: whether eligibility configurations were scored (the eligibility topic's count).
        external: whether the published study was imported and analysed.
    """
    ours = trials[trials["study"].astype(str) == STUDY_ID] if "study" in trials else trials
    shard_parts = _shard_parts(config)
    names = (
        ours["model"].astype(str) + "/" + ours["source_file"].astype(str).map(lambda s: PurePosixPath(s).stem)
    )
    recorded = set(names)
    planned: set[Part] = set(planned_parts(config, shard_parts))
    ran = {p for shard, parts in shard_parts.items() if shard in recorded for p in parts}
    cpus: dict[str, tuple[str, ...]] = {}
    ran_models: dict[str, tuple[str, ...]] = {}
    for part in PARTS:
        chosen = names.map(lambda n, part=part: part in shard_parts.get(n, ()))
        cpus[part] = tuple(sorted(ours.loc[chosen, "cpu"].dropna().astype(str).unique()))
        recorded_models = set(ours.loc[chosen, "model"].astype(str))
        ran_models[part] = tuple(m for m in config.models if m in recorded_models)
    firsts = ours[_primary(ours, config)]
    if len(ours):
        cpus["primary"] = tuple(sorted(firsts["cpu"].dropna().astype(str).unique()))
    for flag, part in ((eligibility, "eligibility"), (external, "external")):
        if flag:
            ran.add(part)  # type: ignore[arg-type]
    models = model_facts(config, firsts)
    with_trials = set(firsts["model"].astype(str))
    pairs = served_pairs(m for m in models if m.name in with_trials)
    if pairs:  # one file in-process and served by two of the study's models: compared task by task
        planned.add("twins")
        ran.add("twins")
    dims = set(firsts["dimension"].dropna().astype(str)) if "dimension" in firsts else set()
    ran_tasks = set(firsts["task_id"].astype(str)) if "task_id" in firsts else set()
    sc, cc, sv = config.scaffold_comparison, config.context_comparison, config.serving_comparison
    return StudyFacts(
        models=models,
        suites=tuple(config.suites),
        protocol=config.protocol,
        scaffold=config.scaffold,
        parser_mode=config.parser_mode,
        temperatures=tuple(float(t) for t in config.temperatures),
        repeats=config.repeats,
        primary_build=config.primary_build or _portable_build(firsts),
        planned=frozenset(planned),
        ran=frozenset(ran),
        cpus=cpus,
        ran_models=ran_models,
        scaffolds_other=tuple(sc.scaffolds) if sc else (),
        windows_other=tuple(cc.n_ctx) if cc else (),
        served_models=tuple(sv.models) if sv else (),
        server=sv.server if sv else None,
        study_protocol=config.protocol_study.protocol if config.protocol_study else None,
        reruns=tuple(slug(r) for r in config.protocol_study.reruns) if config.protocol_study else (),
        conditions=tuple(n for n, on in config.conditions(config.protocol).as_dict().items() if on),
        eligibility_tasks=tuple(config.eligibility.tasks) if config.eligibility else (),
        same_file=same_file(models),
        served_pairs=pairs,
        dimensions=tuple(d for d in DIMENSIONS if d in dims),
        refusals=any(
            c.kind == "refused" for t in ran_tasks if t in task_index() for c in task_index()[t].check
        ),
        replayed="state_source" in ours and bool((ours["state_source"].astype(str) == "replay").any()),
        choices_after_results=tuple(config.choices_after_results),
    )
