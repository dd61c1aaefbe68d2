"""The report's conversation view in a real headless Chromium: a conversational ticket's panel shows each
turn in order (who said it, what it asked for or revealed, what it cost), how the conversation ended, and the
run's facts show what the conversations cost, agent and customer apart. Screenshots go to tests/output/."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer
from assay_runner.contract import Result
from tests.browser.test_report_browser import Browser, browser, page_for
from tests.support.conversations import (
    ASKING,
    FIX,
    ROUTER_SAYS,
    agent_script,
    brain,
    conversation_of,
    conversation_suite,
    model_customer,
    run_conversation,
    with_turn_steps,
)

__all__ = ["browser"]
pytestmark = pytest.mark.browser

PANEL = """(() => { const s = document.querySelector('#detail .conversation');
  if (!s) return null;
  const items = [...s.querySelectorAll('ol.talk > li')];
  return {summary: s.querySelector('p').textContent, bad: s.querySelector('p').className,
          heads: items.map(li => li.querySelector('.st-head').textContent),
          texts: items.map(li => li.querySelector('.text').textContent),
          kinds: items.map(li => li.className),
          visible: s.getBoundingClientRect().height > 100}; })()"""


def conversed(tmp_path: Path, asks: bool) -> Result:
    suite = conversation_suite(tmp_path / "suite", played_by="model")
    prices = ["--price", "agent-m=2,8", "--price", "judge-m=1,2"]
    with ChatServer(agent_script(asks=asks, customer=model_customer)) as server:
        _, result = run_conversation(
            suite, brain(tmp_path / "brain"), tmp_path / "out", "--gateway", server.url, *prices
        )
    return result


def test_the_ticket_panel_shows_the_turns_and_the_cost_apart(browser: Browser, tmp_path: Path) -> None:
    result = conversed(tmp_path, asks=True)
    record = conversation_of(result)
    browser.load(page_for(result, tmp_path, "conversation.html"))
    facts = browser.js("document.querySelector('.facts').innerText")
    cost = result.conversations
    assert cost is not None and cost.customer.cost_usd > 0
    assert "Conversations" in facts and f"customer {cost.customer.input_tokens:,} input" in facts
    assert f"${cost.customer.cost_usd:.4f}" in facts and f"agent {cost.agent.input_tokens:,} input" in facts
    browser.click("#tile-0")
    shown = browser.js(PANEL)
    assert shown is not None, "no conversation in the panel"
    assert shown["visible"] and "ko-text" not in shown["bad"]
    assert shown["summary"].startswith("2 of 3 agent turns · answered · agent tokens 400 in")
    assert "customer (model customer judge-m) tokens 30 in" in shown["summary"]
    assert shown["kinds"] == ["by-customer", "by-agent", "by-customer", "by-agent"]
    assert shown["texts"][1].strip() == ASKING.strip() and shown["texts"][2] == ROUTER_SAYS
    assert "Agent · turn 0" in shown["heads"][1] and "asked for router" in shown["heads"][1]
    assert "Customer · turn 1" in shown["heads"][2] and "revealed router" in shown["heads"][2]
    assert len(shown["texts"]) == len(record.turns)
    panel = browser.js("document.getElementById('detail').innerText")
    assert f"router: “{ROUTER_SAYS}” (asked when: router model, which router, what router)" in panel
    browser.js("document.querySelector('#detail .conversation').scrollIntoView()")
    browser.screenshot("report-conversation-asks.png")
    assert browser.problems() == []


def test_a_conversation_cut_short_reads_as_blocked(browser: Browser, tmp_path: Path) -> None:
    result = conversed(tmp_path, asks=False)
    browser.load(page_for(result, tmp_path, "guess.html"))
    browser.click("#tile-0")
    shown = browser.js(PANEL)
    assert shown is not None and "ko-text" in shown["bad"]
    reason = "the turn limit (3 agent turns) was reached with router still unsaid"
    assert f"3 of 3 agent turns · ended: {reason}" in shown["summary"]
    assert shown["texts"][2] == "That did not work." and FIX not in shown["texts"]
    assert reason in browser.js("document.getElementById('detail').innerText")
    browser.screenshot("report-conversation-guess.png")
    assert browser.problems() == []


def test_each_agent_turn_shows_its_own_steps(browser: Browser, tmp_path: Path) -> None:
    # A CLI's run keeps a trajectory per agent turn; the chat agent's real result is given one per turn.
    result = with_turn_steps(conversed(tmp_path, asks=True), ["KB-1", "KB-7"])
    browser.load(page_for(result, tmp_path, "turn-steps.html"))
    browser.click("#tile-0")
    browser.js("document.querySelectorAll('#detail .turn-steps').forEach(d => d.open = true)")
    shown = browser.js(
        """[...document.querySelectorAll('#detail ol.talk > li')].map(li => {
             const own = li.querySelector('.turn-steps');
             const heads = own ? [...own.querySelectorAll('ol.traj > li .st-head b')] : [];
             return own && {sum: own.querySelector('summary').textContent,
                            steps: heads.map(b => b.textContent),
                            visible: own.getBoundingClientRect().height > 40}; })"""
    )
    assert shown[0] is None and shown[2] is None  # the customer's turns have no steps
    for own in (shown[1], shown[3]):
        assert own["visible"] and own["sum"].startswith("Steps · codex · 2 steps · 1 tool calls")
        assert own["steps"][0] == "model" and "read" in own["steps"][1]
    texts = browser.js(PANEL)["texts"]  # the turn's own text is still the turn's first text
    assert texts[1].strip() == ASKING.strip()
    browser.js("document.querySelector('#detail .turn-steps').scrollIntoView()")
    browser.screenshot("report-conversation-turn-steps.png")
    assert browser.problems() == []
