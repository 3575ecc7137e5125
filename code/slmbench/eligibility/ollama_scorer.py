"""Scoring items with a model served by Ollama, from its greedy reply and the top log-probabilities.

Ollama gives no raw logits, so the embedded rule (``scorer.py``: every candidate's whole log-likelihood) cannot
be computed. This rule, ``OLLAMA_SCORING_RULE``, sends one request per item: the embedded path's user message
(the instructions first, so the server's prompt cache can keep them; the item last), temperature 0, a fixed
seed, at most ``answer_budget`` new tokens (a bound on the longest candidate's tokens), and the
``TOP_LOGPROBS`` most likely tokens at every generated position. From the reply:

* **prediction**: the reply stripped of outer whitespace, quotes and backticks and one trailing period, matched
  to a candidate case-insensitively: exactly, else the longest candidate it starts with. A reply that matches
  none is the prediction as it stands (not a candidate, so the item counts as wrong), recorded with
  ``match="none"``;
* **answer position**: the generated token where the answer starts (the first one not made only of whitespace,
  quotes or backticks; usually the first token);
* **scores**: the predicted candidate's is the sum of the log-probabilities of the generated tokens that spell
  it. Any other candidate's is the best log-probability among the answer position's top tokens whose text
  (stripped, case ignored, not empty) starts the candidate; with none, the smallest top log-probability there.
  Both are upper bounds on the log-probability of the candidate's first token at that position, not the
  candidate's likelihood; with no generated token at all every score is 0 (the trivial bound);
* **ranking**: the prediction first, then the others by score (ties in candidate order);
* **margin** (binary tasks): the positive label's answer-position log-probability minus the negative's (the
  predicted label's own first token; the other's top entry, or the bound).

A greedy choice and first-token bounds are not comparable with the embedded rule's likelihoods: results of the
two rules are not pooled (``docs/eligibility.md``, "Ollama models").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ollama
from ollama._types import Logprob

from slmbench.backends.base import BackendError, GenerationOptions
from slmbench.backends.ollama_backend import OllamaBackend
from slmbench.backends.ollama_wire import to_ollama_options
from slmbench.backends.retry import RetryPolicy
from slmbench.eligibility.datasets import Item, candidates
from slmbench.eligibility.prompts import Prompt
from slmbench.eligibility.scorer import ContextTooSmall, ItemScore
from slmbench.vocab import ReplyMatch

log = logging.getLogger(__name__)

OLLAMA_SCORING_RULE = "ollama-greedy-toplogprobs-v1"
TOP_LOGPROBS = 20
"""Alternatives per generated position (Ollama's maximum)."""
SEED = 0
SLACK_TOKENS = 4
"""New tokens allowed beyond the longest candidate's bytes (leading space or quote, closing quote or period)."""
_JUNK = " \t\r\n\"'`"


class OllamaUnavailable(BackendError):
    """The server does not answer, or does not serve the model: the message names the host and the model."""


class OllamaScoringError(BackendError):
    """A reply cannot be scored under the rule (no log-probabilities, or tokens that do not spell the text)."""


def answer_budget(cands: Sequence[str]) -> int:
    """``num_predict``: the longest candidate's UTF-8 bytes (no token is shorter than a byte) plus slack."""
    return max(len(c.encode("utf-8")) for c in cands) + SLACK_TOKENS


def normalise(text: str) -> str:
    """The reply as matched: outer whitespace, quotes and backticks and one trailing period removed, lower case."""
    core = text.strip(_JUNK)
    if core.endswith("."):
        core = core[:-1].strip(_JUNK)
    return core.lower()


def match_candidate(text: str, cands: Sequence[str]) -> tuple[str | None, ReplyMatch]:
    """The candidate a reply names and how: exactly, else the longest one it starts with (ties: the first)."""
    core = normalise(text)
    for c in cands:
        if core == c.lower():
            return c, "exact"
    starts = [c for c in cands if c and core.startswith(c.lower())]
    if starts:
        return max(starts, key=len), "prefix"
    return None, "none"


@dataclass(frozen=True)
class ReplyScore:
    """One reply scored under the rule (see the module docstring)."""

    prediction: str
    match: ReplyMatch
    scores: dict[str, float]
    ranking: list[str]
    margin: float | None
    first_tokens_unique: bool


def _answer_start(text: str, tokens: Sequence[Logprob]) -> int:
    """The character offset, in the tokens' joined text, where the reply's answer starts (the text's last
    occurrence: tokens the server keeps out of the text, such as thinking, come before it)."""
    joined = "".join(t.token for t in tokens)
    offset = joined.rfind(text)
    if offset < 0:
        raise OllamaScoringError(f"the reply's tokens {joined!r} do not spell its text {text!r}")
    return offset + len(text) - len(text.lstrip(_JUNK))


def _covering(tokens: Sequence[Logprob], start: int, end: int) -> list[int]:
    """Indices of the tokens that overlap characters ``[start, end)`` of the joined text."""
    out, pos = [], 0
    for i, t in enumerate(tokens):
        if t.token and pos < end and pos + len(t.token) > start:
            out.append(i)
        pos += len(t.token)
    return out


def _best_entry(cand: str, entries: Sequence[tuple[str, float]]) -> tuple[float, str | None]:
    """The best entry whose token starts ``cand`` (its log-probability and token), else the smallest one."""
    best: tuple[float, str | None] | None = None
    for token, logprob in entries:
        piece = token.strip(_JUNK).lower()
        if piece and cand.lower().startswith(piece) and (best is None or logprob > best[0]):
            best = (logprob, token)
    return best if best is not None else (min(lp for _, lp in entries), None)


def score_reply(
    text: str, tokens: Sequence[Logprob] | None, cands: Sequence[str], positive: str | None = None
) -> ReplyScore:
    """Prediction, scores, ranking and margin of one reply (its text and generated tokens) under the rule."""
    tokens = list(tokens or [])
    if text.strip() and not tokens:
        raise OllamaScoringError("the server returned no log-probabilities (Ollama 0.12.11 or later needed)")
    predicted, how = match_candidate(text, cands)
    first: dict[str, tuple[float, str | None]] = dict.fromkeys(cands, (0.0, None))
    scores = dict.fromkeys(cands, 0.0)
    if tokens:
        start = _answer_start(text, tokens)
        at = _covering(tokens, start, start + 1) or [0]  # a reply of only spaces or quotes: its first token
        here = tokens[at[0]]
        entries = [(e.token, e.logprob) for e in here.top_logprobs or []] or [(here.token, here.logprob)]
        first = {c: _best_entry(c, entries) for c in cands}
        scores = {c: first[c][0] for c in cands}
        if predicted is not None:
            spelling = _covering(tokens, start, start + len(predicted))
            scores[predicted] = sum(tokens[i].logprob for i in spelling)
            first[predicted] = (tokens[spelling[0]].logprob, tokens[spelling[0]].token)
    order = list(cands)
    others = sorted((c for c in order if c != predicted), key=lambda c: (-scores[c], order.index(c)))
    ranking = [predicted, *others] if predicted is not None else others
    margin = None
    if positive is not None:
        (negative,) = [c for c in order if c != positive]
        margin = first[positive][0] - first[negative][0]
    matched = [token for _, token in first.values()]
    unique = all(t is not None for t in matched) and len(set(matched)) == len(matched)
    return ReplyScore(predicted if predicted is not None else text, how, scores, ranking, margin, unique)


class OllamaLabelModel:
    """A model served by Ollama that scores items itself (``OllamaScorer``), through the trials' backend.

    The host comes from ``host``, else ``OLLAMA_HOST``, else Ollama's default; transient failures are retried
    as in ``backends.ollama_backend``.
    """

    def __init__(
        self,
        tag: str,
        *,
        host: str | None = None,
        num_ctx: int = 4096,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.backend = OllamaBackend(tag, host=host, num_ctx=num_ctx, timeout_s=timeout_s, retry=retry)

    @property
    def tag(self) -> str:
        """The model's Ollama name."""
        return self.backend.model

    @property
    def host(self) -> str:
        """The server's address."""
        return self.backend.host

    @property
    def num_ctx(self) -> int:
        """The context window requested from the server."""
        return self.backend.num_ctx

    def check(self) -> None:
        """Fail with :class:`OllamaUnavailable` unless the server answers and serves the model."""
        try:
            self.backend.fingerprint()
        except BackendError as exc:
            raise OllamaUnavailable(
                f"ollama server at {self.host} cannot serve model {self.tag!r} "
                f"(is `ollama serve` running there, and the model pulled?): {exc}"
            ) from exc

    def chat(self, user_text: str, num_predict: int) -> ollama.ChatResponse:
        """One greedy reply of at most ``num_predict`` tokens to one user message, with top log-probabilities."""
        options = to_ollama_options(
            GenerationOptions(temperature=0.0, seed=SEED, max_tokens=num_predict), self.num_ctx
        )
        return self.backend.chat_logprobs([{"role": "user", "content": user_text}], options, TOP_LOGPROBS)

    def fingerprint(self) -> dict[str, Any]:
        """The backend's identity (client and server versions, digest, ...) and the rule's request options."""
        return {
            **self.backend.fingerprint(),
            "scoring_options": {"temperature": 0.0, "seed": SEED, "top_logprobs": TOP_LOGPROBS},
        }

    def make_scorer(self, prompt: Prompt, positive: str | None) -> OllamaScorer:
        """The scorer of one run."""
        return OllamaScorer(self, prompt, positive)

    def close(self) -> None:
        """Close the connection pool."""
        self.backend.close()


class OllamaScorer:
    """Scores the items of one task under one prompt with a served model, one request per item."""

    rule = OLLAMA_SCORING_RULE

    def __init__(self, model: OllamaLabelModel, prompt: Prompt, positive: str | None = None) -> None:
        self.model = model
        self.prompt = prompt
        self.positive = positive

    def score(self, item: Item, cached: bool = True) -> ItemScore:
        """Score ``item`` (``cached`` has no effect: the server keeps its own prompt cache)."""
        started = time.perf_counter()
        cands = candidates(item)
        budget = answer_budget(cands)
        response = self.model.chat(self.prompt.user_text(item), budget)
        latency = time.perf_counter() - started
        prompt_tokens = response.prompt_eval_count or 0
        if prompt_tokens + budget > self.model.num_ctx:  # the server truncates silently (as in the trials)
            raise ContextTooSmall(
                f"item {item.id} needs {prompt_tokens + budget} tokens; the context holds {self.model.num_ctx}"
            )
        text = response.message.content or ""
        try:
            reply = score_reply(text, response.logprobs, cands, self.positive)
        except OllamaScoringError as exc:
            raise OllamaScoringError(f"item {item.id} ({self.model.tag}): {exc}") from exc
        if reply.match == "none":
            log.info("item %s: the reply %r names no candidate (counted wrong)", item.id, text)
        return ItemScore(
            scores=reply.scores,
            ranking=reply.ranking,
            prediction=reply.prediction,
            margin=reply.margin,
            n_item_tokens=prompt_tokens,
            n_evals=1,
            first_tokens_unique=reply.first_tokens_unique,
            latency_s=latency,
            generated=text,
            match=reply.match,
        )
