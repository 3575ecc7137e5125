"""A test double: replays a fixed list of model outputs. Configurable in config.yaml (``backend: scripted`` with
its ``outputs``) so that a whole study runs without a model; never the source of a study's findings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from slmbench.backends.base import BackendError, GenerationOptions, Message, ModelReply, register_backend
from slmbench.backends.settings import ModelEntry


class ScriptedSettings(ModelEntry):
    """The replies a scripted model gives, in order, to every trial (a test double)."""

    backend: Literal["scripted"]
    outputs: list[str] = Field(min_length=1, description="scripted: the replies it gives, in order")
    repeat_last: bool = Field(
        default=True, description="scripted: the last reply again once the others are used"
    )


@register_backend(
    name="scripted",
    in_process=True,
    describes="a scripted test double",
    engine="scripted replies",
    labels=None,
)
class ScriptedBackend:
    """Answers each call with the next scripted output; ``repeat_last`` makes an endless model."""

    name = "scripted"
    supports_native_tools = False
    settings = ScriptedSettings

    @classmethod
    def from_spec(
        cls, model_id: str, spec: ScriptedSettings, weights: Path | None, **overrides: Any
    ) -> ScriptedBackend:
        """The configured replies, given in order across the shard's trials (the last one repeated)."""
        return cls(
            spec.outputs,
            repeat_last=spec.repeat_last,
            model_id=model_id,
            n_ctx=overrides.get("n_ctx") or spec.n_ctx,
        )

    def __init__(
        self,
        outputs: Sequence[str | BackendError] = (),
        repeat_last: bool = False,
        model_id: str = "scripted",
        n_ctx: int = 4096,
    ) -> None:
        self._outputs = list(outputs)
        self.n_ctx = n_ctx
        self._repeat_last = repeat_last
        self._index = 0
        self.model_id = model_id
        self.requests: list[list[Message]] = []

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        """Return the next scripted output (or raise it, if it is a BackendError)."""
        self.requests.append([dict(m) for m in messages])
        if self._index >= len(self._outputs):
            if not (self._repeat_last and self._outputs):
                return ModelReply(text="", finish_reason="stop")
            item = self._outputs[-1]
        else:
            item = self._outputs[self._index]
            self._index += 1
        if isinstance(item, BackendError):
            raise item
        return ModelReply(
            text=item,
            prompt_tokens=sum(len(str(m.get("content", ""))) for m in messages),
            completion_tokens=len(item.split()),
            finish_reason="stop",
        )

    def fingerprint(self) -> dict[str, Any]:
        """Identity of the double."""
        return {
            "backend": self.name,
            "model_id": self.model_id,
            "n_ctx": self.n_ctx,
            "scripted_outputs": len(self._outputs),
            "native_tools": self.supports_native_tools,
        }

    def reset(self) -> bool:
        """No state to forget."""
        return True

    def close(self) -> None:
        """Nothing to free."""
