"""A run as the sub-analyses see it: one configuration (model x prompt x quantisation) on one task, with its
answers declared as a selection of the answers table and narrowed to the split each analysis reads."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pandas as pd

from slmbench.analysis.selection import Selected
from slmbench.analysis.topics.eligibility.common import STUDY, config_slug, task_slug
from slmbench.analysis.topics.eligibility.items import Config
from slmbench.vocab import SPLITS


@dataclass(frozen=True)
class Run:
    """One run: its configuration, its header and every answer it recorded."""

    model: str
    prompt: str
    quant: str
    task: str
    header: dict[str, Any]
    answers: Selected

    @property
    def key(self) -> str:
        """The prefix of its numbers: ``elig.<task>.<model>.<prompt>.<quant>``."""
        return f"elig.{task_slug(self.task)}.{config_slug(self.model, self.prompt, self.quant)}"

    @functools.cached_property
    def test(self) -> Selected:
        """Its test items: what every reported accuracy is computed on."""
        return self.answers.where({"split": "test"})

    @functools.cached_property
    def calibration(self) -> Selected:
        """Its calibration items without the prompt's few-shot examples: what a threshold is tuned on."""
        return self.answers.where({"split": "calibration", "in_prompt": False})

    @functools.cached_property
    def tuned(self) -> Selected:
        """Both splits: a threshold tuned on calibration and applied to test."""
        return self.answers.where({"split": list(SPLITS)})


def runs_of(answers: pd.DataFrame, runs: dict[Config, dict[str, Any]]) -> list[Run]:
    """Each run of ``runs`` (in its order) with its answers selected from the answers table."""
    scope = Selected.of(answers, {"study": STUDY})
    out = []
    for (model, prompt, quant, task), run in runs.items():
        mine = scope.where(
            {"task": task, "model": model, "prompt": prompt, "quant": quant, "file": run["file"]}
        )
        out.append(Run(model, prompt, quant, task, run["header"], mine))
    return out
