"""The study's vocabulary, declared once: every other module imports these names from here."""

from __future__ import annotations

from typing import Literal, get_args

STUDY_ID = "slmbench"
"""The study id of our own records (imported studies carry their own)."""

FailureClass = Literal["no_tool_call", "unparsed_call", "transport", "clock", "capability"]
FAILURE_CLASSES: tuple[FailureClass, ...] = get_args(FailureClass)
"""Failure classes in the default rule order (``harness.failures`` documents the rules)."""

ScaffoldName = Literal["native", "react"]
SCAFFOLDS: tuple[ScaffoldName, ...] = get_args(ScaffoldName)
"""Scaffolds by name; each is an object in ``slmbench.harness.scaffolds`` (the registry covers exactly these)."""

Surface = Literal["native", "tool_call_tag", "fenced_json", "bare_json", "react", "function_syntax"]
SURFACES: tuple[Surface, ...] = get_args(Surface)
"""How a call was written, as the parser finds it: a backend-native call, a ``<tool_call>`` tag, JSON in a code
fence, bare JSON, ReAct ``Action`` lines, ``name(...)`` function syntax."""

ParserMode = Literal["strict", "repaired"]
PARSER_MODES: tuple[ParserMode, ...] = get_args(ParserMode)

Outcome = Literal["success", "failure", "infra_error"]

AnswerChannel = Literal["text", "final_answer_tool", "answer_in_call", "closing_turn"]
"""How a final answer reached the harness (the last three exist under protocol conditions only)."""

EligibilityTask = Literal["command_approval", "memory_write", "tool_selection", "reranking"]
ELIGIBILITY_TASKS: tuple[EligibilityTask, ...] = get_args(EligibilityTask)
"""The side-tasks of the eligibility study (``slmbench.eligibility``)."""

BINARY_TASKS: tuple[EligibilityTask, ...] = ("command_approval", "memory_write")
"""Eligibility tasks with two labels; the others choose among per-item candidates."""

Split = Literal["calibration", "test"]
SPLITS: tuple[Split, ...] = get_args(Split)

PromptStyle = Literal["terse", "rubric", "fewshot"]
PROMPT_STYLES: tuple[PromptStyle, ...] = get_args(PromptStyle)
"""Prompt formulations of the eligibility study (``slmbench.eligibility.prompts``)."""

DEFAULT_BOOTSTRAP_SEED = 20260101
"""Seed of every bootstrap resampling where none is given (config.yaml states its ``bootstrap_seed``).

Trials have a seed of their own (config ``seed``, which every trial record keeps): the two never stand in for
each other."""

SHIPPED = "shipped"
"""The quantisation tag of a model's shipped GGUF (requantised variants carry their llama.cpp type name)."""

Diagnosis = Literal["eligible", "calibration", "capability"]
DIAGNOSES: tuple[Diagnosis, ...] = get_args(Diagnosis)
"""Why a configuration is or is not eligible: eligible as scored; a tuned threshold makes it eligible; neither."""

RequantType = Literal["Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0"]
REQUANT_TYPES: tuple[RequantType, ...] = get_args(RequantType)
"""llama.cpp types a shipped GGUF may be requantised to (``LLAMA_FTYPE_MOSTLY_<type>``)."""
