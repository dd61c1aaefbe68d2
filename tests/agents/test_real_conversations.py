"""Each real, pinned CLI continues its own session from turn to turn (issue 40), against the scripted model
server, in a network namespace of its own (tests/support/agents/isolated_turns.py).

Two cells, each a two-turn conversation (the model asks which router; the customer names it; the model
answers), their turns interleaved, each cell in its own workspace, Landlock sandbox and metering-proxy URL,
as the runner plays them. The model server's requests on the second turn hold the first turn's messages —
the question, the tool call and its result, the model's closing words — so the CLI continued its session
rather than starting a new one; each turn's reply is what it wrote to answer.md on that turn; each turn's
usage is what the server reported for that turn's calls, and the proxy counted both turns for the cell.
Each cell's HOME holds its own session and no other, and a cell that is told to continue another cell's
session does not find it: the turn fails before any model call. Cost: 15 CLI runs, 40 s on 2
shared cores (OpenCode's start is most of it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import AGENTS_BIN

pytestmark = pytest.mark.agents

ROOT = Path(__file__).resolve().parents[2]
ISOLATED_TURNS = ROOT / "tests" / "support" / "agents" / "isolated_turns.py"
PRESETS = ["opencode", "claude-code", "codex"]
MODEL = "assay-scripted-model"
ASK = "Which router do you have? Please send its model name."
ASKED = "I asked the customer which router they have."
REPLY = "It is a TP-Link Archer AX55."
FIX = "Hold the reset button of your TP-Link Archer AX55 for 10 seconds [KB-1]."
FIXED = "I wrote the fix to answer.md."
NOT_FOUND = {
    "claude-code": "No conversation found with session ID",
    "codex": "no rollout found for thread id",
    "opencode": "Session not found",
}
"""What each CLI says when asked to continue a session its HOME does not hold."""
CELLS = [
    {"id": "T-ALPHA", "question": "My router keeps dropping the connection (ticket alpha)."},
    {"id": "T-BRAVO", "question": "My wifi stops every evening (ticket bravo)."},
]


def converse(tmp_path: Path, agent: str, *, cross: bool = True, timeout: float = 120) -> dict[str, Any]:
    spec = {
        "agent": agent,
        "model": MODEL,
        "cells": CELLS,
        "turns": [
            [{"write": ["answer.md", ASK]}, {"say": ASKED}],
            [{"write": ["answer.md", FIX]}, {"say": FIXED}],
        ],
        "replies": [REPLY],
        "timeout": timeout,
        "cross": cross,
        "work": str(tmp_path / "work"),
        "record": str(tmp_path / "record.json"),
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    # The CLIs first on PATH (the agents' PATH is the runner's), the tree under test first on the path.
    env = {
        **os.environ,
        "PATH": f"{AGENTS_BIN}:{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "PYTHONPATH": ":".join([str(ROOT / "runner"), str(ROOT / "dev"), str(ROOT)]),
    }
    done = subprocess.run(
        ["unshare", "--net", "--mount", sys.executable, str(ISOLATED_TURNS), str(tmp_path / "spec.json")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert done.returncode == 0, f"the conversation failed:\n{done.stdout}\n{done.stderr}"
    record: dict[str, Any] = json.loads((tmp_path / "record.json").read_text())
    return record


def requests_of(record: dict[str, Any], turn: dict[str, Any]) -> list[dict[str, Any]]:
    first, last = turn["requests"]
    return list(record["requests"][first:last])


def conversation(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests of the agent's conversation (those offering tools), not titles or side calls."""
    return [r for r in requests if r["body"].get("tools")]


def history(request: dict[str, Any]) -> str:
    body = request["body"]
    return json.dumps(body.get("messages") or body.get("input"))


@pytest.mark.parametrize("agent", PRESETS)
def test_each_cli_continues_its_own_session_within_its_cell(agent: str, tmp_path: Path) -> None:
    record = converse(tmp_path, agent)
    assert record["problems"] == []
    assert record["attempts"] == []  # nothing but the model server was tried
    cells = record["cells"]
    for cell, other in ((CELLS[0], CELLS[1]), (CELLS[1], CELLS[0])):
        played = cells[cell["id"]]
        opening, later = played["turns"]
        transcripts = f"{opening['transcript']}\n{later['transcript']}"
        assert [opening["exit_code"], later["exit_code"]] == [0, 0], transcripts
        # Each turn's reply is the answer.md it wrote on that turn.
        assert [opening["answer"], later["answer"]] == [ASK, FIX]
        assert opening["session"] and later["session"] == opening["session"]
        assert opening["isolation"]["landlockAbi"] > 0  # both turns in the cell's sandbox
        assert later["isolation"] == opening["isolation"]
        # Proof the session was continued, not restarted: every model request of the second turn carries
        # the first turn's messages (the ticket, the tool call writing the question, the closing words).
        second = conversation(requests_of(record, later))
        assert len(second) == 2  # the write, then the closing words (a restarted CLI would play turn 0)
        for request in second:
            text = history(request)
            assert cell["question"] in text and ASK in text and ASKED in text and REPLY in text
            assert other["question"] not in text  # nothing of the other cell
        first = conversation(requests_of(record, opening))
        assert len(first) == 2 and all(REPLY not in history(r) for r in first)
        # Each turn's usage is what the server reported for that turn's calls (Codex's running total on a
        # resumed thread made per turn), and the metering proxy counted both turns for the cell.
        for turn in (opening, later):
            served = [r["usage"] for r in requests_of(record, turn) if r["usage"]]
            assert turn["usage"] == [sum(u[0] for u in served), sum(u[1] for u in served)]
        assert played["metered"] == [
            opening["usage"][0] + later["usage"][0],
            opening["usage"][1] + later["usage"][1],
        ]
        # The turn's trajectory is that turn's steps only: one write of answer.md.
        assert [action for action, _paths in later["tools"]] == ["write"]
    # Each cell's HOME holds its own session, never the other's.
    alpha, bravo = (cells[c["id"]] for c in CELLS)
    assert alpha["session"] != bravo["session"]
    assert alpha["home_holds"] == [alpha["session"]]
    assert bravo["home_holds"] == [bravo["session"]]
    # Told to continue the other cell's session, a cell's CLI does not find it (it lives in the other cell's
    # HOME): the turn fails, saying so, before any model call.
    cross = bravo["cross"]
    assert cross["exit_code"] != 0 and cross["answer"] is None
    assert requests_of(record, cross) == []
    assert NOT_FOUND[agent] in cross["transcript"]
