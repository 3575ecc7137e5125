"""The scaffolds' prompts by name: the system prompt, the observation message and the ReAct stop string.

The text and the choices live in the scaffold objects (:mod:`slmbench.harness.scaffolds`); these functions are
the entry points for callers that hold a scaffold's name.
"""

from __future__ import annotations

from typing import Any

from slmbench.backends.base import Message
from slmbench.harness.scaffolds import ReactScaffold, Scaffold, get_scaffold
from slmbench.vocab import ScaffoldName

REACT_STOP: tuple[str, ...] = ReactScaffold.stop
"""Stop sequence for the ReAct scaffold: the harness, not the model, writes observations."""


def system_prompt(tools: list[dict[str, Any]], scaffold: ScaffoldName | Scaffold) -> str:
    """The system message text for a scaffold.

    Args:
        tools: OpenAI-style function schemas (``slmbench.tools.base.function_schema``).
        scaffold: ``native`` (``<tool_call>`` tags) or ``react`` (Thought / Action / Final Answer), or the object.
    """
    return get_scaffold(scaffold).system_prompt(tools)


def observation_message(
    text: str, scaffold: ScaffoldName | Scaffold, plain: bool = False, name: str | None = None
) -> Message:
    """The message that shows a tool result (or a refusal reason) to the model.

    Args:
        text: the observation.
        scaffold: the scaffold in use; ReAct observations are always plain user messages.
        plain: for the native scaffold, use a user message instead of a ``tool`` role message (for chat
            templates without a tool role).
        name: the tool's name, added to ``tool`` role messages when given.
    """
    return get_scaffold(scaffold).observation_message(text, plain=plain, name=name)
