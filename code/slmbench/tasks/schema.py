"""The task file schema: one YAML file per task, validated by these pydantic models.

The criteria a task's check is built from live in :mod:`slmbench.judging.criteria`; this module holds the task
itself, its variants' data (rephrasings, fault) and the reference solutions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from slmbench.judging.criteria import Criterion
from slmbench.tools.registry import tool_names
from slmbench.vocab import FAULT_KINDS as FAULT_KINDS  # re-exported: the variants expand over it
from slmbench.vocab import REPHRASINGS, Dimension, Suite


def _registered_tool(name: str) -> str:
    """``name`` if a tool registers under it (``slmbench.tools``: its ``@register_tool``)."""
    if name not in tool_names():
        raise PydanticCustomError(
            "unknown_tool", "'{name}' is not a registered tool: use one of {known}",
            {"name": name, "known": ", ".join(tool_names())},
        )  # fmt: skip
    return name


ToolName = Annotated[str, AfterValidator(_registered_tool)]
"""A tool's name: one the tools register (``slmbench.tools.registry.tool_names``)."""
Difficulty = Literal["easy", "medium", "hard"]

CAPABILITY_GROUPS: dict[str, str] = {
    "information_retrieval": "IR",
    "scheduling": "SCH",
    "data_analysis": "DA",
    "communication": "COM",
    "multi_step_reasoning": "MSR",
    "decision_making": "DM",
    "coding": "COD",
    "safety": "SAF",
}
"""Capability group name -> id prefix."""

RELIABILITY_PREFIXES: dict[Dimension, str] = {
    "consistency": "REL-CON",
    "robustness": "REL-ROB",
    "fault_tolerance": "REL-FT",
    "safety": "REL-SAF",
}
"""Reliability dimension (which is also the group) -> id prefix."""

SAFETY_GROUPS: dict[str, str] = {
    "harm": "HARM",
    "compliance": "COMPLY",
}
"""Safety group name -> id prefix: requests to do harm with the tools (the right run declines and acts on no
harmful part), and benign requests that look risky (the right run does them; a refusal is over-refusal)."""

SUITE_GROUPS: dict[Suite, Mapping[Any, str]] = {
    "capability": CAPABILITY_GROUPS,
    "reliability": RELIABILITY_PREFIXES,
    "safety": SAFETY_GROUPS,
}
"""Each suite's groups (group name -> id prefix)."""
DIMENSION_SUITE: Suite = "reliability"
"""The one suite whose tasks take a ``dimension``, which is also their group."""

REPHRASING_KEYS: tuple[str, ...] = REPHRASINGS
"""The fields of :class:`Rephrasings`, in variant order."""

_ID_RE = re.compile(r"^(?P<prefix>[A-Z]+(?:-[A-Z]+)*)-(?P<number>[1-9]\d*)$")


def task_rule(field: str, message: str) -> PydanticCustomError:
    """A cross-field rule broken; ``field`` names where, so the loader can report the field path."""
    return PydanticCustomError("task_rule", "{field}: {message}", {"field": field, "message": message})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Call(_Strict):
    """One tool call of a reference solution."""

    name: ToolName
    arguments: dict[str, Any] = {}


class Solution(_Strict):
    """A scripted run: the calls made, in order, and the final answer given."""

    calls: list[Call] = []
    final_answer: str


class Fault(_Strict):
    """Which tool a fault-tolerance task breaks, and for how many calls (``"always"`` = every call)."""

    tool: ToolName
    times: Literal[1, "always"] = 1


class Rephrasings(_Strict):
    """The five rewordings of a robustness task's instruction; each must ask for the same thing."""

    paraphrase: str = Field(min_length=1)
    verbose: str = Field(min_length=1)
    concise: str = Field(min_length=1)
    typos: str = Field(min_length=1)
    reordered: str = Field(min_length=1)


class Task(_Strict):
    """One task: what the user asks, which tools and state the agent gets, and how the result is judged."""

    id: str
    suite: Suite
    group: str
    dimension: Dimension | None = None
    difficulty: Difficulty
    instruction: str = Field(min_length=1)
    tools: list[ToolName] = Field(min_length=1)
    initial_state: dict[str, Any] = {}
    needs_tool: bool = True
    answer_required: bool = True
    """The trial must end with a final answer to pass (an agent that acts and never answers fails)."""
    side_effect_limit: int = Field(default=1, ge=1)
    """How many times one identical side-effecting call (same tool and arguments) may succeed."""
    repeats: int = Field(default=1, ge=1)
    rephrasings: Rephrasings | None = None
    fault: Fault | None = None
    check: list[Criterion] = Field(min_length=1)
    solution: Solution
    wrong_solution: Solution
    notes: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        self._check_id_and_group()
        self._check_dimension_fields()
        self._check_tool_references()
        return self

    def _check_id_and_group(self) -> None:
        match = _ID_RE.match(self.id)
        if match is None:
            raise task_rule("id", f"{self.id!r} must look like PREFIX-<number>, e.g. IR-1 or REL-CON-2")
        groups = SUITE_GROUPS[self.suite]
        if self.suite == DIMENSION_SUITE:
            if self.dimension is None:
                raise task_rule("dimension", f"{self.suite} tasks need one of {list(groups)}")
            if self.group != self.dimension:
                raise task_rule("group", f"must equal the dimension {self.dimension!r}, got {self.group!r}")
        elif self.dimension is not None:
            raise task_rule("dimension", f"{self.suite} tasks take no dimension")
        if self.group not in groups:
            raise task_rule("group", f"{self.group!r} is not one of {sorted(groups)}")
        expected = groups[self.group]
        if match["prefix"] != expected:
            raise task_rule("id", f"{self.id!r} must start with {expected}- for group {self.group!r}")

    def _check_dimension_fields(self) -> None:
        if (self.dimension == "robustness") != (self.rephrasings is not None):
            raise task_rule("rephrasings", "required for robustness tasks and allowed for no others")
        if (self.dimension == "fault_tolerance") != (self.fault is not None):
            raise task_rule("fault", "required for fault_tolerance tasks and allowed for no others")
        if self.dimension == "consistency" and self.repeats < 2:
            raise task_rule("repeats", "consistency tasks need repeats >= 2")
        if self.fault is not None and self.fault.tool not in self.tools:
            raise task_rule("fault.tool", f"{self.fault.tool!r} is not among the task's tools {self.tools}")

    def _check_tool_references(self) -> None:
        for i, criterion in enumerate(self.check):
            tool = getattr(criterion, "tool", None)
            if tool is not None and tool not in self.tools:
                raise task_rule(f"check.{i}.tool", f"{tool!r} is not among the task's tools {self.tools}")
        for label, solution in (("solution", self.solution), ("wrong_solution", self.wrong_solution)):
            for i, call in enumerate(solution.calls):
                if call.name not in self.tools:
                    raise task_rule(f"{label}.calls.{i}.name", f"{call.name!r} is not among the task's tools")

    @property
    def id_prefix(self) -> str:
        """The id without its number (``IR`` for ``IR-3``)."""
        return self.id.rsplit("-", 1)[0]
