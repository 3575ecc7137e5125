"""Expanding a task into the trials a study runs: its variants (rephrasings, injected faults) and repeats."""

from __future__ import annotations

from dataclasses import dataclass

from slmbench.tasks.schema import REPHRASING_KEYS, Task
from slmbench.tools.faults import FaultSpec
from slmbench.vocab import FAULT_KINDS, ORIGINAL_VARIANT, Perturbation


@dataclass(frozen=True)
class TrialSpec:
    """One trial to run: a task under one variant, with the instruction the model sees and the faults."""

    task: Task
    variant: str
    instruction: str
    faults: tuple[FaultSpec, ...]
    repeat: int


def variants(task: Task) -> list[tuple[str, str, tuple[FaultSpec, ...]]]:
    """The task's variants as ``(name, instruction, faults)``, ``original`` first."""
    out: list[tuple[str, str, tuple[FaultSpec, ...]]] = [(ORIGINAL_VARIANT, task.instruction, ())]
    if task.rephrasings is not None:
        out += [(key, getattr(task.rephrasings, key), ()) for key in REPHRASING_KEYS]
    if task.fault is not None:
        times = None if task.fault.times == "always" else int(task.fault.times)
        out += [
            (f"fault_{kind}", task.instruction, (FaultSpec(task.fault.tool, kind, times),))
            for kind in FAULT_KINDS
        ]
    return out


def fault_tool(task: Task) -> str | None:
    """The tool a fault perturbation hits: the first tool the task's reference solution calls (None: a task
    solved without a call, which a fault cannot perturb)."""
    return task.solution.calls[0].name if task.solution.calls else None


def perturbed_variants(
    task: Task, perturbation: Perturbation
) -> list[tuple[str, str, tuple[FaultSpec, ...]]]:
    """The task's variants under a perturbation: ``paraphrase-<i>`` for each of its paraphrases, or
    ``fault_<kind>`` for each fault kind injected once into ``fault_tool`` (none for a task it cannot perturb)."""
    if perturbation == "paraphrase":
        from slmbench.tasks.paraphrases import paraphrases

        return [(f"paraphrase-{i}", text, ()) for i, text in enumerate(paraphrases(task.id), start=1)]
    tool = fault_tool(task)
    if tool is None:
        return []
    return [(f"fault_{kind}", task.instruction, (FaultSpec(tool, kind, 1),)) for kind in FAULT_KINDS]


def trial_plan(
    task: Task, repeats: int | None = None, perturbation: Perturbation | None = None
) -> list[TrialSpec]:
    """Every trial of ``task`` in a fixed order: variant by variant, then repeat by repeat.

    Consistency tasks always run ``task.repeats`` times (repeating is what they measure); every other task
    runs each variant ``repeats`` times, defaulting to ``task.repeats``. Under a ``perturbation`` the variants are
    the perturbed ones (``perturbed_variants``) instead of the task's own.
    """
    if repeats is not None and repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    n = task.repeats if task.dimension == "consistency" or repeats is None else repeats
    chosen = variants(task) if perturbation is None else perturbed_variants(task, perturbation)
    return [
        TrialSpec(task=task, variant=name, instruction=instruction, faults=faults, repeat=r)
        for name, instruction, faults in chosen
        for r in range(n)
    ]
