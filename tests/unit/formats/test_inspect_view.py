"""The exported logs in Inspect's own viewer: ``inspect view`` serves them and a headless Chromium shows a trial's
transcript (a tool call's arguments as the model sent them, the tool's answer)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from slmbench.formats.inspect_out import export_inspect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (envs/requirements.lock)"
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="chromium and chromium-driver are not installed (`make test` installs them via envs/setup.sh --browser)",
    ),
]
SHARD = "qwen2.5-coder-1.5b/null_control_T0_native_repaired_p-full"
SAMPLE = "IR-1"
SHOWN = ("Lake Varnholm deepest point", "Varnhelm Reservoir, not to be confused with Lake Varnholm")
"""The first trial's call argument (a search query) and the start of the result the tool gave it."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def viewer(raw_study: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``inspect view`` on the exported logs; its address. The server is stopped by its process id."""
    logs = tmp_path_factory.mktemp("view_logs")
    export_inspect(raw_study, logs)
    port = free_port()
    inspect = Path(sys.executable).parent / "inspect"
    server = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/logs", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        f"inspect view did not start: {server.stderr.read()[-2000:]!r}"
                    ) from None
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def test_the_viewer_lists_the_exported_logs(viewer: str) -> None:
    listing = urllib.request.urlopen(f"{viewer}/api/logs", timeout=10).read().decode()
    assert f"{SHARD}.eval" in listing and "smollm2-135m/null_control_T0_native_repaired.eval" in listing


def test_a_trials_transcript_shows_in_the_viewer(viewer: str, browser: webdriver.Chrome) -> None:
    browser.get(f"{viewer}/#/tasks/{SHARD}.eval/samples/sample/{SAMPLE}/1/")

    def shown(driver: webdriver.Chrome) -> bool:
        text = driver.find_element(By.TAG_NAME, "body").text
        return all(part in text for part in SHOWN)

    WebDriverWait(browser, 60).until(shown)
    body = browser.find_element(By.TAG_NAME, "body").text
    assert f"Sample {SAMPLE} (Epoch 1)" in body
