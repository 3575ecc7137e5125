"""A test double: replays a fixed list of model outputs. Never used for data in data/raw/."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slmbench.backends.base import BackendError, GenerationOptions, Message, ModelReply, register_backend

if TYPE_CHECKING:
    from slmbench.config import ModelSpec


@register_backend("scripted")
class ScriptedBackend:
    """Answers each call with the next scripted output; ``repeat_last`` makes an endless model."""

    name = "scripted"
    supports_native_tools = False
    in_process = True
    engine = "scripted replies"

    @classmethod
    def from_spec(
        cls, model_id: str, spec: ModelSpec, weights: Path | None, **overrides: Any
    ) -> ScriptedBackend:
        """Never: a test double has no configuration (tests construct it with its outputs)."""
        raise BackendError(f"{model_id}: the scripted backend is a test double, not a configurable backend")

    def __init__(
        self,
        outputs: Sequence[str | BackendError] = (),
        repeat_last: bool = False,
        model_id: str = "scripted",
    ) -> None:
        self._outputs = list(outputs)
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
        return {"backend": self.name, "model_id": self.model_id, "scripted_outputs": len(self._outputs)}

    def reset(self) -> bool:
        """No state to forget."""
        return True

    def close(self) -> None:
        """Nothing to free."""
