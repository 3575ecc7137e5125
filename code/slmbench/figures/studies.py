"""The two studies the figures draw side by side, and where each keeps its numbers.

Our study's numbers are spread over topics ``capability``, ``reliability`` and ``temperature``; the reproduced
study's are all in topic ``external``. A ``Study`` turns a quantity and a model into the number's key, so a
figure draws the same number the paper's tables print (``cap.acc.<m>``, ``rel.composite.<m>`` ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from slmbench.analysis.numbers import slug, temp_slug
from slmbench.figures.source import Source
from slmbench.figures.style import study_color, study_label


@dataclass(frozen=True)
class Study:
    """Key prefixes of one study's numbers, and the topic table that lists its models."""

    id: str
    cap: str
    """Prefix of capability numbers (accuracy, groups, sizes, wall time): ``cap`` / ``ext``."""
    rel: str
    """Prefix of reliability numbers (dimensions, composite, variants, safety, tokens): ``rel`` / ``ext.rel``."""
    temp: str
    """Prefix of capability accuracy per temperature: ``temp.cap`` / ``ext.temp``."""
    cap_topic: str
    """The topic of the capability numbers; its tables: ``models`` (model, params_b, is_base; by size),
    ``groups`` (group, model)."""
    rel_topic: str
    """The topic of the reliability numbers; its table ``variants`` (dimension, variant, model)."""
    temp_table: tuple[str, str]
    """(topic, table) listing the temperatures each model ran at (model, temperature, diff)."""

    @property
    def label(self) -> str:
        """The panel title."""
        return study_label(self.id)

    @property
    def color(self) -> str:
        """The study's colour."""
        return study_color(self.id)

    def models(self, src: Source) -> pd.DataFrame:
        """The study's models (model, params_b, is_base), smallest first; empty without the topic."""
        table = src.table(self.cap_topic, "models")
        return table if len(table) else pd.DataFrame(columns=["model", "params_b", "is_base"])

    def groups(self, src: Source) -> list[str]:
        """The task groups the capability topic reports, in its order."""
        table = src.table(self.cap_topic, "groups")
        return list(dict.fromkeys(table["group"])) if len(table) else []

    def variants(self, src: Source, dimension: str) -> list[str]:
        """The variants of ``dimension`` the reliability topic reports, in its order."""
        table = src.table(self.rel_topic, "variants")
        return (
            list(dict.fromkeys(table.loc[table["dimension"] == dimension, "variant"])) if len(table) else []
        )

    def temperatures(self, src: Source) -> pd.DataFrame:
        """Rows (model, temperature, diff ...) of the study's temperature table."""
        return src.table(*self.temp_table)

    def params(self, model: str) -> str:
        """Key of the model's size (billions of parameters)."""
        return f"{self.cap}.params.{slug(model)}"

    def acc(self, model: str) -> str:
        """Key of the capability accuracy (the headline temperature)."""
        return f"{self.cap}.acc.{slug(model)}"

    def group(self, group: str, model: str) -> str:
        """Key of the accuracy on one task group."""
        return f"{self.cap}.group.{slug(group)}.{slug(model)}"

    def wall(self, model: str) -> str:
        """Key of the median wall time per capability trial (s)."""
        return f"{self.cap}.wall-s.median.{slug(model)}"

    def dimension(self, dim: str, model: str) -> str:
        """Key of the pass rate in one reliability dimension."""
        return f"{self.rel}.{slug(dim)}.{slug(model)}"

    def composite(self, model: str) -> str:
        """Key of the composite reliability (the reproduced study: as published)."""
        return f"{self.rel}.composite.{slug(model)}"

    def pooled(self, model: str) -> str:
        """Key of the pass rate over all reliability rows."""
        return f"{self.rel}.pooled.{slug(model)}"

    def variant(self, dim: str, variant: str, model: str) -> str:
        """Key of the pass rate under one variant of a dimension."""
        return f"{self.rel}.variant.{slug(dim)}.{slug(variant)}.{slug(model)}"

    def safety(self, outcome: str, model: str) -> str:
        """Key of the share of one safety outcome."""
        return f"{self.rel}.safety.outcome.{slug(outcome)}.{slug(model)}"

    def tokens(self, model: str) -> str:
        """Key of the mean prompt + completion tokens per reliability trial."""
        return f"{self.rel}.tokens.mean.{slug(model)}"

    def temp_acc(self, model: str, temperature: float) -> str:
        """Key of the capability accuracy at one temperature."""
        return f"{self.temp}.acc.{slug(model)}.{temp_slug(temperature)}"

    def temp_diff(self, model: str, temperature: float) -> str:
        """Key of the accuracy difference to the model's lowest temperature."""
        return f"{self.temp}.diff.{slug(model)}.{temp_slug(temperature)}"


OURS = Study(
    id="slmbench",
    cap="cap",
    rel="rel",
    temp="temp.cap",
    cap_topic="capability",
    rel_topic="reliability",
    temp_table=("temperature", "capability"),
)
REPRODUCED = Study(
    id="karmacharya2026",
    cap="ext",
    rel="ext.rel",
    temp="ext.temp",
    cap_topic="external",
    rel_topic="external",
    temp_table=("external", "temperature"),
)
STUDIES: tuple[Study, ...] = (OURS, REPRODUCED)
"""Both studies, in panel order."""
