"""A shard's identity, defined once: its file name's stem and the ids of its trials both come from ``ShardKey``.

A shard is every trial of one model on one suite under one condition. Its stem is
``<suite>_T<t>_<scaffold>_<mode>[_ctx<N>][_p-<protocol>][_turns<N>][_tok<N>][_rerun-<label>][_srv-<server>][_v-<perturbation>]``
and each trial id carries the same tags in the same order
(``.../<mode>/ctx<N>/p-<protocol>/turns<N>/tok<N>/rerun-<label>/srv-<server>/v-<perturbation>/r<i>``); a tag is left
out where the shard runs the study's own setting (``_p-`` for ``legacy``, the first dataset's protocol; ``_srv-`` for
the model's own backend; ``_v-`` for the tasks as written). The null control is the suite ``null_control``: capability tasks rerun, kept apart by their name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from slmbench.conditions import LEGACY_NAME
from slmbench.vocab import (
    NAME_PATTERN,
    NULL_CONTROL,
    PARSER_MODES,
    PERTURBATIONS,
    SCAFFOLDS,
    SERVERS,
    STUDY_ID,
    SUITES,
    ParserMode,
    Perturbation,
    ScaffoldName,
    Suite,
)

NULL_CONTROL_SUITE: Suite = "capability"
"""The task suite the null control reruns tasks of."""
STEM_FORM = (
    "<suite>_T<t>_<scaffold>_<mode>[_ctx<N>][_p-<protocol>][_turns<N>][_tok<N>][_rerun-<label>][_srv-<server>]"
    "[_v-<perturbation>]"
)


def _stem_regex(named: bool) -> str:
    def group(name: str, body: str) -> str:
        return f"(?P<{name}>{body})" if named else f"(?:{body})"

    return (
        group("suite", "|".join((*SUITES, NULL_CONTROL)))
        + "_T"
        + group("temperature", r"[0-9]+(?:\.[0-9]+)?")
        + "_"
        + group("scaffold", "|".join(SCAFFOLDS))
        + "_"
        + group("mode", "|".join(PARSER_MODES))
        + f"(?:_ctx{group('n_ctx', '[0-9]+')})?"
        + f"(?:_p-{group('protocol', NAME_PATTERN)})?"
        + f"(?:_turns{group('max_turns', '[0-9]+')})?"
        + f"(?:_tok{group('max_tokens', '[0-9]+')})?"
        + f"(?:_rerun-{group('rerun', NAME_PATTERN)})?"
        + f"(?:_srv-{group('server', '|'.join(SERVERS))})?"
        + f"(?:_v-{group('perturbation', '|'.join(PERTURBATIONS))})?"
    )


STEM_PATTERN = _stem_regex(named=False)
"""A regular expression of the stems (no groups of its own: Snakemake's wildcard constraint)."""
_STEM = re.compile(_stem_regex(named=True))


@dataclass(frozen=True)
class ShardKey:
    """Which trials a shard holds: model, suite, temperature, scaffold, parser mode and the condition's tags.

    ``n_ctx``, ``max_turns`` and ``max_tokens`` are None where the shard runs the model's or the study's own
    setting (``slmbench.run.plan.shard_key`` normalises them); ``rerun`` labels a rerun of trials already run;
    ``server`` names the serving stack the runner starts on the model's GGUF file (None: the model's own backend);
    ``perturbation`` runs every task's perturbed variants instead of the tasks as written.
    """

    model: str
    suite: str
    temperature: float
    scaffold: ScaffoldName
    mode: ParserMode
    n_ctx: int | None = None
    protocol: str = LEGACY_NAME
    max_turns: int | None = None
    max_tokens: int | None = None
    rerun: str | None = None
    server: str | None = None
    perturbation: Perturbation | None = None

    @property
    def task_suite(self) -> Suite:
        """The suite whose tasks the shard runs (the null control's are capability tasks)."""
        if self.suite == NULL_CONTROL:
            return NULL_CONTROL_SUITE
        if self.suite not in SUITES:
            raise ValueError(f"shard {self.name}: {self.suite!r} is not a suite ({', '.join(SUITES)})")
        return self.suite  # type: ignore[return-value]

    def tags(self) -> list[str]:
        """Every setting the shard does not share with the study, in order: ``ctx1024``, ``p-full``,
        ``turns10``, ``tok512``, ``rerun-2``, ``srv-llama-server``, ``v-fault`` (joined by ``_`` in the stem and by ``/`` in a
        trial id)."""
        tags = [] if self.n_ctx is None else [f"ctx{self.n_ctx}"]
        tags += [] if self.protocol == LEGACY_NAME else [f"p-{self.protocol}"]
        tags += [] if self.max_turns is None else [f"turns{self.max_turns}"]
        tags += [] if self.max_tokens is None else [f"tok{self.max_tokens}"]
        tags += [] if self.rerun is None else [f"rerun-{self.rerun}"]
        tags += [] if self.server is None else [f"srv-{self.server}"]
        tags += [] if self.perturbation is None else [f"v-{self.perturbation}"]
        return tags

    def stem(self) -> str:
        """The shard file's name without ``.jsonl``: ``capability_T0_native_repaired_p-full_rerun-2``."""
        return "_".join([f"{self.suite}_T{self.temperature:g}_{self.scaffold}_{self.mode}", *self.tags()])

    @property
    def name(self) -> str:
        """``<model>/<stem>``: the shard's place under the study's raw folder, without ``.jsonl``."""
        return f"{self.model}/{self.stem()}"

    def trial_id(self, task_id: str, variant: str, repeat: int, study: str = STUDY_ID) -> str:
        """The id of one trial: ``slmbench/<model>/<suite>/<task>/<variant>/T<t>/<scaffold>/<mode>/<tags>/r<i>``."""
        head = [
            study,
            self.model,
            self.suite,
            task_id,
            variant,
            f"T{self.temperature:g}",
            self.scaffold,
            self.mode,
        ]
        return "/".join([*head, *self.tags(), f"r{repeat}"])

    @classmethod
    def from_stem(cls, model: str, stem: str) -> ShardKey:
        """The key of a shard file's stem; the stem must be exactly the one the key writes.

        Raises:
            ValueError: one line naming the stem and the form it should have.
        """
        match = _STEM.fullmatch(stem)
        key = None if match is None else cls(model=model, **_fields(match.groupdict()))
        if key is None or key.stem() != stem:
            raise ValueError(f"shard {model}/{stem}: not a shard name of the form {STEM_FORM}")
        return key

    @classmethod
    def from_name(cls, name: str) -> ShardKey:
        """The key of ``<model>/<stem>``."""
        model, slash, stem = name.rpartition("/")
        if not slash or not model:
            raise ValueError(f"shard {name!r}: expected <model>/<stem>")
        return cls.from_stem(model, stem)


def _fields(groups: dict[str, str | None]) -> dict[str, Any]:
    """The key's fields from the stem's groups (numbers as numbers; a missing protocol is ``legacy``)."""
    out: dict[str, Any] = {k: v for k, v in groups.items() if v is not None}
    out["temperature"] = float(out["temperature"])
    for name in ("n_ctx", "max_turns", "max_tokens"):
        if name in out:
            out[name] = int(out[name])
    return out
