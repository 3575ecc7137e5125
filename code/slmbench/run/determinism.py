"""The determinism reference: the greedy replies of fixed prompts, compared on every host the project meets.

The prompts are the first requests (system prompt, tools, the task's message: built by the harness itself, under
the primary protocol's conditions) of ``REFERENCE_TASKS``, sent to the smallest and the largest model at T = 0.
``data/determinism/reference.json`` holds the sha256 of each reply's tokens and the tokens themselves, recorded
once on the portable build; ``data/determinism/determinism_ledger.jsonl`` gains one line per host and build: its CPU,
the build identity and whether every reply matched.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slmbench.backends.base import Backend, GenerationOptions, Message, ModelReply
from slmbench.backends.llamacpp_backend import usable_cpus
from slmbench.backends.llamacpp_build import cpu, installed_build
from slmbench.conditions import ProtocolConditions
from slmbench.config import StudyConfig, model_spec
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.models.registry import open_backend
from slmbench.tasks.loader import task_index
from slmbench.tasks.variants import trial_plan

REFERENCE_TASKS = ("IR-1", "SCH-1", "DA-1", "COM-1", "COD-1", "MSR-1", "DM-1", "SAF-1")
"""Capability tasks whose first requests are the reference prompts (one per group)."""
REFERENCE_MAX_TOKENS = 48
"""Tokens generated per reference prompt: enough to reach where builds diverge, few enough for ``make test``."""
REFERENCE_DIR = Path("data/determinism")
REFERENCE_FILE = REFERENCE_DIR / "reference.json"
LEDGER_FILE = REFERENCE_DIR / "determinism_ledger.jsonl"


@dataclass
class _FirstRequest:
    """A backend in front of the real one that keeps the first request the harness sends, and ends the trial."""

    inner: Backend
    messages: list[Message] = dataclasses.field(default_factory=list)
    tools: list[dict[str, Any]] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        if not self.messages:
            self.messages, self.tools = [dict(m) for m in messages], tools  # type: ignore[misc]
        return ModelReply(text="")

    def reset(self) -> bool:
        return True


def first_request(
    backend: Backend, task_id: str, conditions: ProtocolConditions
) -> tuple[list[Message], Any]:
    """The first request the harness sends ``backend`` for the original variant of ``task_id``."""
    spec = trial_plan(task_index()[task_id], repeats=1)[0]
    proxy = _FirstRequest(backend)
    settings = LoopSettings(max_turns=1, protocol=dataclasses.replace(conditions, closing_turn=False))
    with tempfile.TemporaryDirectory(prefix="slmbench-determinism-") as workdir:
        run_trial(proxy, spec, settings, Path(workdir))  # type: ignore[arg-type]
    return proxy.messages, proxy.tools


def reply_tokens(backend: Backend, task_id: str, conditions: ProtocolConditions) -> list[int]:
    """The tokens of the greedy reply to the first request of ``task_id``, from an empty KV cache."""
    messages, tools = first_request(backend, task_id, conditions)
    backend.reset()
    options = GenerationOptions(temperature=0.0, seed=0, max_tokens=REFERENCE_MAX_TOKENS)
    reply = backend.chat(messages, tools, options)
    return list(backend.tokens(reply.text))  # type: ignore[attr-defined]


def tokens_sha256(tokens: list[int]) -> str:
    """The sha256 of a token list (its JSON text)."""
    return hashlib.sha256(json.dumps(tokens).encode()).hexdigest()


def reference_models(config: StudyConfig) -> tuple[str, str]:
    """The smallest and the largest in-process instruction-tuned model of the study."""
    instruct = [m for m, s in config.models.items() if s.instruct and s.weights is not None]
    by_size = sorted(instruct, key=lambda m: config.models[m].params_b)
    return by_size[0], by_size[-1]


def measure(
    config: StudyConfig, models: tuple[str, ...], tasks: tuple[str, ...] = REFERENCE_TASKS
) -> dict[str, dict[str, list[int]]]:
    """The reply tokens of the reference prompts of ``tasks`` (default: all) for each of ``models`` on this host."""
    conditions = config.conditions(config.protocol)
    out: dict[str, dict[str, list[int]]] = {}
    for model in models:
        backend = open_backend(model, model_spec(config, model), prefix_cache=False)
        try:
            out[model] = {task: reply_tokens(backend, task, conditions) for task in tasks}
        finally:
            backend.close()
    return out


@dataclass(frozen=True)
class Difference:
    """Where this host's reply first differs from the reference's."""

    model: str
    task: str
    position: int
    reference_token: int | None
    host_token: int | None

    def __str__(self) -> str:
        return (
            f"{self.model} on the first request of {self.task}: token {self.position} is {self.host_token} here, "
            f"{self.reference_token} in the reference"
        )


def differences(reference: dict[str, Any], measured: dict[str, dict[str, list[int]]]) -> list[Difference]:
    """Every reply that differs from the reference, with its first differing token."""
    found = []
    for model, replies in measured.items():
        for task, tokens in replies.items():
            expected = reference["models"][model][task]["tokens"]
            if tokens == expected:
                continue
            position = next(
                (i for i, (a, b) in enumerate(zip(expected, tokens, strict=False)) if a != b), None
            )
            position = min(len(expected), len(tokens)) if position is None else position
            found.append(
                Difference(
                    model,
                    task,
                    position,
                    expected[position] if position < len(expected) else None,
                    tokens[position] if position < len(tokens) else None,
                )
            )
    return found


def reference_document(measured: dict[str, dict[str, list[int]]]) -> dict[str, Any]:
    """The reference file's content for replies measured on this host."""
    build = installed_build()
    return {
        "build": {
            "identity": build["identity"],
            "version": build["version"],
            "cmake_args": build["cmake_args"],
        },
        "recorded_on": cpu()["model"],
        "tasks": list(REFERENCE_TASKS),
        "max_tokens": REFERENCE_MAX_TOKENS,
        "models": {
            model: {
                task: {"sha256": tokens_sha256(tokens), "tokens": tokens} for task, tokens in replies.items()
            }
            for model, replies in measured.items()
        },
    }


def ledger_line(reference: dict[str, Any], found: list[Difference], n_replies: int) -> dict[str, Any]:
    """One line of the hosts ledger: this host's CPU and build, and how many reference replies it matched."""
    build, here = installed_build(), cpu()
    return {
        "date": dt.date.today().isoformat(),
        "cpu": here["model"],
        "cpu_flags_sha256": hashlib.sha256(" ".join(here["flags"]).encode()).hexdigest()[:16],
        "avx512": any(f.startswith("avx512") for f in here["flags"]),
        "build": build["identity"],
        "kernels": build["kernels"],
        "threads": usable_cpus(),
        "reference_build": reference["build"]["identity"],
        "replies": n_replies,
        "matched": n_replies - len(found),
        "match": not found,
        "first_difference": str(found[0]) if found else None,
    }
