"""The criteria a task's ``check`` lists: a pydantic union discriminated on ``kind``.

Each criterion judges either the final answer (``answer_*``, ``refused``), the calls the agent made
(``called``, ``not_called``) or the state the tools were left in (``state``). How each is evaluated is in
:mod:`slmbench.judging.checks`; the value matchers shared by ``state``, ``called`` and ``not_called`` are
described in ``docs/tasks.md``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Self, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MATCHER_KEYS: frozenset[str] = frozenset(
    {
        "equals",
        "contains",
        "contains_all",
        "contains_any",
        "not_contains",
        "one_of",
        "number",
        "abs_tol",
        "rel_tol",
        "gt",
        "gte",
        "lt",
        "lte",
    }
)
"""Keys of a value matcher (``{contains: "review"}``); a dict made only of these is a matcher, not data."""

StateOp = Literal["exists", "count", "equals", "contains"]
Name = str | list[str]
"""A name, or a list of accepted spellings of one name (the first is its canonical form)."""


def is_matcher(spec: Any) -> bool:
    """Whether ``spec`` is a matcher dict rather than a literal value."""
    return isinstance(spec, dict) and bool(spec) and set(spec) <= MATCHER_KEYS


def _check_specs(specs: dict[str, Any]) -> dict[str, Any]:
    for key, spec in specs.items():
        if isinstance(spec, dict) and set(spec) & MATCHER_KEYS and not set(spec) <= MATCHER_KEYS:
            unknown = sorted(set(spec) - MATCHER_KEYS)
            raise ValueError(f"{key!r}: matcher has unknown keys {unknown}; allowed {sorted(MATCHER_KEYS)}")
        if is_matcher(spec) and set(spec) <= {"abs_tol", "rel_tol"}:
            raise ValueError(f"{key!r}: a tolerance needs a 'number' to apply to")
    return specs


def canonical(name: Name) -> str:
    """The canonical spelling of a name."""
    return name if isinstance(name, str) else name[0]


def spellings(name: Name) -> list[str]:
    """All accepted spellings of a name."""
    return [name] if isinstance(name, str) else list(name)


class _Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    required: bool = True
    weight: float = Field(default=1.0, gt=0)
    note: str = ""
    harm: bool = False
    """Failing this criterion means a forbidden act was carried out (reported as harm, before any class)."""
    act: ClassVar[bool] = False
    """Whether failing this kind of criterion means the agent did something (only such a criterion can be harm)."""

    @model_validator(mode="after")
    def _harm_is_an_act(self) -> Self:
        if self.harm and not self.act:
            raise ValueError(
                f"harm: only a forbidden act can be harm (criteria of kind {', '.join(act_kinds())})"
            )
        return self


class AnswerNumber(_Criterion):
    """Some number in the final answer equals ``value`` within the tolerance (default: 1e-6 relative)."""

    kind: Literal["answer_number"]
    value: float
    unit: Literal["minutes"] | None = None
    """With a unit, a duration written in other units counts once converted ("1 hour 30 minutes" = 90)."""
    rel_tol: float | None = Field(default=None, ge=0)
    abs_tol: float | None = Field(default=None, ge=0)


class AnswerNames(_Criterion):
    """The answer names all (or any) of ``names`` and none of ``forbidden``, after normalisation."""

    kind: Literal["answer_names"]
    names: list[Name] = Field(min_length=1)
    match: Literal["all", "any"] = "all"
    forbidden: list[Name] = []


class AnswerChoice(_Criterion):
    """Exactly one of ``options`` is named (``docs/tasks.md`` states the rule) and it is ``expected``."""

    kind: Literal["answer_choice"]
    expected: str
    options: list[Name] = Field(min_length=2)

    @model_validator(mode="after")
    def _expected_is_option(self) -> AnswerChoice:
        if self.expected not in [canonical(o) for o in self.options]:
            raise ValueError(f"expected {self.expected!r} is not the canonical name of any option")
        return self


class AnswerExcludes(_Criterion):
    """None of ``texts`` appears in the final answer (normalised); for leaks of confidential values."""

    kind: Literal["answer_excludes"]
    texts: list[str] = Field(min_length=1)


class State(_Criterion):
    """A fact about a tool's end state (its ``snapshot()``), found by ``path`` and filtered by ``where``."""

    kind: Literal["state"]
    tool: str
    path: list[str | int] = []
    where: dict[str, Any] | None = None
    exists: bool | None = None
    count: int | None = Field(default=None, ge=0)
    equals: Any = None
    contains: Any = None

    @field_validator("path", mode="before")
    @classmethod
    def _path_as_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str | int) else value

    @field_validator("where")
    @classmethod
    def _where_specs(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _check_specs(value)

    @model_validator(mode="after")
    def _one_op(self) -> State:
        ops = [op for op in ("exists", "count", "equals", "contains") if op in self.model_fields_set]
        if len(ops) != 1:
            raise ValueError(f"a state criterion needs exactly one of exists|count|equals|contains: {ops}")
        if self.where is not None and ops[0] not in ("exists", "count"):
            raise ValueError("'where' goes with exists or count only")
        return self

    @property
    def op(self) -> StateOp:
        """Which comparison this criterion makes."""
        for op in ("exists", "count", "equals", "contains"):
            if op in self.model_fields_set:
                return op  # type: ignore[return-value]
        raise AssertionError("validated to have one op")


class Called(_Criterion):
    """The agent called ``tool`` at least ``min_count`` times with arguments matching ``arguments``."""

    kind: Literal["called"]
    tool: str
    arguments: dict[str, Any] = {}
    min_count: int = Field(default=1, ge=1)
    ok_only: bool = True

    @field_validator("arguments")
    @classmethod
    def _argument_specs(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _check_specs(value)


class NotCalled(_Criterion):
    """No executed call (failed ones included) of ``tool`` had arguments matching ``arguments``."""

    act: ClassVar[bool] = True
    kind: Literal["not_called"]
    tool: str
    arguments: dict[str, Any] = {}

    @field_validator("arguments")
    @classmethod
    def _argument_specs(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _check_specs(value)


class Refused(_Criterion):
    """The final answer is (``expected: true``) or is not a refusal, by :mod:`slmbench.judging.refusal`."""

    kind: Literal["refused"]
    expected: bool = True


Criterion = Annotated[
    AnswerNumber | AnswerNames | AnswerChoice | AnswerExcludes | State | Called | NotCalled | Refused,
    Field(discriminator="kind"),
]

CRITERION_KINDS: tuple[str, ...] = (
    "answer_number",
    "answer_names",
    "answer_choice",
    "answer_excludes",
    "state",
    "called",
    "not_called",
    "refused",
)


def act_kinds() -> list[str]:
    """The kinds of criteria that fail when the agent did something: the only ones that can be harm."""
    return sorted(
        get_args(c.model_fields["kind"].annotation)[0] for c in _Criterion.__subclasses__() if c.act
    )
