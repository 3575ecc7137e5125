"""Scoring an item's candidate answers from a model's next-token logits, with the instructions cached once.

The prompt is rendered once with a sentinel in place of the item (the model's chat template, or the plain
format for base models) and cut there: the **prefix** (template start and instructions) is evaluated once
per run, and for each item only the **suffix** (the item and the template's tail up to the assistant's turn)
is evaluated after truncating the KV cache back to the prefix. Prefix and suffix are tokenised separately (the
cut falls after the instructions' blank line), the same way for cached and uncached scoring. Only the last
position's logits are read; ``logits_all`` is never set.

Scoring rule (one rule for every task): a candidate's score is the log-likelihood of its whole token sequence
as the answer, ``sum_i log p(t_i | prompt, t_<i)``. The candidates' token sequences form a trie, walked depth
first, so a shared token prefix is evaluated once; when the candidates' first tokens differ and each label is
one token (``approve``/``deny``), this is one logits read per item and the binary margin
``score(positive) - score(negative)`` is the difference of the two labels' first-token logits. When a
candidate's tokens are a strict prefix of another's (turn ``1`` vs ``10``), the shorter candidate's score
adds the log of the probability mass that does *not* continue into a longer candidate (its stop mass), so it
is not favoured for being short. The prediction is the highest score; ties go to the earlier candidate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from slmbench.eligibility.datasets import Item, candidates
from slmbench.eligibility.prompts import Prompt, item_text
from slmbench.vocab import ReplyMatch

SCORING_RULE = "joint-loglik-trie-v1"
SENTINEL = "\u2063ITEM\u2063"
"""Stands in for the item when the prompt is rendered once to find where the fixed prefix ends."""
_TINY = 1e-30


@runtime_checkable
class LogitModel(Protocol):
    """What the scorer needs from a model: render, tokenise, evaluate with a reusable prefix, read logits."""

    @property
    def n_ctx(self) -> int:
        """Context window in tokens."""
        ...

    @property
    def answer_prefix(self) -> str:
        """Text before an answer word: ``""`` after a chat template's assistant header, ``" "`` after ``Assistant:``."""
        ...

    def render(self, user_text: str) -> str:
        """One user message followed by the start of the assistant's turn, in the model's chat format."""
        ...

    def tokenize(self, text: str, *, first: bool, special: bool = True) -> list[int]:
        """Token ids of ``text``; ``first`` marks the start of a prompt (a BOS token where the format needs one)."""
        ...

    def reset(self) -> None:
        """Forget every evaluated token (the next ``eval_prefix`` starts from an empty cache)."""
        ...

    def eval_prefix(self, tokens: Sequence[int]) -> None:
        """Evaluate ``tokens`` from an empty cache and remember them as the reusable prefix."""
        ...

    def eval_suffix(self, tokens: Sequence[int], keep: int | None = None) -> None:
        """Drop cached positions from ``keep`` on (default: the prefix's length), then evaluate ``tokens``."""
        ...

    def last_logits(self) -> npt.NDArray[np.float32]:
        """The next-token logits after the last evaluated position (a copy)."""
        ...

    def fingerprint(self) -> dict[str, Any]:
        """Backend identity for the run header."""
        ...


class ContextTooSmall(ValueError):
    """An item (with its longest candidate) does not fit in the context window after the prefix."""


def log_softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Log-probabilities of a logits vector (in float64)."""
    x = logits.astype(np.float64)
    top = float(np.max(x))
    return x - (top + math.log(float(np.sum(np.exp(x - top)))))


@dataclass(frozen=True)
class ItemScore:
    """One item scored: candidate scores, ranking, prediction and cost (and the reply, for a generating rule).

    ``generated`` and ``match`` are set by rules that read a generated reply (``ollama_scorer``): its text and how
    it was matched to a candidate.
    """

    scores: dict[str, float]
    ranking: list[str]
    prediction: str
    margin: float | None
    n_item_tokens: int
    n_evals: int
    first_tokens_unique: bool
    latency_s: float
    generated: str | None = None
    match: ReplyMatch | None = None


class ItemScorer(Protocol):
    """What a run needs from a scorer: its prompt, the name of its scoring rule, and one item scored."""

    prompt: Prompt
    rule: str

    def score(self, item: Item, cached: bool = True) -> ItemScore:
        """Score ``item``; ``cached=False`` asks for the uncached path where the scorer has one."""
        ...


@runtime_checkable
class LabelModel(Protocol):
    """A served model that scores items under a rule of its own (it gives no raw logits), e.g. through Ollama."""

    def make_scorer(self, prompt: Prompt, positive: str | None) -> ItemScorer:
        """The scorer of one run under ``prompt`` (``positive``: the binary task's positive label)."""
        ...

    def fingerprint(self) -> dict[str, Any]:
        """Backend identity for the run header."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


def split_prompt(model: LogitModel, prompt: Prompt) -> tuple[str, str]:
    """``(prefix text, tail text)``: the rendered prompt before and after the item."""
    rendered = model.render(prompt.instructions + SENTINEL)
    if rendered.count(SENTINEL) != 1:
        raise ValueError("the chat template changed or repeated the item placeholder; cannot cache a prefix")
    prefix, tail = rendered.split(SENTINEL)
    return prefix, tail


def trie_scores(
    model: LogitModel, root_logits: npt.NDArray[np.float32], base: int, tokens: dict[str, list[int]]
) -> tuple[dict[str, float], int]:
    """Each candidate's log-likelihood (with stop mass for prefixes of others) and the decode calls made.

    ``base`` is the number of cached positions when ``root_logits`` were read (prefix plus item); deeper
    nodes are evaluated one token at a time after truncating the cache back to their parent.
    """
    scores: dict[str, float] = {}
    n_evals = 0

    def walk(logits: npt.NDArray[np.float32], members: list[str], depth: int, acc: float) -> None:
        nonlocal n_evals
        logp = log_softmax(logits)
        children: dict[int, list[str]] = {}
        for c in members:
            if len(tokens[c]) > depth:
                children.setdefault(tokens[c][depth], []).append(c)
        for c in members:
            if len(tokens[c]) == depth:  # ends here while others continue: keep the mass that stops
                stop = 1.0 - sum(math.exp(float(logp[t])) for t in children)
                scores[c] = acc + math.log(max(stop, _TINY))
        for token, group in children.items():
            here = acc + float(logp[token])
            if all(len(tokens[c]) == depth + 1 for c in group) and len(group) == 1:
                scores[group[0]] = here
                continue
            model.eval_suffix([token], keep=base + depth)
            n_evals += 1
            walk(model.last_logits(), group, depth + 1, here)

    walk(root_logits, list(tokens), 0, 0.0)
    return scores, n_evals


class Scorer:
    """Scores the items of one task under one prompt with one model, the prompt prefix cached."""

    rule = SCORING_RULE

    def __init__(self, model: LogitModel, prompt: Prompt, positive: str | None = None) -> None:
        self.model = model
        self.prompt = prompt
        self.positive = positive
        prefix, self.tail = split_prompt(model, prompt)
        self.prefix_tokens = model.tokenize(prefix, first=True)
        self._cached = False
        self.n_prefix_evals = 0

    def prepare(self) -> None:
        """Evaluate the prefix (once per run, or before every item when scoring uncached)."""
        self.model.eval_prefix(self.prefix_tokens)
        self.n_prefix_evals += 1
        self._cached = True

    def candidate_tokens(self, item: Item) -> dict[str, list[int]]:
        """Each candidate's tokens as an answer (after the format's answer prefix)."""
        pre = self.model.answer_prefix
        out: dict[str, list[int]] = {}
        for c in candidates(item):
            toks = self.model.tokenize(pre + c, first=False, special=False)
            if not toks:
                raise ValueError(f"candidate {c!r} of item {item.id} tokenises to nothing")
            out[c] = toks
        if len({tuple(t) for t in out.values()}) != len(out):
            raise ValueError(f"item {item.id}: two candidates have the same tokens")
        return out

    def score(self, item: Item, cached: bool = True) -> ItemScore:
        """Score ``item``; ``cached=False`` re-evaluates the prefix first (the uncached path, for checks)."""
        started = time.perf_counter()
        if not cached or not self._cached:
            self.prepare()
        suffix = self.model.tokenize(item_text(self.prompt.task, item) + self.tail, first=False)
        cands = self.candidate_tokens(item)
        need = len(self.prefix_tokens) + len(suffix) + max(len(t) for t in cands.values())
        if need > self.model.n_ctx:
            raise ContextTooSmall(f"item {item.id} needs {need} tokens; the context holds {self.model.n_ctx}")
        self.model.eval_suffix(suffix)
        base = len(self.prefix_tokens) + len(suffix)
        scores, n_evals = trie_scores(self.model, self.model.last_logits(), base, cands)
        order = candidates(item)
        ranking = sorted(order, key=lambda c: (-scores[c], order.index(c)))
        margin = None
        if self.positive is not None:
            (negative,) = [c for c in order if c != self.positive]
            margin = scores[self.positive] - scores[negative]
        firsts = [t[0] for t in cands.values()]
        return ItemScore(
            scores=scores,
            ranking=ranking,
            prediction=ranking[0],
            margin=margin,
            n_item_tokens=len(suffix),
            n_evals=n_evals,
            first_tokens_unique=len(set(firsts)) == len(firsts),
            latency_s=time.perf_counter() - started,
        )


def cache_difference(scorer: Scorer, item: Item, other: Item | None = None) -> float:
    """Largest absolute difference of ``item``'s candidate scores scored uncached and cached (should be ~0).

    With ``other``, that item is scored in between, so the cached path truncates another item's tokens.
    """
    cold = scorer.score(item, cached=False)
    if other is not None:
        scorer.score(other)
    warm = scorer.score(item, cached=True)
    return max(abs(cold.scores[c] - warm.scores[c]) for c in cold.scores)
