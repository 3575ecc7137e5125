"""The audit site in a real headless browser (Debian's chromium + chromium-driver, driven by Selenium).

A reviewer's path: open the site from disk, filter to one model's failed trials, open a trial and read its
arguments and refusal reason; follow a number's link from the PDF (``../site/numbers/<key>.html`` from
``paper/``) and from its page a trial. Screenshots go to the test's temporary folder; with
``SLMBENCH_README_SCREENSHOT=1`` the transcript is also saved as ``docs/img/site_transcript.png``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from tests.fixtures.site_study import HOSTILE, SiteStudy, build_study

from slmbench.site import build_site
from slmbench.site.encode import js_call

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (envs/requirements.lock)"
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None or CHROMEDRIVER is None,
        reason="chromium and chromium-driver are not installed (`make test` installs them via envs/setup.sh --browser)",
    ),
]
FUTURE = {"type": "future_event", "t": 0.5, "turn": 1, "detail": {"x": "<b>not bold</b>"}}
"""An event type the viewer does not know: it must show as JSON and break nothing."""


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> SiteStudy:
    study = build_study(tmp_path_factory.mktemp("browser_study"))
    build_site(study.raw_dir, study.trials, study.provenance, study.root / "site", root=study.root)
    chunk = next((study.root / "site" / "trials").glob("scripted-b*.js"))
    text = chunk.read_text()
    sid, trials = json.loads("[" + text[len("SLM.chunk(") : -3] + "]")
    trials[study.fault_trial]["record"]["events"].insert(1, FUTURE)
    chunk.write_text(js_call("SLM.chunk", sid, trials))
    return study


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def wait(driver: webdriver.Chrome, css: str, timeout: float = 10.0):
    """The first element matching ``css`` once it is displayed."""
    return WebDriverWait(driver, timeout).until(
        lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()), False)
    )


def count(driver: webdriver.Chrome) -> int:
    return int(wait(driver, "#table-status[data-count]").get_attribute("data-count"))


def wait_count(driver: webdriver.Chrome, n: int) -> None:
    WebDriverWait(driver, 10).until(lambda d: count(d) == n)


def wait_rows(driver: webdriver.Chrome, trial_ids: list[str]) -> None:
    """Wait until the table shows exactly these trials."""

    def shown(d: webdriver.Chrome) -> list[str | None]:
        return [
            r.get_attribute("data-trial") for r in d.find_elements(By.CSS_SELECTOR, "#trial-table tbody tr")
        ]

    WebDriverWait(driver, 10).until(lambda d: shown(d) == trial_ids)


def full_page(driver: webdriver.Chrome, path: Path) -> None:
    """A screenshot of the whole page (the window grown to the page's height for the shot)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(int(height) + 40, 8000))
    driver.save_screenshot(str(path))
    driver.set_window_size(1280, 900)


def severe_logs(driver: webdriver.Chrome) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_filter_open_a_failed_trial_and_read_its_arguments_and_refusal(study, browser, shots):
    browser.get((study.root / "site" / "index.html").as_uri())
    wait_count(browser, 4)
    browser.save_screenshot(str(shots / "01_trials.png"))
    Select(browser.find_element(By.ID, "filter-model")).select_by_value("scripted-a")
    wait_count(browser, 2)
    Select(browser.find_element(By.ID, "filter-outcome")).select_by_value("failure")
    wait_count(browser, 1)
    rows = browser.find_elements(By.CSS_SELECTOR, "#trial-table tbody tr")
    assert [r.get_attribute("data-trial") for r in rows] == [study.failed_trial]
    browser.save_screenshot(str(shots / "02_filtered.png"))
    rows[0].find_element(By.CSS_SELECTOR, "a.trial-link").click()
    wait(browser, "#trial-view[data-loaded='true']")

    call = wait(browser, ".event.ev-tool_call")
    assert json.loads(call.find_element(By.CSS_SELECTOR, "pre.arguments").text) == {
        "q": "tessellate-py maintainer licence"
    }
    assert json.loads(call.find_element(By.CSS_SELECTOR, "pre.repaired-arguments").text) == {
        "query": "tessellate-py maintainer licence"
    }
    assert "rename_field" in call.find_element(By.CSS_SELECTOR, ".repairs").text
    assert (
        '"q": "tessellate-py maintainer licence"' in call.find_element(By.CSS_SELECTOR, "pre.raw-span").text
    )
    refusal = wait(browser, ".event.ev-refusal")
    reason = refusal.find_element(By.CSS_SELECTOR, ".reason-text").text
    assert reason.startswith("The JSON object inside <tool_call> is not valid")
    assert "unparseable_json" in refusal.text
    criteria = browser.find_element(By.CSS_SELECTOR, "table.criteria").text
    assert "answer_names" in criteria and "fail" in criteria and "pass" in criteria
    assert "scripted-a" in browser.find_element(By.CSS_SELECTOR, "pre.fingerprint").text
    answer = wait(browser, ".event.ev-final_answer pre.answer").text
    assert HOSTILE in answer  # shown as text ...
    assert browser.execute_script("return window.pwned === undefined")  # ... and never run
    assert not browser.find_elements(By.CSS_SELECTOR, "#trial-view img, #trial-view b")
    full_page(browser, shots / "03_transcript.png")
    if os.environ.get("SLMBENCH_README_SCREENSHOT") == "1":
        (ROOT / "docs" / "img").mkdir(parents=True, exist_ok=True)
        browser.set_window_size(1280, 1700)
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(str(ROOT / "docs" / "img" / "site_transcript.png"))
        browser.set_window_size(1280, 900)
    browser.back()
    wait_count(browser, 1)  # the filters survive the round trip
    assert not severe_logs(browser)


def test_an_injected_fault_and_an_unknown_event_type_are_shown(study, browser, shots):
    browser.get((study.root / "site" / "index.html").as_uri() + "#trial=" + quote(study.fault_trial, safe=""))
    wait(browser, "#trial-view[data-loaded='true']")
    fault = wait(browser, ".event.ev-fault")
    assert "injected fault" in fault.text and "timeout" in fault.text and "web_search" in fault.text
    assert "timeout on web_search" in browser.find_element(By.CSS_SELECTOR, ".task-block").text
    assert wait(browser, ".event.ev-tool_result .tool-error").text
    assert '"x": "<b>not bold</b>"' in wait(browser, ".event[data-type='future_event'] pre").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#trial-view b")
    full_page(browser, shots / "06_fault.png")
    assert not severe_logs(browser)


def test_search_in_messages_and_sort(study, browser):
    browser.get((study.root / "site" / "index.html").as_uri())
    wait_count(browser, 4)
    search = browser.find_element(By.ID, "search")
    search.send_keys("tessellate")
    wait_rows(browser, [study.failed_trial])
    search.clear()
    search.send_keys("KESWICK ferry")
    wait_rows(browser, [study.fault_trial])
    search.clear()
    search.send_keys(" ")
    wait_count(browser, 4)
    browser.find_element(By.CSS_SELECTOR, "button.sort[data-sort='task_id']").click()
    browser.find_element(By.CSS_SELECTOR, "button.sort[data-sort='task_id']").click()
    tasks = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#trial-table tbody td:nth-child(3)")]
    assert tasks == sorted(tasks, reverse=True)
    assert not severe_logs(browser)


def test_a_number_page_from_the_pdf_link_leads_to_its_trials(study, browser, shots):
    """The PDF at paper/main.pdf links \\res{fix.n.failures} to ../site/numbers/fix.n.failures.html."""
    link = (study.root / "paper" / "../site/numbers/fix.n.failures.html").resolve()
    browser.get(link.as_uri())
    assert wait(browser, "#number-value").text.startswith("2")
    assert "outcome" in browser.find_element(By.ID, "selection").text
    assert "len" in browser.find_element(By.CSS_SELECTOR, "table.kv").text
    wait_count(browser, 2)
    browser.save_screenshot(str(shots / "04_number.png"))
    href = "index.html#trial=" + quote(study.failed_trial, safe="")
    browser.find_element(By.CSS_SELECTOR, f"a.trial-link[href$='{href}']").click()
    wait(browser, "#trial-view[data-loaded='true']")
    assert browser.find_element(By.CSS_SELECTOR, "h2.trial-title").text == study.failed_trial
    assert browser.find_element(By.CSS_SELECTOR, ".event.ev-refusal .reason-text").text
    browser.save_screenshot(str(shots / "05_followed.png"))
    browser.get((study.root / "site" / "numbers" / "index.html").as_uri())
    browser.find_element(By.ID, "number-filter").send_keys("scripted-b")
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "number-status").text == "1 of 3 numbers")
    assert not severe_logs(browser)
