"""``code_interpreter``: run a Python snippet in the sandbox and return its output."""

from __future__ import annotations

import logging
from typing import Any

from slmbench.tools.arguments import ArgumentError, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool
from slmbench.tools.sandbox import SandboxLimits, default_python, run_python

logger = logging.getLogger(__name__)

MAX_CODE_CHARS = 100_000


@register_tool(name="code_interpreter")
class CodeInterpreter:
    """Each call runs in a fresh process and directory (no state is kept between calls)."""

    name = "code_interpreter"
    description = (
        "Run a Python 3 program (standard library only, no network, no files outside its folder) and "
        "return what it prints. Use print() to show results; each run starts fresh."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"code": {"type": "string", "description": "The complete Python program to run."}},
        "required": ["code"],
        "additionalProperties": False,
    }

    def __init__(
        self, ctx: ToolContext, limits: SandboxLimits | None = None, python: str | None = None
    ) -> None:
        self.limits = limits or SandboxLimits()
        self.python = python or default_python(self.limits)
        self._runs_dir = ctx.workdir / "code_runs"
        self._runs_dir.mkdir(parents=True, exist_ok=True)
        self._runs = 0

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Return ``{"stdout", "stderr", "exit_code", "timed_out", "sandbox"}`` (outputs truncated), and
        ``warning`` when code started as root ran as root (``SandboxResult.warning``)."""
        try:
            code = need_str(arguments, "code")
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))
        if len(code) > MAX_CODE_CHARS:
            return ToolResult(
                ok=False, content=None, error=f"code too long (limit {MAX_CODE_CHARS} characters)"
            )
        self._runs += 1
        result = run_python(code, self._runs_dir, self.limits, self.python)
        content: dict[str, Any] = {
            "stdout": result.stdout,
            "stderr": result.stderr,
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "sandbox": list(result.layers),
        }
        if result.warning:  # only then: a result of a run that dropped privileges is as it always was
            content["warning"] = result.warning
        return ToolResult(ok=True, content=content)

    def snapshot(self) -> dict[str, Any]:
        """How many programs were run."""
        return {"runs": self._runs}
