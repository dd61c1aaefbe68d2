"""Issue 40's must-show with each real, pinned CLI and the customer played by a model: `assay run --agent
opencode|claude-code|codex` on a conversational ticket whose customer is `playedBy: model`, on the run's
judge model (not the agent's, as the independence check asks). The scripted model server answers both: the
CLI's own protocol for the agent's model, and the customer's chat calls for the judge model
(tests/support/conversations.py's `model_customer`), each run in a network namespace of its own
(tests/support/agents/isolated_run.py).

Recorded through the cassettes (the agent's calls by the cell's metering proxy, the customer's by the run's
chat client), then replayed with the model server stopped and no gateway: the same CLI continues its session
turn by turn from the agent's cassettes while the customer's replies come from its own, giving the same
turns, judges, verdict and cost. The agent that asks passes; the one that guesses is Blocked at the turn
limit. The conversation's cost is in result.json, agent and customer apart, and is what the server reported.
Cost: 12 CLI runs, 1 to 2.5 minutes on 2 shared cores (OpenCode: 5-30 s a conversation, the others 1-6 s).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.model_server import OTHER_USAGE
from assay_runner.contract import Result
from tests.agents.test_real_agents import MODEL, PRESETS, isolated_run
from tests.support.conversations import (
    ANSWER,
    ASKING,
    GUESS,
    QUESTION,
    ROUTER_SAYS,
    brain,
    conversation_of,
    conversation_suite,
    is_customer,
    model_customer,
)

pytestmark = pytest.mark.agents

CUSTOMER_MODEL = "assay-customer-model"
PRICES = ["--price", f"{MODEL}=2,8", "--price", f"{CUSTOMER_MODEL}=1,2"]


def customer_calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in record["requests"] if r["body"].get("messages") and is_customer(r["body"])]


def record_and_replay(
    tmp_path: Path, agent: str, behaviour: str
) -> tuple[dict[str, Any], Result, dict[str, Any], Result]:
    """The run recorded against the model server, then replayed offline from its cassettes."""
    suite = conversation_suite(tmp_path / "suite", played_by="model", turn_limit=3)
    cassettes = ["--cassettes", str(tmp_path / "cassettes")]
    runs: dict[str, tuple[dict[str, Any], Result]] = {}
    for mode in ("record", "replay"):
        (tmp_path / mode).mkdir()
        runs[mode] = isolated_run(
            tmp_path / mode,
            agent,
            suite,
            brain(tmp_path / "brain"),
            {"name": "customer", "behaviour": behaviour},
            "--judge-model",
            CUSTOMER_MODEL,
            *cassettes,
            "--cassette-mode",
            mode,
            *PRICES,
            offline=mode == "replay",
        )
    (live, recorded), (offline, replayed) = runs["record"], runs["replay"]
    assert live["problems"] == [] and live["attempts"] == []
    assert offline["requests"] == [] and offline["attempts"] == []  # no server; nothing tried to reach one
    # Both sides were replayed from what was recorded: the agent's calls as the cell's proxy relayed them,
    # the customer's as the run's chat client made them (one cassette a call).
    assert list((tmp_path / "cassettes" / "exchanges" / "ASK-1").rglob("*.json")), "no agent call recorded"
    models = [json.loads(p.read_text())["request"]["model"] for p in (tmp_path / "cassettes").glob("*.json")]
    assert models == [CUSTOMER_MODEL] * len(customer_calls(live))
    return live, recorded, offline, replayed


def assert_replayed_alike(recorded: Result, replayed: Result) -> None:
    assert (replayed.verdict, replayed.score) == (recorded.verdict, recorded.score)
    before, after = conversation_of(recorded), conversation_of(replayed)
    # Every turn's words, asking, revealing and usage; not its times (its wall time, its steps' clock).
    timeless = [
        [t.model_copy(update={"wall_seconds": None, "trajectory": None}) for t in c.turns]
        for c in (before, after)
    ]
    assert timeless[1] == timeless[0]
    turn_steps = [
        [[(s.action, s.paths) for s in t.trajectory.tool_calls()] if t.trajectory else None for t in c.turns]
        for c in (before, after)
    ]
    assert turn_steps[1] == turn_steps[0]  # each agent turn's own steps, as recorded
    assert (after.ended, after.reason) == (before.ended, before.reason)
    was, now = recorded.tickets[0].repetitions[0], replayed.tickets[0].repetitions[0]
    assert now.judges == was.judges
    assert (now.answer, now.error, now.usage) == (was.answer, was.error, was.usage)
    # The CLI ran again, turn by turn (its own transcript, one write of answer.md a turn; it ran in the
    # recorded workspace, whose paths its replayed replies name).
    assert now.trajectory is not None and was.trajectory is not None
    calls = [[(c.action, c.paths) for c in t.tool_calls()] for t in (was.trajectory, now.trajectory)]
    assert calls[1] == calls[0] == [("write", ["answer.md"])] * before.agent_turns
    assert replayed.conversations == recorded.conversations


def assert_cost_as_reported(record: dict[str, Any], result: Result) -> None:
    """The conversation's cost, agent and customer apart, is what the server reported, priced by the run's
    table; the run's usage is both, with Assay's own preflight."""
    calls = customer_calls(record)
    cost = result.conversations
    assert cost is not None
    assert (cost.customer.input_tokens, cost.customer.output_tokens) == (
        OTHER_USAGE.prompt_tokens * len(calls),
        OTHER_USAGE.output_tokens * len(calls),
    )
    assert cost.customer.cost_usd == pytest.approx(
        cost.customer.input_tokens * 1e-6 + cost.customer.output_tokens * 2e-6
    )
    preflight = [r for r in record["requests"] if r["headers"].get("user-agent") == "assay-preflight"]
    by_cli = [r["usage"] for r in record["requests"] if r["usage"] and r not in preflight and r not in calls]
    agent = (sum(u[0] for u in by_cli), sum(u[1] for u in by_cli))
    assert (cost.agent.input_tokens, cost.agent.output_tokens) == agent
    assert cost.agent.cost_usd == pytest.approx((agent[0] * 2 + agent[1] * 8) / 1e6)
    talk = conversation_of(result)
    assert (talk.agent_usage, talk.customer_usage) == (cost.agent, cost.customer)
    assert [result.usage.input_tokens, result.usage.output_tokens] == record["reported_usage"]


@pytest.mark.parametrize("agent", PRESETS)
def test_the_agent_that_asks_a_model_customer_passes_and_replays_offline_alike(
    agent: str, tmp_path: Path
) -> None:
    live, recorded, offline, replayed = record_and_replay(tmp_path, agent, "asks")
    assert live["exit_code"] == offline["exit_code"] == 0, (live["stderr"], offline["stderr"])
    assert recorded.verdict == "Pass", recorded.reasons
    talk = conversation_of(recorded)
    assert talk.customer == "model" and talk.customer_model == CUSTOMER_MODEL
    # One customer call, told to reveal the router; its reply is the turn the agent's CLI continued from.
    [call] = customer_calls(live)
    assert call["body"]["model"] == CUSTOMER_MODEL and model_customer(call["body"]) == ROUTER_SAYS
    assert [(t.speaker, t.text) for t in talk.turns] == [
        ("customer", QUESTION),
        ("agent", ASKING),
        ("customer", ROUTER_SAYS),
        ("agent", ANSWER),
    ]
    assert talk.ended == "answered" and talk.turns[2].revealed == ["router"]
    assert_cost_as_reported(live, recorded)
    assert_replayed_alike(recorded, replayed)
    print(f"{agent}: recorded in {live['wall_seconds']} s, replayed in {offline['wall_seconds']} s")


@pytest.mark.parametrize("agent", PRESETS)
def test_the_agent_that_guesses_with_a_model_customer_is_blocked_and_replays_offline_alike(
    agent: str, tmp_path: Path
) -> None:
    live, recorded, offline, replayed = record_and_replay(tmp_path, agent, "guesses")
    assert live["exit_code"] == offline["exit_code"] == 1, (live["stderr"], offline["stderr"])
    assert recorded.verdict == "Blocked"
    talk = conversation_of(recorded)
    # Two customer calls, neither told to reveal anything: the model's words, "That did not work.", twice.
    calls = customer_calls(live)
    assert [model_customer(c["body"]) for c in calls] == ["That did not work."] * 2
    assert [(t.speaker, t.text) for t in talk.turns] == [
        ("customer", QUESTION),
        ("agent", GUESS),
        ("customer", "That did not work."),
        ("agent", GUESS),
        ("customer", "That did not work."),
        ("agent", GUESS),
    ]
    reason = "the turn limit (3 agent turns) was reached with router still unsaid"
    assert (talk.ended, talk.reason) == ("turnLimit", reason)
    assert recorded.tickets[0].repetitions[0].error == reason
    assert_cost_as_reported(live, recorded)
    assert_replayed_alike(recorded, replayed)
    print(f"{agent}: recorded in {live['wall_seconds']} s, replayed in {offline['wall_seconds']} s")
