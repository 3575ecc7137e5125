"""The ReAct forms of the protocol conditions (``stop_strings``, ``answer_line``) through the real loop."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.unit.harness.test_protocol import TASK

from slmbench.backends.base import GenerationOptions, Message, ModelReply
from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.harness.protocol import CLOSING_PROMPT, FINAL_ANSWER_TOOL, ProtocolConditions
from slmbench.harness.scaffolds import get_scaffold
from slmbench.records import schema as rec
from slmbench.tasks.variants import TrialSpec

FULL = ProtocolConditions(True, True, True, True, True)
FULL_REACT = replace(FULL, stop_strings=True, answer_line=True)
CALC = 'Thought: multiply\nAction: calculator\nAction Input: {"expression": "17*23"}'


class OptionsScripted(ScriptedBackend):
    """A scripted model that also keeps the generation options and tool lists of every request."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.options: list[GenerationOptions] = []
        self.tool_lists: list[list[dict[str, Any]] | None] = []

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        self.options.append(options)
        self.tool_lists.append(tools)
        return super().chat(messages, tools, options)


def run(outputs: list[str], conditions: ProtocolConditions, scaffold: str = "react", max_turns: int = 3):
    backend = OptionsScripted(outputs)
    spec = TrialSpec(task=TASK, variant="original", instruction=TASK.instruction, faults=(), repeat=0)
    settings = LoopSettings(
        scaffold=scaffold,
        max_turns=max_turns,
        budget_s=30.0,
        max_tokens=64,
        protocol=conditions,  # type: ignore[arg-type]
    )
    return backend, run_trial(backend, spec, settings, Path("."))


def system_text(backend: OptionsScripted) -> str:
    return str(backend.requests[0][0]["content"])


def test_stop_strings_are_sent_only_under_their_condition():
    backend, _ = run([CALC, "Final Answer: 391"], FULL)
    assert all(o.stop == () for o in backend.options)
    backend, _ = run([CALC, "Final Answer: 391"], FULL_REACT)
    assert all(o.stop == get_scaffold("react").stop == ("\nObservation:",) for o in backend.options)


def test_the_native_scaffold_declares_no_stop_strings_and_no_answer_line():
    native = get_scaffold("native")
    assert native.stop == () and native.answer_line == ""
    backend, run_ = run(["The answer is 391."], FULL_REACT, scaffold="native")
    assert backend.options[0].stop == ()
    assert FINAL_ANSWER_TOOL in system_text(backend)  # the answer channel keeps its tool where no line exists


def test_under_answer_line_react_lists_no_final_answer_tool_and_answers_on_its_line():
    backend, result = run([CALC, "Thought: done\nFinal Answer: 391"], FULL)
    assert FINAL_ANSWER_TOOL in system_text(backend)  # full alone: the tool is in the ReAct catalogue
    backend, result = run([CALC, "Thought: done\nFinal Answer: 391"], FULL_REACT)
    assert FINAL_ANSWER_TOOL not in system_text(backend)
    answers = [e for e in result.events if isinstance(e, rec.FinalAnswerEvent)]
    assert [(a.text, a.channel) for a in answers] == [("391", "text")]


def test_the_closing_turn_asks_for_the_answer_line_under_answer_line():
    _, result = run([CALC, CALC, CALC, "Final Answer: 391"], FULL_REACT)
    assert result.stop_reason == "closing_answer"
    backend, _ = run([CALC, CALC, CALC, "Final Answer: 391"], FULL_REACT)
    closing = backend.requests[-1][-1]["content"]
    assert closing == get_scaffold("react").closing_line_prompt and "Final Answer:" in closing
    backend, _ = run([CALC, CALC, CALC, "Final Answer: 391"], FULL)
    assert backend.requests[-1][-1]["content"] == CLOSING_PROMPT


def test_stuck_detection_catches_a_repeated_react_action():
    _, result = run([CALC, CALC, "Final Answer: 391"], FULL_REACT)
    assert len([e for e in result.events if isinstance(e, rec.StuckEvent)]) == 1
    assert len([e for e in result.events if isinstance(e, rec.ToolResultEvent)]) == 1
