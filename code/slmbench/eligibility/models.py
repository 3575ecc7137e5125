"""``LogitModel`` implementations: a GGUF in-process through llama-cpp-python, and a fake for tests.

The llama.cpp model is loaded with ``logits_all=False`` (only the last position's logits are computed; with
``logits_all=True`` llama-cpp-python would keep ``n_ctx x vocab`` floats, about 2.4 GB for Qwen at 4096) and
``swa_full=True`` (a sliding-window cache, as in Gemma 3, keeps every position, so truncating back to the
prefix never finds the prefix pruned). Prompts are rendered with the GGUF's chat template, as
``backends.llamacpp_backend`` does, or in its plain format for base models (``chat_format: plain``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from slmbench.backends.llamacpp_backend import gguf_chat_formatter, render_plain, usable_cpus


class LlamaLogitModel:
    """A GGUF served by llama-cpp-python, exposing prefix/suffix evaluation and the last logits."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        chat_format: str | None = None,
        extra_fingerprint: dict[str, Any] | None = None,
    ) -> None:
        from llama_cpp import Llama

        if not Path(model_path).exists():
            raise FileNotFoundError(f"model file {model_path} is missing")
        threads = n_threads or usable_cpus()
        self._path = str(model_path)
        self._threads = threads
        self._llm = Llama(
            model_path=self._path,
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            logits_all=False,
            swa_full=True,
            verbose=False,
        )
        self._chat_format = chat_format
        self._extra = extra_fingerprint or {}
        self._prefix_len = 0
        self._formatter: Any = None
        if chat_format is None:
            self._formatter = gguf_chat_formatter(self._llm, model_path)

    @property
    def n_ctx(self) -> int:
        """Context window in tokens."""
        return int(self._llm.n_ctx())

    @property
    def answer_prefix(self) -> str:
        """``" "`` after the plain format's ``Assistant:``, nothing after a chat template's assistant header."""
        return " " if self._formatter is None else ""

    def render(self, user_text: str) -> str:
        """One user message and the start of the assistant's turn."""
        messages = [{"role": "user", "content": user_text}]
        if self._formatter is None:
            return render_plain(messages)  # type: ignore[arg-type]
        return str(self._formatter(messages=messages).prompt)

    def tokenize(self, text: str, *, first: bool, special: bool = True) -> list[int]:
        """Token ids (BOS added at a prompt's start in the plain format; templates carry their own)."""
        add_bos = first and self._formatter is None
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def reset(self) -> None:
        """Forget every evaluated token."""
        self._llm.reset()
        self._llm._ctx.kv_cache_clear()
        self._prefix_len = 0

    def eval_prefix(self, tokens: Sequence[int]) -> None:
        """Evaluate ``tokens`` from an empty cache; they become the prefix later suffixes keep."""
        self.reset()
        self._llm.eval(list(tokens))
        self._prefix_len = len(tokens)

    def eval_suffix(self, tokens: Sequence[int], keep: int | None = None) -> None:
        """Truncate the cache to ``keep`` positions (default: the prefix) and evaluate ``tokens``."""
        import llama_cpp

        keep = self._prefix_len if keep is None else keep
        if keep > self._llm.n_tokens:
            raise ValueError(f"cannot keep {keep} positions: only {self._llm.n_tokens} are cached")
        if not self._llm._ctx.kv_cache_seq_rm(-1, keep, -1):
            raise RuntimeError("llama.cpp could not truncate the KV cache (a recurrent model?)")
        self._llm.n_tokens = keep
        self._llm.eval(list(tokens))
        if llama_cpp.llama_memory_seq_pos_min(self._llm._ctx.memory, 0) > 0:
            raise RuntimeError("the KV cache lost the start of the prompt (sliding window without swa_full)")

    def last_logits(self) -> npt.NDArray[np.float32]:
        """The logits after the last evaluated token (llama.cpp's last output row), copied."""
        ptr = self._llm._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(self._llm.n_vocab(),)).copy()

    def fingerprint(self) -> dict[str, Any]:
        """Backend identity for the run header."""
        import llama_cpp

        return {
            "backend": "llamacpp",
            "backend_version": llama_cpp.__version__,
            "weights_path": self._path,
            "n_ctx": self.n_ctx,
            "n_threads": self._threads,
            "chat_format": self._chat_format or "gguf-template",
            "logits_all": False,
            "swa_full": True,
            **self._extra,
        }

    def close(self) -> None:
        """Free the model."""
        self._llm.close()


LogitFn = Callable[[str], npt.NDArray[np.float32]]
_PIECES = re.compile(r"[A-Za-z]+|\d|\s|[^A-Za-z\d\s]")


class FakeLogitModel:
    """A scripted ``LogitModel``: a toy tokenizer, and logits that are a function of the cached text.

    Tokens are runs of letters, single digits, single spaces and single other characters (so ``approve`` is
    one token, ``10`` is two, ``web_search`` is three), numbered as first seen (``token_id``). ``logit_fn``
    receives the text of every cached token (prefix, item and the answer tokens so far) and returns
    ``vocab`` logits (default: all zero). The fake counts what a test checks: prefix evaluations, tokens
    evaluated and logits reads.
    """

    BOS = 0

    def __init__(
        self, logit_fn: LogitFn | None = None, *, vocab: int = 4096, n_ctx: int = 4096, chat: bool = True
    ):
        self.vocab = vocab
        self._n_ctx = n_ctx
        self.chat = chat
        self.logit_fn = logit_fn or (lambda _text: np.zeros(vocab, dtype=np.float32))
        self._ids: dict[str, int] = {"<bos>": self.BOS}
        self._pieces: list[str] = ["<bos>"]
        self.cache: list[int] = []
        self.prefix_len = 0
        self.n_prefix_evals = 0
        self.n_tokens_evaluated = 0
        self.n_logit_reads = 0

    @property
    def n_ctx(self) -> int:
        """Context window in tokens."""
        return self._n_ctx

    @property
    def answer_prefix(self) -> str:
        """Like llama.cpp: a space in the plain format."""
        return "" if self.chat else " "

    def render(self, user_text: str) -> str:
        """A toy chat template, or the plain format."""
        if self.chat:
            return f"<user>{user_text}</user><assistant>"
        return render_plain([{"role": "user", "content": user_text}])  # type: ignore[list-item]

    def token_id(self, piece: str) -> int:
        """The id of a token text (assigned when first seen)."""
        if piece not in self._ids:
            if len(self._pieces) >= self.vocab:
                raise ValueError("fake vocabulary exhausted")
            self._ids[piece] = len(self._pieces)
            self._pieces.append(piece)
        return self._ids[piece]

    def tokenize(self, text: str, *, first: bool, special: bool = True) -> list[int]:
        """Token ids; BOS first in the plain format."""
        toks = [self.token_id(p) for p in _PIECES.findall(text)]
        return [self.BOS, *toks] if first and not self.chat else toks

    def text(self) -> str:
        """The cached tokens as text (BOS dropped)."""
        return "".join(self._pieces[t] for t in self.cache if t != self.BOS)

    def reset(self) -> None:
        """Forget every evaluated token."""
        self.cache = []
        self.prefix_len = 0

    def eval_prefix(self, tokens: Sequence[int]) -> None:
        """Evaluate the prefix from an empty cache."""
        self.cache = list(tokens)
        self.prefix_len = len(tokens)
        self.n_prefix_evals += 1
        self.n_tokens_evaluated += len(tokens)

    def eval_suffix(self, tokens: Sequence[int], keep: int | None = None) -> None:
        """Truncate to ``keep`` (default: the prefix) and append ``tokens``."""
        keep = self.prefix_len if keep is None else keep
        if keep > len(self.cache):
            raise ValueError(f"cannot keep {keep} positions: only {len(self.cache)} are cached")
        self.cache = self.cache[:keep] + list(tokens)
        self.n_tokens_evaluated += len(tokens)
        if len(self.cache) > self._n_ctx:
            raise ValueError("context overflow")

    def last_logits(self) -> npt.NDArray[np.float32]:
        """``logit_fn`` of the cached text."""
        self.n_logit_reads += 1
        out = np.asarray(self.logit_fn(self.text()), dtype=np.float32)
        if out.shape != (self.vocab,):
            raise ValueError(f"logit_fn returned shape {out.shape}, expected ({self.vocab},)")
        return out.copy()

    def fingerprint(self) -> dict[str, Any]:
        """A fixed identity."""
        return {"backend": "fake", "backend_version": "0", "n_ctx": self._n_ctx, "chat_format": "fake"}
