"""The report's trajectory view in a real headless Chromium: for one ticket answered by each CLI (the real
outputs of the pinned OpenCode, Claude Code and Codex, tests/data/trajectories), the ticket panel lists the
steps in order — model turns, each tool call with what it named and, opened, what it returned — and the
trajectory judges' verdicts. Screenshots go to tests/output/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay_runner.agents.trajectory import claude_code, codex, opencode
from assay_runner.cli import main
from assay_runner.contract import Result, ToolCall, Trajectory
from tests.browser.test_report_browser import Browser, browser, page_for

__all__ = ["browser"]  # the fixture, shared with the report's own browser test
pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support-desk"
DATA = ROOT / "tests" / "data" / "trajectories"
PARSERS = {"opencode": opencode.parse, "claude-code": claude_code.parse, "codex": codex.parse}
TICKETS = {"T-001": "opencode", "T-002": "claude-code", "T-003": "codex"}


def real_trajectory(agent: str) -> Trajectory:
    data = json.loads((DATA / f"{agent}.json").read_text())
    stdout = data["stdout"]
    found = PARSERS[agent](
        stdout, [round(0.05 * i, 3) for i in range(len(stdout.splitlines()))], data["root"]
    )
    assert found is not None
    return found


def scored_with_trajectories(tmp_path: Path) -> Result:
    tree = tmp_path / "answers"
    shutil.copytree(EXAMPLE / "answers" / "v1", tree)
    for ticket, agent in TICKETS.items():
        (tree / ticket / "trajectory.json").write_text(real_trajectory(agent).to_json())
    out = tmp_path / "out"
    args = ["score", str(EXAMPLE), "--answers", str(tree), "--run-name", "three-clis", "-q"]
    args += ["--cassettes", str(EXAMPLE / "cassettes"), "--judge-model", "example-judge", "--out", str(out)]
    assert main(args) in (0, 1)
    return Result.model_validate_json((out / "result.json").read_text())


def test_one_ticket_per_cli_shows_its_trajectory(browser: Browser, tmp_path: Path) -> None:
    result = scored_with_trajectories(tmp_path)
    browser.load(page_for(result, tmp_path, "trajectories.html"))
    for ticket_id, agent in TICKETS.items():
        index = next(i for i, t in enumerate(result.tickets) if t.id == ticket_id)
        cell = result.tickets[index].repetitions[0]
        trajectory = cell.trajectory
        assert trajectory is not None
        browser.click(f"#tile-{index}")
        shown = browser.js(
            """(() => { const s = document.querySelector('#detail .trajectory');
            if (!s) return null;
            const items = [...s.querySelectorAll('ol.traj > li')];
            return {summary: s.querySelector('p').textContent,
                    heads: items.map(li => li.querySelector('.st-head').textContent),
                    kinds: items.map(li => li.className),
                    visible: s.getBoundingClientRect().height > 100}; })()"""
        )
        assert shown is not None, f"{ticket_id}: no trajectory in the panel"
        assert shown["visible"]
        calls = trajectory.tool_calls()
        assert shown["summary"].startswith(
            f"{agent} · {len(trajectory.steps)} steps · {len(calls)} tool calls"
        )
        assert len(shown["heads"]) == len(trajectory.steps)
        tool_heads = [h for h, k in zip(shown["heads"], shown["kinds"], strict=True) if "s-tool" in k]
        assert [h.split(" · ")[0] for h in tool_heads] == [c.tool for c in calls]
        read = next(c for c in calls if c.action == "read")
        assert any(f"{read.tool} · read {read.paths[0]}" in h for h in tool_heads)
        # A tool's result opens under it: the read returned the article with its code.
        opened = browser.js(
            """(() => { const d = [...document.querySelectorAll('#detail ol.traj > li.s-tool details')];
            d.forEach(x => x.open = true);
            return d.map(x => x.innerText); })()"""
        )
        assert any(
            "ZX-" in text and read.paths[0].split("/")[1].removesuffix(".md") in text for text in opened
        )
        panel = browser.js("document.getElementById('detail').innerText")
        for name in ("read_before_citing", "tool_use"):
            assert cell.judges[name].applicable and cell.judges[name].reason in panel
        browser.js("document.querySelector('#detail .trajectory').scrollIntoView()")
        browser.screenshot(f"report-trajectory-{agent}.png")
        browser.press("Escape", "Escape", 27)
    # A ticket whose answer came without a trajectory has no such section, and its trajectory judges say why.
    plain = next(i for i, t in enumerate(result.tickets) if t.id == "T-004")
    browser.click(f"#tile-{plain}")
    assert browser.js("document.querySelector('#detail .trajectory')") is None
    assert "kept no trajectory" in browser.js("document.getElementById('detail').innerText")
    assert browser.problems() == []


def test_a_failed_tool_call_reads_as_failed(browser: Browser, tmp_path: Path) -> None:
    result = scored_with_trajectories(tmp_path)
    ticket = next(t for t in result.tickets if t.id == "T-003")
    cell = ticket.repetitions[0]
    assert cell.trajectory is not None
    broken = cell.trajectory.model_copy(
        update={
            "steps": [ToolCall(tool="read", action="read", paths=["kb/KB-9.md"], ok=False, result="ENOENT")]
        }
    )
    ticket.repetitions[0] = cell.model_copy(update={"trajectory": broken})
    browser.load(page_for(result, tmp_path, "failed.html"))
    browser.click(f"#tile-{result.tickets.index(ticket)}")
    item = browser.js(
        "(() => { const li = document.querySelector('#detail ol.traj > li');"
        " return {cls: li.className, head: li.querySelector('.st-head').textContent}; })()"
    )
    assert "bad" in item["cls"] and item["head"].startswith("✘ read · read kb/KB-9.md")
    assert "1 failed" in browser.js("document.querySelector('#detail .trajectory p').textContent")
