"""The report in a real headless Chromium: it loads offline, shows the verdict and one tile per ticket, and
a real mouse click (or Enter) on a tile opens the detail panel with the answer, the judges' reasons and the
answer key. Screenshots go to tests/output/ for a human look.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in, fd 4 out,
NUL-terminated JSON), so the test needs nothing beyond the standard library. A missing Chromium fails the
test with the command that installs it; it never skips.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.views.report import render_report

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support-desk"
OUTPUT = ROOT / "tests" / "output"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
]
WAIT = 30.0  # seconds for any one protocol answer; generous for a cold start on a slow CI machine


def chromium_binary() -> str:
    found = os.environ.get("ASSAY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found or not os.access(found, os.X_OK):
        pytest.fail(f"Chromium not found ({found or 'not on PATH'}): run scripts/install-browser.sh")
    return found


def _above_nine(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Browser:
    """One headless Chromium and one page, spoken to over the DevTools pipe."""

    def __init__(self, binary: str, profile: Path) -> None:
        to_child, self._to_browser = os.pipe()
        self._from_browser, from_child = os.pipe()
        # Above 9 so the redirections below never overwrite or close one of our own ends as fd 3 or 4.
        to_child, from_child = _above_nine(to_child), _above_nine(from_child)
        # bash (dash takes single-digit fds only) moves our pipe ends to the fd numbers Chromium expects
        # (3: commands in, 4: replies out).
        script = f'exec "$@" 3<&{to_child} 4>&{from_child} {to_child}<&- {from_child}>&-'
        self.process = subprocess.Popen(
            ["bash", "-c", script, "bash", binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(to_child, from_child),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(0.0, remaining))
            if not ready:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                stderr = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise RuntimeError(f"Chromium closed the DevTools pipe:\n{stderr[-2000:]}")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if not browser:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + WAIT
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while True:
            for event in self.events:
                if event["method"] == method:
                    self.events.remove(event)
                    return event
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append(message)

    def open_page(self) -> None:
        targets = self.send("Target.getTargets", browser=True)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        attached = self.send(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, browser=True
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1440, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
        )

    def load(self, path: Path) -> None:
        self.events.clear()
        self.send("Page.navigate", {"url": path.as_uri()})
        self.wait_event("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise AssertionError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the element's centre, after scrolling it into view."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()"
        )
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1},
            )

    def press(self, key: str, code: str, key_code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            params = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code}
            if kind == "keyDown" and key == "Enter":
                params["text"] = "\r"
            self.send("Input.dispatchKeyEvent", params)

    def screenshot(self, name: str, *, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.js(
                "({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size["w"], "height": min(size["h"], 6000), "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        OUTPUT.mkdir(parents=True, exist_ok=True)
        path = OUTPUT / name
        path.write_bytes(base64.b64decode(data))
        return path

    def problems(self) -> list[str]:
        """Script exceptions, console errors (CSP violations among them) and any request beyond the file."""
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"console: {params['entry']['text']}")
            elif method == "Runtime.consoleAPICalled" and params["type"] == "error":
                found.append(f"console.error: {params['args']}")
            elif method == "Network.requestWillBeSent" and not params["request"]["url"].startswith("file:"):
                found.append(f"request: {params['request']['url']}")
        return found

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.send("Browser.close", browser=True)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    binary = chromium_binary()
    with tempfile.TemporaryDirectory(prefix="assay-chromium-") as profile:
        session = Browser(binary, Path(profile))
        try:
            session.open_page()
            yield session
        finally:
            session.close()


def demo_result(tmp_path: Path, brain: str) -> Result:
    """The example's recorded answers scored as `make demo` does (model judge from cassettes)."""
    out = tmp_path / brain
    args = ["score", str(EXAMPLE), "--answers", str(EXAMPLE / "answers" / brain), "--run-name", brain]
    args += [
        "--cassettes",
        str(EXAMPLE / "cassettes"),
        "--judge-model",
        "example-judge",
        "--out",
        str(out),
        "-q",
    ]
    assert main(args) in (0, 1)
    return Result.model_validate_json((out / "result.json").read_text())


def page_for(result: Result, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text(render_report(result), encoding="utf-8")
    return path


def test_blocked_report_loads_offline_and_a_click_opens_the_ticket(browser: Browser, tmp_path: Path) -> None:
    result = demo_result(tmp_path, "v0")
    browser.load(page_for(result, tmp_path, "v0.html"))

    assert browser.js("document.title").startswith("Assay report — Blocked")
    assert "Blocked" in browser.js("document.querySelector('.verdict-word').textContent")
    assert browser.js("document.querySelectorAll('button.tile').length") == len(result.tickets)
    assert browser.js("document.getElementById('detail').hidden") is True
    browser.screenshot("report-v0-top.png")

    failing = next(i for i, t in enumerate(result.tickets) if not t.passed)
    ticket = result.tickets[failing]
    browser.click(f"#tile-{failing}")
    state = browser.js(
        """(() => { const p = document.getElementById('detail'), r = p.getBoundingClientRect();
        return {hidden: p.hidden, display: getComputedStyle(p).display, width: r.width, height: r.height,
        text: p.innerText, expanded: document.getElementById('TILE').getAttribute('aria-expanded'),
        focus: document.activeElement.id}; })()""".replace("TILE", f"tile-{failing}")
    )
    assert state["hidden"] is False and state["display"] != "none"
    assert state["width"] > 300 and state["height"] > 300
    assert state["expanded"] == "true"
    assert state["focus"] == "detail-title"
    text = state["text"]
    rep = ticket.repetitions[0]
    assert rep.answer is not None
    assert rep.answer.strip().splitlines()[0] in text
    for verdict in rep.judges.values():
        if verdict.reason:
            assert verdict.reason in text
    assert ticket.key is not None
    for article in ticket.key.get("kb") or []:
        assert article in text
    assert "Answer key" in text and ticket.question.strip().splitlines()[0] in text
    browser.screenshot("report-v0-detail.png")

    browser.press("Escape", "Escape", 27)
    assert browser.js("document.getElementById('detail').hidden") is True
    assert browser.js("document.activeElement.id") == f"tile-{failing}"

    browser.click("#only-failing")
    visible = "[...document.querySelectorAll('button.tile')].filter(t => t.offsetParent !== null).length"
    assert browser.js(visible) == sum(1 for t in result.tickets if not t.passed)
    assert browser.problems() == []


def test_keyboard_opens_a_tile_and_the_passing_report_reads_pass(browser: Browser, tmp_path: Path) -> None:
    result = demo_result(tmp_path, "v1")
    browser.load(page_for(result, tmp_path, "v1.html"))
    assert "Pass" in browser.js("document.querySelector('.verdict-word').textContent")

    browser.screenshot("report-v1-full.png", full_page=True)
    browser.js("document.getElementById('tile-0').focus()")
    browser.press("Enter", "Enter", 13)
    assert browser.js("document.getElementById('detail').hidden") is False
    assert result.tickets[0].id in browser.js("document.getElementById('detail-title').textContent")
    browser.screenshot("report-v1-detail.png")
    assert browser.problems() == []


def test_untrusted_answers_stay_text(browser: Browser, tmp_path: Path) -> None:
    result = demo_result(tmp_path, "v0")
    hostile = (
        "<script>window.pwned = 1</script></script><script>window.pwned = 2</script>\n"
        '<img src="https://example.com/x.png" onerror="window.pwned = 3"> <!-- <b>bold?</b>'
    )
    ticket = result.tickets[0]
    rep = ticket.repetitions[0].model_copy(update={"answer": hostile})
    tickets = [ticket.model_copy(update={"repetitions": [rep], "question": "</script><b>q</b>"})]
    page = page_for(result.model_copy(update={"tickets": tickets + result.tickets[1:]}), tmp_path, "x.html")
    browser.load(page)
    browser.click("#tile-0")
    shown = browser.js(
        "document.querySelector('#detail-body .text:not(:first-of-type), #detail-body .rep .text')"
        ".textContent"
    )
    assert shown == hostile
    assert browser.js("typeof window.pwned") == "undefined"
    assert browser.js("document.querySelectorAll('#detail img, #detail b, #detail-body script').length") == 0
    assert browser.problems() == []


def test_repetitions_grid_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    from tests.unit.test_report import synthetic

    result = synthetic(tickets=40, k=5)
    browser.load(page_for(result, tmp_path, "reps.html"))
    assert browser.js("document.querySelectorAll('table.grid tbody tr').length") == 40
    assert browser.js("document.querySelectorAll('table.grid td.g').length") == 200
    browser.click("#tile-3")
    assert browser.js("document.querySelectorAll('#detail details.rep').length") == 5
    browser.screenshot("report-reps.png")
    browser.press("Escape", "Escape", 27)
    browser.js("document.getElementById('reps-h').scrollIntoView()")
    browser.screenshot("report-reps-grid.png")
    assert browser.problems() == []
