"""Declare once, ask the object: a new backend, tool or figure is its own file, registered by the decorator in it.

A copy of the package gets three new modules and nothing else: a dummy served backend with a settings field of
its own, a dummy tool whose calls change the world, a dummy figure. In the copy, the config accepts the backend's
entries (its own field included), resources follow its declaration (a served model: one thread, a served-load
resource), it opens and answers; the task schema takes the tool and the checks know its side effects; the figure
is registered and drawn for a study that computes its topic.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

from slmbench.sources import PACKAGE

BACKEND = '''\
"""A dummy served backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from slmbench.backends.base import GenerationOptions, Message, ModelReply, register_backend
from slmbench.backends.settings import ServedEntry


class DummySettings(ServedEntry):
    backend: Literal["dummy"]
    greeting: str


@register_backend(name="dummy", in_process=False, describes="a dummy server", engine="a dummy engine", labels=None)
class DummyBackend:
    name = "dummy"
    supports_native_tools = False
    settings = DummySettings

    @classmethod
    def from_spec(cls, model_id: str, spec: DummySettings, weights: Path | None, **overrides: Any) -> DummyBackend:
        return cls(spec.greeting)

    def __init__(self, greeting: str) -> None:
        self.greeting = greeting

    def chat(self, messages: list[Message], tools: Any, options: GenerationOptions) -> ModelReply:
        return ModelReply(text=self.greeting)

    def reset(self) -> bool:
        return True

    def fingerprint(self) -> dict[str, Any]:
        return {"backend": self.name}

    def close(self) -> None:
        pass
'''
TOOL = '''\
"""A dummy tool."""

from __future__ import annotations

from typing import Any

from slmbench.tools.base import ToolContext, ToolResult, register_tool


@register_tool(name="dummy_tool", side_effects={"argument": "action", "actions": ("launch",)})
class DummyTool:
    name = "dummy_tool"
    description = "Does nothing, or launches something."
    parameters: dict[str, Any] = {"type": "object", "properties": {"action": {"type": "string"}}}

    def __init__(self, ctx: ToolContext) -> None:
        self.calls = 0

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        self.calls += 1
        return ToolResult(True, "done")

    def snapshot(self) -> Any:
        return {"calls": self.calls}
'''
FIGURE = '''\
"""A dummy figure."""

from __future__ import annotations

from typing import Any

from slmbench.figures.registry import figure


@figure(reads=("capability",))
def draw(src: Any) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    return fig
'''
NEW = {"backends/dummy_backend.py": BACKEND, "tools/dummy_tool.py": TOOL, "figures/dummy.py": FIGURE}
CHECK = """
from pathlib import Path

import yaml

from slmbench.backends import backend_facts
from slmbench.config import parse_config
from slmbench.figures.registry import FIGURES, draw_figure, study_figures
from slmbench.models.registry import open_backend
from slmbench.models.resources import model_mem_mb, model_threads, served_limits
from slmbench.tasks.loader import task_index
from slmbench.tasks.schema import Task
from slmbench.tools import ToolContext, build_tools, is_side_effect, tool_names

data = yaml.safe_load(Path("config.yaml").read_text())
for block in ("serving_comparison", "eligibility", "build_run"):
    data.pop(block)
data["models"] = {"d": {"backend": "dummy", "params_b": 1.0, "instruct": True, "greeting": "hi", "concurrency": 3}}
config = parse_config(data)
spec = config.models["d"]
assert type(spec).__name__ == "DummySettings" and spec.greeting == "hi"
assert backend_facts("dummy").describes == "a dummy server"
assert served_limits(config) == {"served_d": 3} and model_threads(spec) == 1 and model_mem_mb(spec) == 512
assert open_backend("d", spec).chat([], None, None).text == "hi"

assert "dummy_tool" in tool_names()
task = next(iter(task_index().values())).model_dump(mode="json", exclude_none=True)
Task.model_validate({**task, "tools": [*task["tools"], "dummy_tool"]})
tool = build_tools(["dummy_tool"], ToolContext(Path(".")))["dummy_tool"]
assert tool.call({}).ok and is_side_effect("dummy_tool", {"action": "launch"})
assert not is_side_effect("dummy_tool", {"action": "wait"})

assert "dummy" in FIGURES and "dummy" in study_figures(("capability",))
draw_figure("dummy", {}, Path("out/fig_dummy.pdf"))
assert Path("out/fig_dummy.pdf").stat().st_size > 0
print("ok")
"""


def test_a_backend_a_tool_and_a_figure_are_each_their_own_file(tmp_path: Path) -> None:
    copy = tmp_path / "pkg" / "slmbench"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in NEW.items():
        (copy / name).write_text(text)
    changed = _differences(filecmp.dircmp(PACKAGE, copy, ignore=["__pycache__"]))
    assert sorted(changed) == sorted(NEW)  # nothing else was touched: each registered where it is defined
    shutil.copy(PACKAGE.parents[1] / "config.yaml", tmp_path / "config.yaml")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "pkg"), "MPLBACKEND": "Agg"}
    run = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "ok"


def _differences(cmp: filecmp.dircmp[str], prefix: str = "") -> list[str]:
    """Files added, removed or changed in the copy, relative to the package."""
    out = [prefix + n for n in (*cmp.left_only, *cmp.right_only, *cmp.diff_files)]
    for name, sub in cmp.subdirs.items():
        out += _differences(sub, f"{prefix}{name}/")
    return out
