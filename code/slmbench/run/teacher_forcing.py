"""Teacher forcing: the log-probabilities of a trial's recorded replies computed again from the records.

A recorded trial is replayed through the harness loop with a backend that answers each request with the
recorded reply while the real model scores that reply's tokens given the conversation (the loop rebuilds the
conversation; each request's hash must equal the recorded one). On trials that recorded their log-probabilities
live, the forced values are compared with the live ones token by token: where they are equal, a confidence can
be computed from the records of trials that did not record it.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from slmbench.backends.base import GenerationOptions, Message, ModelReply
from slmbench.harness.loop import prompt_sha256, run_trial
from slmbench.run.runner import ShardRun, loop_settings, trial_id, trials

REPORT_DIR = Path("data/teacher_forcing")
"""Where ``slmbench teacher-force`` writes one report per shard (``<model>/<shard stem>.json``)."""


@runtime_checkable
class ForcingModel(Protocol):
    """A backend that can score a given reply's tokens (``LlamaCppBackend``)."""

    supports_native_tools: bool

    def teacher_forced(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, text: str, stopped: bool
    ) -> list[float]: ...

    def reset(self) -> bool: ...

    def fingerprint(self) -> dict[str, Any]: ...


class ReplayDiverged(RuntimeError):
    """The replayed conversation is not the recorded one (a request's hash differs, or a reply is missing)."""


@dataclass(frozen=True)
class ReplyComparison:
    """One recorded reply: its live log-probabilities beside the forced ones, over the reply's text tokens."""

    turn: int
    tokens: int
    live: tuple[float, ...]
    forced: tuple[float, ...]

    @property
    def comparable(self) -> bool:
        """Whether the reply's text re-tokenises into the tokens it was sampled as (same count)."""
        return len(self.forced) >= self.tokens and len(self.live) >= self.tokens

    @property
    def max_abs_difference(self) -> float:
        """The largest difference between a forced and a live token log-probability (nats)."""
        pairs = zip(self.live[: self.tokens], self.forced[: self.tokens], strict=True)
        return max((abs(a - b) for a, b in pairs), default=0.0)


@dataclass
class ForcedReplay:
    """A backend for one recorded trial: each request gets the recorded reply; ``model`` scores its tokens."""

    model: ForcingModel
    record: Mapping[str, Any]
    name: str = "teacher-forced"
    compared: list[ReplyComparison] = field(default_factory=list)
    diverged: ReplayDiverged | None = None  # raised in the loop, which records it as a harness error

    def __post_init__(self) -> None:
        self.supports_native_tools = self.model.supports_native_tools
        self._turns = _request_response_pairs(self.record)

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        """The recorded reply to this request, after the model has scored it."""
        request, response = next(self._turns, (None, None))
        if request is None or response is None:
            self.diverged = ReplayDiverged(
                f"{self.record['trial_id']}: the replay asked more often than the trial"
            )
            raise self.diverged
        if prompt_sha256(messages, tools) != request["prompt_sha256"]:
            self.diverged = ReplayDiverged(
                f"{self.record['trial_id']}: turn {request['turn']}: the replayed request is not the recorded one"
            )
            raise self.diverged
        stopped = response["finish_reason"] == "stop"
        forced = self.model.teacher_forced(messages, tools, response["raw_text"], stopped)
        live = response.get("logprobs") or []
        self.compared.append(
            ReplyComparison(
                int(response["turn"]), int(response["completion_tokens"]), tuple(live), tuple(forced)
            )
        )
        return ModelReply(
            text=response["raw_text"],
            native_tool_calls=list(response.get("native_tool_calls") or []),
            completion_tokens=int(response["completion_tokens"]),
            finish_reason=response["finish_reason"],
        )

    def reset(self) -> bool:
        """Empty the model's KV cache."""
        return self.model.reset()

    def fingerprint(self) -> dict[str, Any]:
        """The scoring model's fingerprint."""
        return self.model.fingerprint()

    def close(self) -> None:
        """Nothing: the scoring model is the caller's."""


def _request_response_pairs(record: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    events = list(record["events"])
    requests = [e for e in events if e["type"] == "model_request"]
    responses = [e for e in events if e["type"] == "model_response"]
    return iter(zip(requests, responses, strict=False))


def force_trial(run: ShardRun, record: Mapping[str, Any], model: ForcingModel) -> list[ReplyComparison]:
    """Replay one recorded trial of ``run``'s shard with ``model`` scoring its replies.

    Raises:
        ReplayDiverged: the replay does not rebuild the recorded conversation.
        KeyError: the record is not a trial of the shard.
    """
    specs = {trial_id(run, t): t for t in trials(run)}
    spec = specs[record["trial_id"]]
    replay = ForcedReplay(model, record)
    settings = dataclasses.replace(
        loop_settings(run, spec), budget_s=math.inf
    )  # the replay's pace is its own
    with tempfile.TemporaryDirectory(prefix="slmbench-forced-") as workdir:
        run_trial(replay, spec, settings, Path(workdir))  # type: ignore[arg-type]
    if replay.diverged is not None:
        raise replay.diverged
    recorded = sum(1 for e in record["events"] if e["type"] == "model_response")
    if len(replay.compared) != recorded:
        raise ReplayDiverged(
            f"{record['trial_id']}: the replay asked {len(replay.compared)} times, the trial {recorded}"
        )
    return replay.compared


def report(shard: str, build: str, results: Mapping[str, list[ReplyComparison]]) -> dict[str, Any]:
    """The shard's teacher-forcing report: per trial and reply, the tokens compared and the largest
    difference; in all, how many replies were comparable and how many equal to the last bit."""
    replies = [c for compared in results.values() for c in compared]
    comparable = [c for c in replies if c.comparable]
    return {
        "shard": shard,
        "build": build,
        "trials": len(results),
        "replies": len(replies),
        "comparable_replies": len(comparable),
        "tokens": sum(c.tokens for c in comparable),
        "equal_replies": sum(1 for c in comparable if c.max_abs_difference == 0.0),
        "max_abs_difference": max((c.max_abs_difference for c in comparable), default=0.0),
        "by_trial": {
            trial: [
                {
                    "turn": c.turn,
                    "tokens": c.tokens,
                    "comparable": c.comparable,
                    "max_abs_difference": c.max_abs_difference if c.comparable else None,
                }
                for c in compared
            ]
            for trial, compared in results.items()
        },
    }
