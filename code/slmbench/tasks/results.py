"""What a task's check returns: the verdict a trial record keeps (``harness.records.TrialRecord.check``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CheckResult(BaseModel):
    """How the task's check judged the trial: pass/fail, partial credit, and each criterion."""

    model_config = ConfigDict(extra="forbid")
    passed: bool
    partial: float = Field(ge=0.0, le=1.0)
    criteria: list[dict[str, Any]] = []
