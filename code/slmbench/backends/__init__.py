"""Model backends behind one Protocol, each registered by its decorator where it is defined (llamacpp, ollama,
openai, scripted); its facts are read from the decorator without importing it, and its settings model from the
class."""

from slmbench.backends.base import (
    Backend,
    BackendClass,
    BackendError,
    BackendFacts,
    GenerationOptions,
    LabelScoring,
    Message,
    ModelReply,
    UnknownBackendError,
    backend_class,
    backend_facts,
    backend_names,
    backend_settings,
    create_backend,
    preflight,
    register_backend,
)
from slmbench.backends.identity import RunIdentity, run_identity, served_twins
from slmbench.backends.settings import ModelEntry, WeightsSpec

__all__ = [
    "Backend",
    "BackendClass",
    "BackendError",
    "BackendFacts",
    "GenerationOptions",
    "LabelScoring",
    "Message",
    "ModelEntry",
    "ModelReply",
    "RunIdentity",
    "UnknownBackendError",
    "WeightsSpec",
    "backend_class",
    "backend_facts",
    "backend_names",
    "backend_settings",
    "create_backend",
    "preflight",
    "register_backend",
    "run_identity",
    "served_twins",
]
