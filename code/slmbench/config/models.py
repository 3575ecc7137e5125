"""The models of a study: an embedded GGUF (PyPI packages or a file of your own), an Ollama tag or an
OpenAI-compatible server."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class WeightsSpec(BaseModel):
    """An embedded model's GGUF file and its pinned sha256 (checked before every load). Either PyPI packages whose
    files are joined in order into the cache (``file``, ``packages``, ``parts``) or a file of your own (``path``:
    absolute, ``~`` expanded, or relative to the folder the study runs in)."""

    model_config = ConfigDict(extra="forbid")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    file: str | None = Field(default=None, description="the assembled file's name in the weights cache")
    packages: list[str] = Field(default_factory=list, description="PyPI packages holding the parts")
    parts: list[str] = Field(default_factory=list, description="the parts, in order, inside the packages")
    path: str | None = Field(default=None, description="a GGUF file of your own instead of PyPI packages")

    @model_validator(mode="after")
    def _one_source(self) -> WeightsSpec:
        pypi = (self.file, self.packages, self.parts)
        if self.path is not None and any(pypi):
            raise ValueError(
                "give either `path` (your own file) or `file`, `packages` and `parts` (PyPI), not both"
            )
        if self.path is None and not all(pypi):
            raise ValueError(
                "give `path` (your own GGUF file) or all of `file`, `packages` and `parts` (PyPI)"
            )
        return self


BackendName = Literal["llamacpp", "ollama", "openai"]
"""The ``backend:`` values: the names of the registered backend classes (``slmbench.backends``)."""
_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


class ModelSpec(BaseModel):
    """One model of the study."""

    model_config = ConfigDict(extra="forbid")
    backend: BackendName
    params_b: float = Field(gt=0)
    instruct: bool
    family: str = ""
    quantisation: str = ""
    licence: str = ""
    n_ctx: int = Field(default=4096, ge=256)
    chat_format: str | None = Field(
        default=None, description="None: the GGUF's own chat template; 'plain' for base models"
    )
    weights: WeightsSpec | None = None
    ollama_tag: str | None = None
    base_url: str | None = Field(
        default=None,
        description="openai: the server's OpenAI-compatible base URL (e.g. http://127.0.0.1:8080/v1)",
    )
    served_model: str | None = Field(default=None, description="openai: the model name the server serves")
    api_key_env: str | None = Field(
        default=None,
        pattern=_ENV_NAME,
        description="openai: the NAME of the environment variable that holds the API key (never the key)",
    )
    native_tools: bool | None = Field(
        default=None,
        description="openai: tools go to the server as tools= (None: unless llama.cpp's /props says the template has"
        " no place for them); false: the harness lists them in its prompt",
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="openai: JSON fields sent with every chat request beyond the API's own, as the server defines"
        " them (recorded in the fingerprint; llama.cpp's server: {cache_prompt: false} evaluates every prompt from"
        " its first token)",
    )
    timeout_s: float = Field(default=120.0, gt=0, description="served backends: seconds per request")
    concurrency: int = Field(
        default=1, ge=1, description="trials in flight at once against a served model (1: one after another)"
    )  # above 1 only for a served backend: the plan refuses it for others (slmbench.run.plan), as the config
    # sits below the backends and cannot ask them

    @model_validator(mode="after")
    def _served_by_openai(self) -> ModelSpec:
        if self.backend == "openai" and not (self.base_url and self.served_model):
            raise ValueError("backend openai needs `base_url` and `served_model`")
        return self

    @property
    def embedded(self) -> bool:
        """A pinned GGUF run in-process by llama.cpp (what the eligibility study can requantise)."""
        return self.backend == "llamacpp" and self.weights is not None

    @property
    def served(self) -> bool:
        """A model served by Ollama (the eligibility study scores it under Ollama's own rule)."""
        return self.backend == "ollama"
