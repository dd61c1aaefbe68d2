"""Latency and cost rules deciding real runs the mean alone would pass: `assay run` with real agent programs
(the fake agent, the metering tests' caller) answering every ticket well, one of them slowly or dearly,
through the runner's sandbox and metering proxy to a real model server on loopback; then `assay gate`
re-deciding the stored result with other limits, and `--verify` recomputing them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from assay_dev.servers.model_server import ModelServer
from assay_runner.cli import main
from assay_runner.contract import Result, RuleResult
from tests.runner.conftest import AGENT

CALLER = Path(__file__).resolve().parents[1] / "support" / "agents" / "caller.py"
SLOW_SECONDS = 8.0
"""T-3's answer takes at least this long (the fake agent sleeps it); the limits are half of it."""


def with_gate(suite: Path, gate: str) -> None:
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text.replace("gate: {minScore: 0.9, ticketFloor: 0.7}", gate))


def per_ticket_agent(tmp_path: Path, t3: str, others: str, programs: list[str]) -> list[str]:
    """An agent command that runs `t3` on ticket T-3 and `others` elsewhere (the prompt's first line names
    the ticket), with the programs it runs named so the sandbox lets the cell read them."""
    script = tmp_path / "agent.sh"
    script.write_text(
        f'#!/bin/sh\ncase "$(head -1 prompt.md)" in\n  *T-3*) exec {t3} ;;\n  *) exec {others} ;;\nesac\n'
    )
    script.chmod(0o755)
    return [str(script), *programs]


def read(out: Path) -> Result:
    return Result.model_validate_json((out / "result.json").read_text())


def rule(result: Result, name: str) -> RuleResult:
    return next(r for r in result.rules if r.name == name)


def test_a_latency_rule_blocks_a_run_whose_mean_passes_and_names_the_slow_ticket(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    with_gate(
        suite,
        "gate: {minScore: 0.9, ticketFloor: 0.7, maxAnswerSeconds: 4, "
        "answerSecondsPercentile: {percentile: 95, maxSeconds: 4}}",
    )
    python = sys.executable
    command = per_ticket_agent(
        tmp_path, f"{python} {AGENT} sleep {SLOW_SECONDS}", f"{python} {AGENT} good", [python, str(AGENT)]
    )
    out = tmp_path / "out"
    args = [
        "run",
        "--no-mlflow",
        "-q",
        str(suite),
        "--brain",
        str(brain),
        "--agent",
        "command",
        "--model",
        "m",
    ]
    code = main([*args, "--command", " ".join(command), "--out", str(out)])
    result = read(out)
    assert code == 1 and result.verdict == "Blocked"
    # Every answer is right: the mean, the judges and the floor all pass.
    assert result.score == pytest.approx(1.0)
    assert all(rule(result, name).passed for name in ("score", "judges", "ticketFloor", "complete"))
    slowest = rule(result, "maxAnswerSeconds")
    assert not slowest.passed and slowest.threshold == 4
    assert slowest.value is not None and slowest.value >= SLOW_SECONDS
    assert slowest.offenders[0] == "T-3"  # the slowest first
    assert "T-3#1" in slowest.detail
    wall = next(t for t in result.tickets if t.id == "T-3").repetitions[0].wall_seconds
    assert wall is not None and wall >= SLOW_SECONDS and slowest.value == wall
    # 6 cells: the 95th percentile by nearest rank is the 6th smallest, T-3's.
    p95 = rule(result, "answerSecondsPercentile")
    assert not p95.passed and p95.value == wall
    assert "p95 (nearest rank of 6 cells)" in p95.detail and "T-3" in p95.offenders
    assert any(reason.startswith("maxAnswerSeconds: ") for reason in result.reasons)
    print(f"maxAnswerSeconds: {slowest.detail}\nanswerSecondsPercentile: {p95.detail}")
    assert "Every answer within the time limit" in (out / "report.html").read_text()

    # The same answers, re-gated with limits the slow answer meets: the verdict the mean gives, Pass.
    relaxed = tmp_path / "relaxed"
    limits = ["--max-answer-seconds", "1000", "--answer-seconds-percentile", "95:1000"]
    assert main(["gate", str(out / "result.json"), *limits, "--out", str(relaxed), "-q"]) == 0
    assert read(relaxed).verdict == "Pass" and rule(read(relaxed), "maxAnswerSeconds").passed

    # --verify judges the stored answers again and recomputes the limits from the stored wall times.
    verified = tmp_path / "verified"
    assert (
        main(["gate", str(out / "result.json"), "--verify", "--suite", str(suite), "--out", str(verified)])
        == 1
    )
    again = read(verified)
    assert rule(again, "verified").passed
    assert not rule(again, "maxAnswerSeconds").passed and rule(again, "maxAnswerSeconds").value == wall


def run_callers(
    suite: Path, brain: Path, tmp_path: Path, server: ModelServer, *extra: str
) -> tuple[int, Result]:
    """Every ticket answered well by the caller agent through the metering proxy: T-3 after five model
    calls, the others after one."""
    python = sys.executable
    command = per_ticket_agent(
        tmp_path, f"{python} {CALLER} chat 5", f"{python} {CALLER} chat 1", [python, str(CALLER)]
    )
    out = tmp_path / "out"
    args = [
        "run",
        "--no-mlflow",
        "-q",
        str(suite),
        "--brain",
        str(brain),
        "--agent",
        "command",
        "--model",
        "m",
    ]
    code = main([*args, "--command", " ".join(command), "--gateway", server.url, "--out", str(out), *extra])
    return code, read(out)


def test_a_cost_rule_blocks_a_run_whose_mean_passes_and_names_the_dear_ticket(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    with_gate(suite, "gate: {minScore: 0.9, ticketFloor: 0.7, maxTicketCostUsd: 1.0}")
    with ModelServer([], model="m") as server:
        # $1000 per million input tokens: each call's 300 prompt tokens cost $0.30.
        code, result = run_callers(suite, brain, tmp_path, server, "--price", "m=1000,0")
        assert server.problems == []
    assert code == 1 and result.verdict == "Blocked"
    assert result.score == pytest.approx(1.0)
    assert all(rule(result, name).passed for name in ("score", "judges", "ticketFloor", "complete"))
    cost = rule(result, "maxTicketCostUsd")
    assert not cost.passed and cost.offenders == ["T-3"]
    dear = next(t for t in result.tickets if t.id == "T-3").repetitions[0]
    # The cell's cost is the metering proxy's count of the upstream's own usage, priced.
    assert dear.usage is not None and dear.usage.input_tokens == 5 * 300
    assert cost.value == pytest.approx(1.5) and dear.usage.cost_usd == pytest.approx(1.5)
    assert "T-3#1 $1.5" in cost.detail
    print(f"maxTicketCostUsd: {cost.detail}")
    assert result.usage.cost_usd == pytest.approx(1.5 + 5 * 0.3)

    result_path = str(tmp_path / "out" / "result.json")
    relaxed, run_limited = tmp_path / "relaxed", tmp_path / "run-limited"
    assert main(["gate", result_path, "--max-ticket-cost-usd", "2", "--out", str(relaxed), "-q"]) == 0
    limits = ["--max-ticket-cost-usd", "2", "--max-run-cost-usd", "2.5"]
    assert main(["gate", result_path, *limits, "--out", str(run_limited), "-q"]) == 1
    over = rule(read(run_limited), "maxRunCostUsd")
    assert not over.passed and over.value == pytest.approx(3.0) and "the run cost $3 > $2.5" in over.detail


def test_a_cost_rule_without_a_price_blocks_naming_the_model(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """No price table and no budget: the proxy counts the tokens and bills $0 on paper, which a cost rule
    cannot pass."""
    with_gate(suite, "gate: {minScore: 0.9, ticketFloor: 0.7, maxTicketCostUsd: 1.0, maxRunCostUsd: 5}")
    with ModelServer([], model="m") as server:
        code, result = run_callers(suite, brain, tmp_path, server)
    assert code == 1 and result.verdict == "Blocked"
    assert result.config.unpriced == ["the agent's model 'm'"]
    for name in ("maxTicketCostUsd", "maxRunCostUsd"):
        blocked = rule(result, name)
        assert not blocked.passed and "no price for the agent's model 'm'" in blocked.detail
