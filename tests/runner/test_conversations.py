"""Conversational tickets end to end: `assay run` with the chat agent against the scripted model server,
the customer scripted or played by a model through the gateway protocol on loopback (recorded, then
replayed offline with the same verdict)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from tests.support.conversations import (
    ANSWER,
    ASKING,
    FIX,
    GUESS,
    ROUTER_SAYS,
    agent_script,
    asked_then_answered,
    brain,
    conversation_of,
    conversation_suite,
    exchange,
    is_customer,
    model_customer,
    run_conversation,
)


def test_the_agent_that_asks_first_passes(tmp_path: Path) -> None:
    suite = conversation_suite(tmp_path / "suite")
    with ChatServer(agent_script(asks=True)) as server:
        code, result = run_conversation(
            suite, brain(tmp_path / "brain"), tmp_path / "out", "--gateway", server.url
        )
    assert code == 0, result.reasons
    record = conversation_of(result)
    assert exchange(record) == asked_then_answered()
    assert record.ended == "answered" and record.agent_turns == 2 and record.turns[1].asked == ["router"]
    assert record.turns[2].revealed == ["router"] and record.customer == "scripted"
    cell = result.tickets[0].repetitions[0]
    assert cell.answer == ANSWER and cell.error is None
    assert {name: cell.judges[name].score for name in ("asked", "unsaid", "turns", "facts")} == dict.fromkeys(
        ("asked", "unsaid", "turns", "facts"), 1.0
    )
    # The second call carried the whole exchange: brain, ticket, its own question, the customer's reply.
    second = server.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == ASKING and second[3]["content"] == ROUTER_SAYS
    assert record.agent_usage.input_tokens == 400 and record.customer_usage.input_tokens == 0
    assert result.conversations is not None and result.conversations.turns == 2
    assert result.usage.input_tokens == 400  # a scripted customer costs nothing


def test_the_agent_that_guesses_is_blocked_at_the_turn_limit(tmp_path: Path) -> None:
    suite = conversation_suite(tmp_path / "suite", turn_limit=3)
    with ChatServer(agent_script(asks=False)) as server:
        code, result = run_conversation(
            suite, brain(tmp_path / "brain"), tmp_path / "out", "--gateway", server.url
        )
    assert code == 1 and result.verdict == "Blocked"
    record = conversation_of(result)
    assert record.ended == "turnLimit" and record.agent_turns == 3 and len(server.requests) == 3
    assert [t.text for t in record.turns if t.speaker == "customer"][1:] == [FIX, FIX]
    reason = "the turn limit (3 agent turns) was reached with router still unsaid"
    assert record.reason == reason and result.tickets[0].repetitions[0].error == reason
    assert any(reason in line for line in result.reasons), result.reasons
    judges = result.tickets[0].repetitions[0].judges
    assert judges["asked"].score == 0.0 and judges["asked"].reason.startswith("did not ask for router")
    assert judges["turns"].score == 0.0 and reason in judges["turns"].reason
    assert judges["unsaid"].score == 1.0  # it guessed a fix, not the customer's router


def test_an_agent_that_cannot_converse_is_refused_before_the_first_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay_runner.cli import main

    suite = conversation_suite(tmp_path / "suite")
    answers = tmp_path / "answers"
    (answers / "ASK-1" / "0").mkdir(parents=True)
    (answers / "ASK-1" / "0" / "answer.md").write_text(GUESS)
    argv = ["run", "--no-mlflow", str(suite), "--agent", "replay", "--answers", str(answers)]
    assert main([*argv, "--out", str(tmp_path / "out"), "-q"]) == 2
    assert "ASK-1 are conversations, and the replay agent cannot continue one" in capsys.readouterr().err
    assert not (tmp_path / "out" / "result.json").exists()


@pytest.mark.parametrize(("asks", "code"), [(True, 0), (False, 1)])
def test_a_model_customer_is_recorded_and_replayed_offline_with_the_same_verdict(
    tmp_path: Path, asks: bool, code: int
) -> None:
    suite = conversation_suite(tmp_path / "suite", played_by="model")
    cassettes = ["--cassettes", str(tmp_path / "cassettes")]
    prices = ["--price", "agent-m=2,8", "--price", "judge-m=1,2"]
    with ChatServer(agent_script(asks=asks, customer=model_customer)) as server:
        recorded_code, recorded = run_conversation(
            suite,
            brain(tmp_path / "brain"),
            tmp_path / "a",
            "--gateway",
            server.url,
            *cassettes,
            "--cassette-mode",
            "record",
            *prices,
        )
    customer_calls = [r for r in server.requests if is_customer(r)]
    assert customer_calls and {r["model"] for r in customer_calls} == {"judge-m"}
    replayed_code, replayed = run_conversation(suite, tmp_path / "brain", tmp_path / "b", *cassettes, *prices)
    assert recorded_code == replayed_code == code, (recorded.reasons, replayed.reasons)
    before, after = conversation_of(recorded), conversation_of(replayed)
    assert before.customer == "model" and before.customer_model == "judge-m"
    assert [t.text for t in after.turns] == [t.text for t in before.turns]
    assert after.ended == before.ended and replayed.score == recorded.score
    assert replayed.tickets[0].repetitions[0].judges == recorded.tickets[0].repetitions[0].judges
    # The customer's calls are priced apart from the agent's, and both are in the run's usage.
    cost = recorded.conversations
    assert cost is not None and cost.customer.input_tokens == 30 * len(customer_calls)
    assert cost.customer.cost_usd == pytest.approx(len(customer_calls) * (30 * 1 + 10 * 2) / 1e6)
    assert cost.agent.cost_usd == pytest.approx(cost.turns * (200 * 2 + 40 * 8) / 1e6)
    assert recorded.usage.cost_usd == pytest.approx(cost.agent.cost_usd + cost.customer.cost_usd)
    # ... and so in the RunSummary the judge pod reports and the Evaluation's status.
    from assay_operator.evaluation.read.reconcile import verdict_status
    from assay_runner.core.summary import encode, summarise

    summary = summarise(recorded)
    status = verdict_status(summary)
    assert summary.conversations == cost and len(encode(summary)) <= 4096
    assert status.conversations is not None and status.conversations.turns == cost.turns
    assert status.conversations.customer.cost_usd == pytest.approx(cost.customer.cost_usd)
    assert status.conversations.agent.input_tokens == cost.agent.input_tokens


def phases_config(tmp_path: Path, **fields: str) -> dict[str, Any]:
    """What the answer and judge phases' run configs share (the brain, no MLflow, the answers folder, the
    chat agent), and `fields`."""
    return {
        "brain": str(brain(tmp_path / "brain")),
        "mlflow": {"enabled": False},
        "answersDir": str(tmp_path / "answers"),
        "agent": {"kind": "chat", "model": "agent-m"},
        **fields,
    }


def answer_asking_first(config: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    """`assay answer` with `config` (written to `path`) against the scripted model of an agent that asks
    first: it succeeds. The model requests it made."""
    from assay_runner.cli import main

    with ChatServer(agent_script(asks=True)) as server:
        path.write_text(json.dumps({**config, "gateway": server.url}))
        assert main(["answer", "--config", str(path), "-q"]) == 0
    return server.requests


def test_the_answer_phase_seals_the_conversation_and_the_judge_phase_trusts_only_that(
    tmp_path: Path,
) -> None:
    """`assay answer` then `assay score`: the conversation comes back as recorded, with the same verdict as
    one run; a conversation rewritten in cell.json afterwards breaks the cell's seal, and blocks."""
    from assay_runner.cli import main
    from assay_runner.contract import Result

    suite = conversation_suite(tmp_path / "suite")
    common = phases_config(tmp_path, suite=str(suite))
    answer_asking_first(common, tmp_path / "answer.json")
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps({**common, "output": {"dir": str(tmp_path / "out")}}))
    assert main(["score", "--config", str(judge), "-q"]) == 0
    scored = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    record = conversation_of(scored)
    assert record.ended == "answered" and [t.text for t in record.turns][2] == ROUTER_SAYS
    assert scored.conversations is not None and scored.conversations.agent.input_tokens == 400

    cell = tmp_path / "answers" / "ASK-1" / "1" / "cell.json"
    sealed = cell.read_text()
    data = json.loads(sealed)
    data["conversation"]["turns"][1]["asked"] = []  # as if the agent never had to ask
    # A turn's own trajectory is sealed with the rest: one added afterwards (as if it had read) blocks too.
    read = {"agent": "codex", "steps": [{"type": "tool", "tool": "read", "action": "read"}]}
    with_steps = json.loads(sealed)
    with_steps["conversation"]["turns"][1]["trajectory"] = read
    for n, tampered in enumerate((data, with_steps)):
        cell.write_text(json.dumps(tampered))
        judge.write_text(json.dumps({**common, "output": {"dir": str(tmp_path / f"again{n}")}}))
        assert main(["score", "--config", str(judge), "-q"]) == 1
        again = Result.model_validate_json((tmp_path / f"again{n}" / "result.json").read_text())
        error = again.tickets[0].repetitions[0].error or ""
        assert "cell.json" in error, error


MODEL_JUDGE = (
    '  - {name: quality, type: model, weight: 0.1, threshold: 3, samples: 1, rubric: "asks first"}\n'
)


def test_the_model_judge_grades_the_whole_exchange(tmp_path: Path) -> None:
    suite = conversation_suite(tmp_path / "suite")
    text = (
        (suite / "suite.yaml")
        .read_text()
        .replace(
            "gate:",
            MODEL_JUDGE + "gate:",
        )
    )
    (suite / "suite.yaml").write_text(text)
    script = agent_script(asks=True)

    def reply(body: dict[str, Any]) -> Reply:
        if str(body["messages"][0]["content"]).startswith("You grade"):
            return Reply(content=json.dumps({"score": 5, "reason": "asked for the router first"}))
        return script(body)

    with ChatServer(reply) as server:
        code, result = run_conversation(
            suite, brain(tmp_path / "brain"), tmp_path / "out", "--gateway", server.url
        )
    assert code == 0, result.reasons
    [graded] = [r for r in server.requests if r["messages"][0]["content"].startswith("You grade")]
    user = graded["messages"][1]["content"]
    exchange = user.split("<conversation>\n", 1)[1].split("\n</conversation>", 1)[0]
    assert (
        f"[agent, turn 0]\n{ASKING.strip()}" in exchange and f"[customer, turn 1]\n{ROUTER_SAYS}" in exchange
    )
    assert f"<answer>\n{ANSWER}" in user


def test_the_budget_spent_stops_the_conversation_between_turns(tmp_path: Path) -> None:
    """Turn 0 costs $0.00072 (200 and 40 tokens at $2 and $8 per million): past a $0.0005 budget, no second
    turn starts, and the cell blocks naming the budget."""
    suite = conversation_suite(tmp_path / "suite")
    with ChatServer(agent_script(asks=True)) as server:
        code, result = run_conversation(
            suite,
            brain(tmp_path / "brain"),
            tmp_path / "out",
            *("--gateway", server.url, "--price", "agent-m=2,8", "--max-cost-usd", "0.0005"),
        )
    record = conversation_of(result)
    assert code == 1 and record.ended == "budget" and record.agent_turns == 1 and len(server.requests) == 1
    assert "the budget was spent (maxCostUsd 0.0005" in record.reason
    assert result.tickets[0].repetitions[0].error == record.reason


def test_the_cells_time_limit_covers_every_turn(tmp_path: Path) -> None:
    """Each reply takes 0.6 s; the cell has 0.5 s: the first turn ends past the limit (each turn's own
    timeout is the agent's), so no second turn starts."""
    suite = conversation_suite(tmp_path / "suite")
    script = agent_script(asks=True)

    def slow(body: dict[str, Any]) -> Reply:
        return replace(script(body), delay=0.6)

    with ChatServer(slow) as server:
        code, result = run_conversation(
            suite, brain(tmp_path / "brain"), tmp_path / "out", "--gateway", server.url, "--timeout", "0.5"
        )
    record = conversation_of(result)
    assert code == 1 and record.ended == "timeLimit" and record.agent_turns == 1
    assert record.reason == "the cell's time limit (0.5 s) was reached after 1 turn(s)"


def test_an_answer_phase_given_only_the_public_part_cannot_converse_and_its_verdict_blocks(
    tmp_path: Path,
) -> None:
    """As on the cluster: the answer phase holds the public part (no key, so no customer) and answers the
    ticket as one question; the judge phase, with the key, finds no exchange and blocks (fail closed)."""
    from assay_runner.cli import main
    from assay_runner.contract import Result
    from assay_runner.judges.conversation import NO_RECORD
    from assay_runner.suite.split import split_suite

    suite = conversation_suite(tmp_path / "suite")
    public, keys = tmp_path / "public", tmp_path / "keys.yaml"
    split_suite(suite, public, keys)
    common = phases_config(tmp_path)
    requests = answer_asking_first({**common, "suite": str(public)}, tmp_path / "answer.json")
    assert len(requests) == 1  # one question, one answer: no customer to reply
    judge = tmp_path / "judge.json"
    out = {"output": {"dir": str(tmp_path / "out")}}
    judge.write_text(json.dumps({**common, **out, "suite": str(public), "keys": str(keys)}))
    assert main(["score", "--config", str(judge), "-q"]) == 1
    cell = (
        Result.model_validate_json((tmp_path / "out" / "result.json").read_text()).tickets[0].repetitions[0]
    )
    assert cell.conversation is None and cell.answer == ASKING
    for name in ("asked", "unsaid", "turns"):
        assert cell.judges[name].error == NO_RECORD
