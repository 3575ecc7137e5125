"""The tool seam: a Protocol for sandboxed, stateful, deterministic tools, the per-trial environment, and the
decorator a tool class registers with where it is defined.

``@register_tool(name="email", side_effects={"argument": "action", "actions": ("send",)})`` declares the tool's
name (its class's ``name``) and which of its calls change the world outside the conversation: none (no
``side_effects``), ``"every call"``, or the calls whose ``argument`` is one of ``actions``. The declarations are
literals, read from the source without importing a tool (``slmbench.registration``): the task schema takes its
tool names from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from slmbench.registration import Registry


@dataclass
class ToolResult:
    """What a tool answered. ``ok`` is False for tool-level errors (bad query, missing file...)."""

    ok: bool
    content: Any
    error: str = ""

    def as_observation(self) -> str:
        """Text shown to the model."""
        import json

        if not self.ok:
            return f"ERROR: {self.error}"
        return self.content if isinstance(self.content, str) else json.dumps(self.content, default=str)


@runtime_checkable
class Tool(Protocol):
    """A tool an agent can call. ``parameters`` is a JSON Schema (object) for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Run the tool on already-validated arguments."""
        ...

    def snapshot(self) -> Any:
        """The tool's end state, JSON-serialisable, for checks."""
        ...


@dataclass
class ToolContext:
    """What a tool gets at construction: its slice of the task's initial state and a private directory."""

    workdir: Path
    state: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


def function_schema(tool: Tool) -> dict[str, Any]:
    """OpenAI-style function schema for a tool (what ``tools=`` expects)."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


register_tool: Registry[Any] = Registry(
    __package__ or "", Path(__file__).parent, "register_tool", named_by="name"
)
"""The decorator of a tool class: ``@register_tool(name=..., side_effects=...)``."""
