"""System prompts of the two scaffolds and the message that carries an observation back to the model.

Both prompts are short: the models are small and their context is small. The native prompt is used when a
backend has no native tool template; it asks for the Hermes/Qwen ``<tool_call>`` format that the strict parser
accepts. The ReAct prompt asks for the ``Action`` / ``Action Input`` lines the strict parser accepts.
"""

from __future__ import annotations

import json
from typing import Any

from slmbench.backends.base import Message
from slmbench.harness.records import Scaffold

REACT_STOP: tuple[str, ...] = ("\nObservation:",)
"""Stop sequence for the ReAct scaffold: the harness, not the model, writes observations."""

_NATIVE = """You are a helpful assistant that can use tools.

# Tools
{tools}

To call a tool, reply with exactly one call in this form and nothing after it:
<tool_call>{{"name": "<tool name>", "arguments": {{<arguments as a JSON object>}}}}</tool_call>

Call one tool per turn and wait for its result. When you have everything you need, answer the user plainly,
without a tool call."""

_REACT = """You are a helpful assistant that can use tools.

# Tools
{tools}

Use this format:
Thought: what you need to do next
Action: the tool name, one of [{names}]
Action Input: the arguments as a JSON object
Observation: the tool result (written for you; never write it yourself)
... (Thought / Action / Action Input / Observation can repeat)
Thought: I now know the answer
Final Answer: the answer to the user

Write one Action per turn and stop after its Action Input. Never write an Action and a Final Answer
together."""


def _describe(tool: dict[str, Any]) -> str:
    fn = tool.get("function", tool)
    params = json.dumps(fn.get("parameters", {}), separators=(", ", ": "), ensure_ascii=False)
    return f"- {fn['name']}: {fn.get('description', '').strip()}\n  parameters: {params}"


def system_prompt(tools: list[dict[str, Any]], scaffold: Scaffold) -> str:
    """The system message text for a scaffold.

    Args:
        tools: OpenAI-style function schemas (``slmbench.tools.base.function_schema``).
        scaffold: ``native`` (``<tool_call>`` tags) or ``react`` (Thought / Action / Final Answer).
    """
    listing = "\n".join(_describe(t) for t in tools) or "(none)"
    if scaffold == "react":
        names = ", ".join(t.get("function", t)["name"] for t in tools)
        return _REACT.format(tools=listing, names=names)
    return _NATIVE.format(tools=listing)


def observation_message(
    text: str, scaffold: Scaffold, plain: bool = False, name: str | None = None
) -> Message:
    """The message that shows a tool result (or a refusal reason) to the model.

    Args:
        text: the observation.
        scaffold: the scaffold in use; ReAct observations are always plain user messages.
        plain: for the native scaffold, use a user message instead of a ``tool`` role message (for chat
            templates without a tool role).
        name: the tool's name, added to ``tool`` role messages when given.
    """
    if scaffold == "react" or plain:
        return {"role": "user", "content": f"Observation: {text}"}
    message: Message = {"role": "tool", "content": text}
    if name is not None:
        message["name"] = name
    return message
