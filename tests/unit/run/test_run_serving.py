"""A serving shard's server, against a stand-in ``llama-server`` (a script that answers ``/health``): started when
the runner first asks for its backend, stopped by its PID however the run ends, and a missing binary named in
one line with the command that builds it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from slmbench.backends.llamacpp_build import cmake_args
from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.config import load_config
from slmbench.models.llama_server import LlamaServer
from slmbench.run import serving as serving_module
from slmbench.run.key import ShardKey
from slmbench.run.serving import serving, serving_settings

ROOT = Path(__file__).resolve().parents[3]
MODEL = "qwen2.5-coder-0.5b"
STEM = "capability_T0_native_repaired_p-full_srv-llama-server"
STAND_IN = textwrap.dedent(
    """\
    #!{python}
    import http.server, sys
    port = int(sys.argv[sys.argv.index("--port") + 1])
    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"{{}}")
        def log_message(self, *args):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
    """
)


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``llama-server`` in a cache of its own; the weights are not read and the backend is scripted."""
    binary = tmp_path / "cache" / "llama-server" / "0.3.36" / "llama-server"
    binary.parent.mkdir(parents=True)
    binary.write_text(STAND_IN.format(python=sys.executable))
    binary.chmod(0o755)
    binary.with_name("llama-server.cmake-args").write_text(cmake_args())
    monkeypatch.setenv("SLMBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(serving_module, "verify", lambda spec: tmp_path / "m.gguf")
    monkeypatch.setattr(serving_module, "open_backend", lambda model, spec: ScriptedBackend(["OK"]))
    return binary


def _settings() -> tuple[Any, dict[str, Any]]:
    spec = load_config(ROOT / "config.yaml").models[MODEL]
    settings = serving_settings(ShardKey.from_stem(MODEL, STEM), spec, 300.0)
    assert settings is not None
    return spec, settings


def _gone(pid: int, within_s: float = 20.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.1)
    return False


def test_the_server_starts_with_the_in_process_settings_and_stops_when_the_run_fails(stand_in: Path) -> None:
    spec, settings = _settings()
    started: list[LlamaServer] = []
    with pytest.raises(RuntimeError, match="a trial failed"):
        with serving(MODEL, spec, settings, started.append) as factory:
            assert isinstance(factory(), ScriptedBackend)
            [server] = started
            command = server.command()
            assert command[command.index("-c") + 1] == str(spec.n_ctx) and "--jinja" in command
            assert command[command.index("--parallel") + 1] == "1" and command[
                command.index("-t") + 1
            ] == str(settings["threads"])
            assert Path(f"/proc/{server.pid}").exists()
            raise RuntimeError("a trial failed")
    assert server.pid is not None and _gone(server.pid)


def test_sigterm_stops_the_server_as_ctrl_c_does(stand_in: Path) -> None:
    spec, settings = _settings()
    started: list[LlamaServer] = []
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        with serving(MODEL, spec, settings, started.append) as factory:
            factory()
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler interrupts this
    assert started[0].pid is not None and _gone(started[0].pid)
    assert signal.getsignal(signal.SIGTERM) == previous  # the runner's handler is gone with the block


def test_a_runner_killed_outright_takes_its_server_with_it(stand_in: Path, tmp_path: Path) -> None:
    script = textwrap.dedent(
        """\
        import os, signal, sys
        from pathlib import Path
        from slmbench.models.llama_server import LlamaServer
        server = LlamaServer(Path("m.gguf"), "m").start()
        print(server.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )
    assert done.returncode == -signal.SIGKILL
    assert _gone(int(done.stdout.strip()))


def test_a_missing_server_binary_is_one_line_naming_the_make_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slmbench.cli import main

    monkeypatch.setenv("SLMBENCH_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(serving_module, "verify", lambda spec: pytest.fail("the weights are not read first"))
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    data["serving_comparison"] = {"models": [MODEL], "repeats": 1}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(data))
    out = tmp_path / "shard.jsonl"
    result = CliRunner().invoke(
        main,
        ["run", "--config", str(config), "--shard", f"{MODEL}/{STEM}", "--out", str(out), "--no-progress"],
    )
    assert result.exit_code == 1
    [line] = [x for x in result.output.splitlines() if x.strip()]
    assert line.startswith("Error: ") and "is missing: run `make llama-server`" in line
    assert not out.exists() or not out.read_text().strip()  # no trial written
