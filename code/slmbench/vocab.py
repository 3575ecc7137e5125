"""The study's vocabulary, declared once: every other module imports these names from here."""

from __future__ import annotations

from typing import Literal, get_args

STUDY_ID = "slmbench"
"""The study id of our own records (imported studies carry their own)."""
NAME_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
"""Names written into file names and trial ids (protocols, rerun labels): lower-case words joined by '-'."""
MODEL_NAME_PATTERN = r"[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*"
"""Model names (the keys under ``models:``), which name folders, files, trial ids, rule wildcards and scheduler
resources: letters and digits, with single ``.``, ``_`` or ``-`` between them (never a space, a slash or a
leading dot), so a name is always one file name and one shell word."""
ELIGIBILITY_RAW = "eligibility"
"""The folder under ``data/raw`` of the eligibility study's runs (not trial records: tidy leaves it alone)."""

Suite = Literal["capability", "reliability", "safety"]
SUITES: tuple[Suite, ...] = get_args(Suite)
"""The task suites (``tasks/data/<suite>/``; their groups are in ``tasks.schema.SUITE_GROUPS``); records may carry
other suite labels (``null_control`` reruns)."""

NULL_CONTROL = "null_control"
"""The suite label of the null control: identical reruns of some capability tasks at T=0, kept apart from them."""

PlanKind = Literal["primary", "null_control", "scaffold", "context", "protocol", "serving", "build_run"]
PLAN_KINDS: tuple[PlanKind, ...] = get_args(PlanKind)
"""Why a shard is planned (``slmbench.run.plan``): the primary condition, the null control, a scaffold or context
comparison, the protocol study, the serving comparison, the runs on one build. A shard two of them plan alike is
planned once, with both kinds."""
COMPARISON_KINDS: tuple[PlanKind, ...] = ("scaffold", "context", "serving")
BuildPart = Literal["primary", "sampling", "perturbation", "protocol"]
BUILD_PARTS: tuple[BuildPart, ...] = get_args(BuildPart)
"""The parts of the runs on one build (``build_run``): the primary condition, the samples above T = 0 (outcome
consistency), the perturbed prompts and the other protocols. Tidy's ``build_run`` column names a trial's."""
StudyPart = Literal[
    "null_control", "scaffold_comparison", "context_comparison", "serving_comparison", "protocol_study",
    "build_run", "eligibility", "published_studies",
]  # fmt: skip
STUDY_PARTS: tuple[StudyPart, ...] = get_args(StudyPart)
"""The optional parts of a study, each named by the config block that asks for it: a part (its shards, its topic,
its figures and tables) exists only where its block does."""
PublishedStudy = Literal["karmacharya2026"]
PUBLISHED_STUDIES: tuple[PublishedStudy, ...] = get_args(PublishedStudy)
"""Published studies a study can reproduce from their own reports (``slmbench.importers``; config
``published_studies``)."""
"""The plan's parts whose shards are paired with the primary results trial by trial (``slmbench.run.roles``)."""

ServerName = Literal["llama-server"]
SERVERS: tuple[ServerName, ...] = get_args(ServerName)
"""Serving stacks the runner starts itself for the serving comparison (``slmbench.run.serving``): llama.cpp's own
``llama-server`` on the model's GGUF file. A name is written into shard names and trial ids (``srv-<name>``)."""

Dimension = Literal["consistency", "robustness", "fault_tolerance", "safety"]
DIMENSIONS: tuple[Dimension, ...] = get_args(Dimension)
"""Reliability dimensions, each also the group of its tasks; the composite is the mean of the four."""

VARIANT_DIMENSIONS: tuple[Dimension, ...] = ("robustness", "fault_tolerance")
"""Dimensions whose tasks run variants (rephrasings, injected faults) that are scored instead of the original."""

ORIGINAL_VARIANT = "original"
"""The variant name of a task's instruction as written, with no fault."""

Rephrasing = Literal["paraphrase", "verbose", "concise", "typos", "reordered"]
REPHRASINGS: tuple[Rephrasing, ...] = get_args(Rephrasing)
"""The rewordings of a robustness task, each one a variant of that name."""

FaultKind = Literal["timeout", "rate_limit", "error", "schema_drift"]
FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)
"""Faults the harness injects into a fault-tolerance task's tool, each a variant ``fault_<kind>``."""

Perturbation = Literal["paraphrase", "fault"]
PERTURBATIONS: tuple[Perturbation, ...] = get_args(Perturbation)
"""How a perturbation shard changes every task of its suite (``slmbench.tasks.variants``): each of the task's
paraphrases, or each fault kind injected into the first tool its reference solution calls. Written into shard names
and trial ids (``v-<name>``)."""

FailureClass = Literal["no_tool_call", "unparsed_call", "transport", "clock", "capability"]
FAILURE_CLASSES: tuple[FailureClass, ...] = get_args(FailureClass)
"""Failure classes in the default rule order (``judging.failures`` documents the rules)."""

SafetyOutcome = Literal["safe_refusal", "safe_other", "unsafe_refused", "unsafe"]
SAFETY_OUTCOMES: tuple[SafetyOutcome, ...] = get_args(SafetyOutcome)
"""A safety trial's outcome by whether it passed and whether the model refused: safe with a refusal, safe
otherwise, unsafe despite a refusal, unsafe."""

ScaffoldName = Literal["native", "react"]
SCAFFOLDS: tuple[ScaffoldName, ...] = get_args(ScaffoldName)
"""Scaffolds by name; each is an object in ``slmbench.harness.scaffolds`` (the registry covers exactly these)."""

Surface = Literal["native", "tool_call_tag", "fenced_json", "bare_json", "react", "function_syntax"]
SURFACES: tuple[Surface, ...] = get_args(Surface)
"""How a call was written, as the parser finds it: a backend-native call, a ``<tool_call>`` tag, JSON in a code
fence, bare JSON, ReAct ``Action`` lines, ``name(...)`` function syntax."""

ParserMode = Literal["strict", "repaired"]
PARSER_MODES: tuple[ParserMode, ...] = get_args(ParserMode)

RefusalCode = Literal[
    "arguments_not_object",
    "empty_output",
    "missing_action_input",
    "missing_name",
    "mixed_call_and_answer",
    "no_action",
    "schema_invalid",
    "unknown_tool",
    "unparseable_json",
    "wrong_keys",
    "wrong_wrapper",
]
REFUSAL_CODES: tuple[RefusalCode, ...] = get_args(RefusalCode)
"""Why the parser refused a call or a reply (``harness.parser``), in alphabetical order."""

NAME_RECOGNITION = "name_recognition"
KIND_FROM_CONTENT = "kind_from_content"
RENAME_FIELD = "rename_field"
RENAME_FLAT_TWO_FIELD = "rename_flat_two_field"
JSON_FIX = "json_fix"
CALL_OVER_ANSWER = "call_over_answer"
CALL_REPAIRS: tuple[str, ...] = (
    NAME_RECOGNITION,
    KIND_FROM_CONTENT,
    RENAME_FIELD,
    RENAME_FLAT_TWO_FIELD,
    JSON_FIX,
    CALL_OVER_ANSWER,
)
"""Repairs that can mark an accepted call in repaired mode (``harness.repairs`` documents each)."""
SIBLING_REQUIRED_GUARD = "sibling_required_guard"
"""A repair that only ever shapes a refusal (code ``schema_invalid``), never an accepted call."""

Outcome = Literal["success", "failure", "infra_error"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

AnswerChannel = Literal["text", "final_answer_tool", "answer_in_call", "closing_turn"]
"""How a final answer reached the harness (the last three exist under protocol conditions only)."""

EligibilityTask = Literal["command_approval", "memory_write", "tool_selection", "reranking"]
ELIGIBILITY_TASKS: tuple[EligibilityTask, ...] = get_args(EligibilityTask)
"""The side-tasks of the eligibility study (``slmbench.eligibility``)."""

BINARY_TASKS: tuple[EligibilityTask, ...] = ("command_approval", "memory_write")
"""Eligibility tasks with two labels; the others choose among per-item candidates."""
RANKING_TASKS: tuple[EligibilityTask, ...] = tuple(t for t in ELIGIBILITY_TASKS if t not in BINARY_TASKS)
"""Eligibility tasks that choose among per-item candidates (the cascade's tasks)."""

Split = Literal["calibration", "test"]
SPLITS: tuple[Split, ...] = get_args(Split)

PromptStyle = Literal["terse", "rubric", "fewshot"]
PROMPT_STYLES: tuple[PromptStyle, ...] = get_args(PromptStyle)
"""Prompt formulations of the eligibility study (``slmbench.eligibility.prompts``)."""

ReplyMatch = Literal["exact", "prefix", "none"]
"""How a generated reply was matched to a candidate answer (``eligibility.ollama_scorer``): it is the candidate,
it starts with the candidate, or it names none (the item counts as wrong)."""

DEFAULT_SPLIT_SEED = 20261129
"""Seed of the eligibility study's calibration/test split and few-shot examples (config ``eligibility.split_seed``;
every run header and the baselines file record it). Fixed once with the data sets: a new seed is a new split."""

DEFAULT_BOOTSTRAP_SEED = 20260101
"""Seed of every bootstrap resampling where none is given (config.yaml states its ``bootstrap_seed``).

Trials have a seed of their own (config ``seed``, which every trial record keeps): the two never stand in for
each other."""

DEFAULT_EQUIVALENCE_MARGIN = 0.05
"""The equivalence margin where config.yaml states none (``equivalence_margin``): two conditions on the same tasks
are read as the same only when TOST shows their difference in accuracy within plus or minus this (five percentage
points). A study sets its own: the largest difference it treats as too small to matter, well below the effects it
reports as findings."""

SHIPPED = "shipped"
"""The quantisation tag of a model's shipped GGUF (requantised variants carry their llama.cpp type name)."""

Diagnosis = Literal["eligible", "calibration", "capability"]
DIAGNOSES: tuple[Diagnosis, ...] = get_args(Diagnosis)
"""Why a configuration is or is not eligible: eligible as scored; a tuned threshold makes it eligible; neither."""

RequantType = Literal["Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0"]
REQUANT_TYPES: tuple[RequantType, ...] = get_args(RequantType)
"""llama.cpp types a shipped GGUF may be requantised to (``LLAMA_FTYPE_MOSTLY_<type>``)."""
