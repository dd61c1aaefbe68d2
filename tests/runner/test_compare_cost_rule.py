"""The best-scoring candidate refused for cost: two real runs (the chat agent against a chat-completions
server on loopback) under a suite whose gate limits a run's cost (`maxRunCostUsd`), then `assay compare`. The
better answers cost more than the limit: that run is Blocked by its own gate, and the comparison does not
promote it, saying why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import Result

FULL = "## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nDone.\n"
TERSE = "See [KB-1]. Open Settings > Export."
"""Right, but without the sections the format judge asks for: a lower score."""
LIMIT = 0.5
FORMAT = "{name: format, type: format, weight: 0.2, threshold: 0.8}"


def run(suite: Path, brain: Path, out: Path, answer: str, price: str) -> Result:
    def reply(_body: dict[str, Any]) -> Reply:
        return Reply(answer, prompt_tokens=100, completion_tokens=10)

    with ChatServer(reply) as server:
        main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "chat",
                "--model", "m", "--gateway", server.url, "--out", str(out), "--price", price,
            ]
        )  # fmt: skip
    return Result.model_validate_json((out / "result.json").read_text())


def test_the_best_scoring_candidate_over_the_run_cost_limit_is_refused(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (suite / "suite.yaml").read_text()
    gate = "gate: {minScore: 0.9, ticketFloor: 0.7}"
    assert gate in text and FORMAT in text
    # A gate both answers pass on quality (the terse one scores 0.85, its format 0.25), and a cost limit.
    text = text.replace(gate, f"gate: {{minScore: 0.6, ticketFloor: 0.5, maxRunCostUsd: {LIMIT}}}")
    text = text.replace(
        FORMAT,
        "{name: format, type: format, weight: 0.2, threshold: 0.2}",
    )
    (suite / "suite.yaml").write_text(text)
    # Six cells of 100 input tokens: $1000/M -> $0.60 (over the limit), $100/M -> $0.06.
    best = run(suite, brain, tmp_path / "best", FULL, "m=1000,0")
    frugal = run(suite, brain, tmp_path / "frugal", TERSE, "m=100,0")
    assert best.score > frugal.score
    assert best.usage.cost_usd == pytest.approx(0.6) and frugal.usage.cost_usd == pytest.approx(0.06)
    assert (best.verdict, frugal.verdict) == ("Blocked", "Pass")
    failed = [r for r in best.rules if not r.passed]
    assert failed and all("cost" in f"{r.name} {r.detail}".lower() for r in failed), failed

    paths = [str(tmp_path / name / "result.json") for name in ("best", "frugal")]
    assert main(["compare", *paths, "--key", "fully-resolved,mean,cost", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in out["candidates"]}
    assert out["highestMean"] == "best" and out["promote"] is False
    assert (rows["best"]["verdict"], rows["best"]["eligible"], rows["best"]["costUsd"]) == (
        "Blocked",
        False,
        0.6,
    )
    assert rows["frugal"]["eligible"] is True
    refused = [r for r in out["reasons"] if r.startswith("no promotion: best's own gate verdict is Blocked")]
    assert refused and "cost" in refused[0].lower(), out["reasons"]
