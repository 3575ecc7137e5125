"""What the eligibility sub-analyses share: the study's name, key slugs, provenance and the numbers' helpers."""

from __future__ import annotations

import math
import sys
from types import ModuleType
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, Unit

TOPIC: ModuleType = sys.modules[__package__ or ""]
"""The topic's package: the provenance of counts over its sub-analyses."""
STUDY = "eligibility"


class EligibilityInputError(ValueError):
    """Records and baselines do not describe the same items and split."""


def task_slug(task: str) -> str:
    """``command_approval`` -> ``command-approval``."""
    return nb.slug(task)


def config_slug(model: str, prompt: str, quant: str) -> str:
    """``<model>.<prompt>.<quant>`` sanitised: ``qwen2-5-coder-1-5b.fewshot.q3-k-m``."""
    return f"{nb.slug(model)}.{nb.slug(prompt)}.{nb.slug(quant)}"


def provenance(
    function: nb.Computed, selection: dict[str, Any], description: str, unit: Unit = "items", **params: Any
) -> dict[str, Any]:
    """A provenance record of this topic: its selection names dataset items, not trials (``n`` counts items)."""
    return nb.provenance(function, selection, description, unit=unit, **params)


def threshold_number(key: str, value: float, prov: dict[str, Any]) -> Number:
    """A tuned cut-off: a coefficient, or minus/plus infinity (never / always)."""
    if math.isinf(value):
        return Number(key, "inf" if value > 0 else "-inf", "$+\\infty$" if value > 0 else "$-\\infty$", prov)
    return nb.stat(key, value, prov)


def finite(value: float) -> float | None:
    """A table cell: the value, or None when it is not a finite number."""
    return value if isinstance(value, float | int) and math.isfinite(value) else None


def count_phrase(k: int, n: int, what: str, verb: str) -> str:
    """``3 of the 10 <what>s <verb>``, with the cases of none scored and none at all."""
    if n == 0:
        return f"no {what} was scored"
    if k == 0:
        return f"none of the {n} {what}s {verb}"
    return f"{k} of the {n} {what}s {verb}"
