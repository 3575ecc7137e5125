"""Protocol conditions: the named switches of how the harness talks to a model, recorded in every trial.

They sit at the bottom of the package so that the config can validate a named protocol without the harness;
:mod:`slmbench.harness.protocol` documents what each switch does and implements it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class ProtocolConditions:
    """Which protocol conditions a trial runs under (all off = ``legacy``, how the first dataset ran)."""

    canonical_history: bool = False
    stuck_detection: bool = False
    answer_channel: bool = False
    closing_turn: bool = False
    clean_kv: bool = False
    stop_strings: bool = False
    answer_line: bool = False

    def as_dict(self) -> dict[str, bool]:
        """The switches by name (recorded in every trial's provenance)."""
        return asdict(self)

    def on(self) -> tuple[str, ...]:
        """The names of the conditions that are on, in declaration order."""
        return tuple(name for name, value in asdict(self).items() if value)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The condition names, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], where: str = "protocol") -> ProtocolConditions:
        """Build from a config mapping; an unknown name is an error that says where."""
        unknown = sorted(set(values) - set(cls.names()))
        if unknown:
            raise ValueError(f"{where}: unknown protocol condition(s) {unknown}; known: {list(cls.names())}")
        return cls(**{k: bool(v) for k, v in values.items()})


LEGACY = ProtocolConditions()
LEGACY_NAME = "legacy"
