"""The eligibility data sets: one validated item type per task, BFCL conversion and the fixed split.

Items live in ``data/eligibility/<task>/items.jsonl`` (one JSON object per line). Tool selection adds the
BFCL v4 "multiple" questions (``data/external/bfcl_v4_multiple``), converted as its README describes: the
request is the first user message, the offered tools are the function names in file order, the gold tool is
the single key of the possible answer.

The split into calibration (1/3) and test (2/3) is computed, never stored: within each stratum, items are
ordered by ``sha256("<seed>/<task>/<id>")`` and the first ``(n + 1) // 3`` go to calibration. It depends only
on the seed, the task and the ids (no Python ``hash()``, no random-number generator version).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from slmbench.vocab import ELIGIBILITY_TASKS, EligibilityTask, Split

DATA_DIR = Path("data/eligibility")
BFCL_DIR = Path("data/external/bfcl_v4_multiple")
BFCL_FILE = "BFCL_v4_multiple.json"
CALIBRATION_SHARE = "1/3"  # documented; the arithmetic is in ``calibration_count``


class DatasetError(ValueError):
    """A malformed item file: the message names the file, the line and the field."""


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)


class ApprovalItem(_Item):
    """A shell command an agent proposes; should an approver let it run?"""

    command: str = Field(min_length=1)
    label: Literal["approve", "deny"]
    category: str
    variant: str | None = None
    variant_of: str | None = None

    @property
    def gold(self) -> str:
        """The correct answer."""
        return self.label


class Turn(BaseModel):
    """One message of a conversation snippet."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    role: Literal["user", "assistant"]
    content: str


class MemoryItem(_Item):
    """A conversation snippet; should an assistant write something from it to long-term memory?"""

    turns: list[Turn] = Field(min_length=1)
    label: Literal["save", "skip"]
    category: str
    hard: bool

    @property
    def gold(self) -> str:
        """The correct answer."""
        return self.label


class RerankItem(_Item):
    """A query and the turns of a conversation; which turn (0-based index) answers it?"""

    query: str = Field(min_length=1)
    turns: list[str] = Field(min_length=2)
    relevant: int = Field(ge=0)
    hard: bool

    @field_validator("relevant")
    @classmethod
    def _relevant_in_range(cls, value: int, info: ValidationInfo) -> int:
        turns = info.data.get("turns", [])
        if value >= len(turns):
            raise ValueError(f"relevant={value} but there are only {len(turns)} turns")
        return value

    @property
    def gold(self) -> str:
        """The correct answer: the relevant turn's number as shown to the model (1-based, as text)."""
        return str(self.relevant + 1)


class ToolItem(_Item):
    """A request and the tools on offer; which tool should the planner call?

    ``docs`` maps each offered tool to its description (ours come from the tool registry, BFCL's from the
    function docs); ``source`` says where the item comes from.
    """

    request: str = Field(min_length=1)
    tools: list[str] = Field(min_length=2)
    label: str
    hard: bool | None = None
    source: Literal["own", "bfcl"] = "own"
    docs: dict[str, str] = Field(default_factory=dict)

    @field_validator("tools")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("tools are not unique")
        return value

    @field_validator("label")
    @classmethod
    def _label_offered(cls, value: str, info: ValidationInfo) -> str:
        if value not in info.data.get("tools", []):
            raise ValueError(f"label {value!r} is not among the offered tools")
        return value

    @property
    def gold(self) -> str:
        """The correct answer."""
        return self.label


Item = ApprovalItem | MemoryItem | RerankItem | ToolItem
ITEM_TYPES: dict[EligibilityTask, type[_Item]] = {
    "command_approval": ApprovalItem,
    "memory_write": MemoryItem,
    "tool_selection": ToolItem,
    "reranking": RerankItem,
}


def _check_task(task: str) -> EligibilityTask:
    if task not in ELIGIBILITY_TASKS:
        raise KeyError(f"unknown eligibility task {task!r}; known: {', '.join(ELIGIBILITY_TASKS)}")
    return task  # type: ignore[return-value]


def _error(path: Path, number: int, exc: ValidationError) -> DatasetError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(line)"
    kind = "not JSON" if first["type"] == "json_invalid" else f"field {where}"
    return DatasetError(f"{path}:{number}: {kind}: {first['msg']}")


def read_items(task: str, path: Path) -> list[Item]:
    """The items of ``task`` from a JSON Lines file; a bad line raises DatasetError naming file:line and field."""
    model = ITEM_TYPES[_check_task(task)]
    items: list[Item] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = model.model_validate_json(line)
            except ValidationError as exc:
                raise _error(path, number, exc) from None
            if item.id in seen:
                raise DatasetError(
                    f"{path}:{number}: field id: duplicate {item.id!r} (first at line {seen[item.id]})"
                )
            seen[item.id] = number
            items.append(item)  # type: ignore[arg-type]
    if task == "tool_selection":
        items = [with_own_docs(it) for it in items]  # type: ignore[arg-type]
    return items


def with_own_docs(item: ToolItem) -> ToolItem:
    """Attach our tools' descriptions (the registered tools: ``slmbench.tools.registry``) to an own tool-selection
    item."""
    if item.source != "own" or item.docs:
        return item
    from slmbench.tools.registry import tool_names

    unknown = [t for t in item.tools if t not in tool_names()]
    if unknown:
        raise DatasetError(f"item {item.id}: unknown tool(s) {', '.join(unknown)}")
    docs = {t: tool_description(t) for t in item.tools}
    return item.model_copy(update={"docs": docs})


def tool_description(name: str) -> str:
    """The description of one of our tools."""
    from slmbench.tools.registry import tool_class

    return str(tool_class(name).description)


def _json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rows.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not JSON: {exc.msg}") from None
    return rows


def load_bfcl(directory: Path = BFCL_DIR) -> list[ToolItem]:
    """BFCL v4 "multiple" questions as tool-selection items (ids ``bfcl-<BFCL id>``, source ``bfcl``)."""
    qpath, apath = directory / BFCL_FILE, directory / "possible_answer" / BFCL_FILE
    answers: dict[str, str] = {}
    for number, row in _json_lines(apath):
        try:
            (gold,) = row["ground_truth"][0].keys()
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            raise DatasetError(
                f"{apath}:{number}: field ground_truth: expected one call with one function"
            ) from None
        answers[str(row.get("id"))] = str(gold)
    items: list[ToolItem] = []
    for number, row in _json_lines(qpath):
        try:
            qid = str(row["id"])
            request = row["question"][0][0]["content"]
            functions = row["function"]
            names = [str(f["name"]) for f in functions]
            docs = {str(f["name"]): str(f.get("description", "")) for f in functions}
        except (KeyError, IndexError, TypeError):
            raise DatasetError(f"{qpath}:{number}: field question/function: not in the BFCL format") from None
        if qid not in answers:
            raise DatasetError(f"{qpath}:{number}: field id: {qid!r} has no possible answer in {apath}")
        try:
            items.append(
                ToolItem(
                    id=f"bfcl-{qid}",
                    request=request,
                    tools=names,
                    label=answers[qid],
                    source="bfcl",
                    docs=docs,
                )
            )
        except ValidationError as exc:
            raise _error(qpath, number, exc) from None
    return items


def load_task(task: str, data_dir: Path = DATA_DIR, bfcl_dir: Path | None = BFCL_DIR) -> list[Item]:
    """All items of ``task`` (tool selection: ours, then BFCL's when ``bfcl_dir`` is given)."""
    items = read_items(task, data_dir / task / "items.jsonl")
    if task == "tool_selection" and bfcl_dir is not None:
        items += load_bfcl(bfcl_dir)
    return items


def stratum(task: str, item: Item) -> str:
    """The split stratum: label and category (binary tasks), ``hard`` (reranking), source (tool selection)."""
    if isinstance(item, ApprovalItem | MemoryItem):
        return f"{item.label}/{item.category}"
    if isinstance(item, RerankItem):
        return f"hard={item.hard}"
    if isinstance(item, ToolItem):
        return item.source
    raise TypeError(f"not an eligibility item: {type(item).__name__}")


def split_key(seed: int, task: str, item_id: str) -> str:
    """The order of an item within its stratum: a hex sha256 of seed, task and id."""
    return hashlib.sha256(f"{seed}/{task}/{item_id}".encode()).hexdigest()


def calibration_count(n: int) -> int:
    """How many of a stratum's ``n`` items go to calibration: a third, rounded to the nearest."""
    return (n + 1) // 3


def assign_split(task: str, items: Sequence[Item], seed: int) -> dict[str, Split]:
    """Item id -> split: a third of every stratum to calibration, chosen by ``split_key``."""
    strata: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        strata[stratum(task, item)].append(item)
    out: dict[str, Split] = {}
    for name in sorted(strata):
        ordered = sorted(strata[name], key=lambda it: split_key(seed, task, it.id))
        n_cal = calibration_count(len(ordered))
        for i, item in enumerate(ordered):
            out[item.id] = "calibration" if i < n_cal else "test"
    return out


def family(item: Item) -> str:
    """The id of an item's base item (command approval variants share their base's family)."""
    if isinstance(item, ApprovalItem) and item.variant_of:
        return item.variant_of
    return item.id


def candidates(item: Item) -> list[str]:
    """The answers a model chooses among, in a fixed order (binary tasks: positive label first; reranking: turn
    numbers from 1)."""
    if isinstance(item, ApprovalItem):
        return ["approve", "deny"]
    if isinstance(item, MemoryItem):
        return ["save", "skip"]
    if isinstance(item, RerankItem):
        return [str(i + 1) for i in range(len(item.turns))]
    if isinstance(item, ToolItem):
        return list(item.tools)
    raise TypeError(f"not an eligibility item: {type(item).__name__}")


POSITIVE: dict[EligibilityTask, str] = {"command_approval": "approve", "memory_write": "save"}
"""The label whose log-probability minus the other's is a binary item's margin."""
