"""Conversations with a real agent CLI, turn by turn, against the scripted model server, in a network
namespace of their own (as isolated_run.py, whose blackhole records every attempt to leave loopback).

Usage: unshare --net --mount python isolated_turns.py SPEC.json  (as root).

Each cell is played as the runner plays one: a workspace of its own (WorkspaceFactory), the run's Landlock
sandbox, a URL and credential of its own at the metering proxy, and `CommandAgent.turn` for the opening turn
(the cell's question) and each customer reply. The cells' turns are interleaved (every cell's turn 0, then
every cell's turn 1, ...), so a CLI that continued "the latest session" instead of its own would show.
With `"cross": true`, the last cell then continues the first cell's session in its own workspace: a
session id must mean nothing outside the cell that made it.

SPEC.json: {"agent", "model", "cells": [{"id", "question"}], "turns": [[step, ...], ...] (per turn, the
steps of isolated_run.py's script; each turn ends with one "say"), "replies": [customer message per later
turn], "timeout": seconds per conversation, "cross": bool, "work": folder, "record": where to write it}.
The record: per cell, each turn's outcome and the range of the server's requests it made, the cell's usage as
the proxy counted it, and which sessions' ids occur in the cell's HOME; the server's requests and problems;
the blackhole's attempts.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from assay_dev.servers.model_server import CustomerTurns, ModelServer
from assay_runner.agents.base import AgentOutcome, Turn, Workspace
from assay_runner.agents.command import CommandAgent
from assay_runner.agents.presets import CUSTOMER_REPLIED, preset
from assay_runner.agents.workspace import HOME_DIR, WorkspaceFactory
from assay_runner.contract import ToolCall
from assay_runner.gateway.metering.ledger import Ledger
from assay_runner.gateway.metering.proxy import MeteringProxy
from assay_runner.sandbox import landlock
from assay_runner.sandbox.policy import Sandbox
from assay_runner.suite.models import Ticket

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from tests.support.agents.blackhole import Blackhole
from tests.support.agents.isolated_run import step_of

KB = {"KB-1": "# KB-1: Routers\nHold the reset button of a TP-Link router for 10 seconds.\n"}


def outcome_record(outcome: AgentOutcome, requests: tuple[int, int]) -> dict[str, Any]:
    trajectory = outcome.trajectory
    return {
        "exit_code": outcome.exit_code,
        "answer": outcome.answer,
        "session": outcome.session,
        "usage": None if outcome.usage is None else [outcome.usage.input_tokens, outcome.usage.output_tokens],
        "error": outcome.error,
        "timed_out": outcome.timed_out,
        "transcript": outcome.transcript[-6000:],
        "tools": None
        if trajectory is None
        else [[step.action, step.paths] for step in trajectory.steps if isinstance(step, ToolCall)],
        "isolation": None
        if outcome.isolation is None
        else outcome.isolation.model_dump(mode="json", by_alias=True),
        "requests": list(requests),
    }


def holding(home: Path, needles: list[str]) -> list[str]:
    """Which of `needles` occur in any file under `home` (a CLI's session store: JSONL files, SQLite)."""
    found: set[str] = set()
    for path in home.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        found.update(needle for needle in needles if needle.encode() in data)
    return sorted(found)


async def play(spec: dict[str, Any], server: ModelServer, work: Path) -> dict[str, Any]:
    factory = WorkspaceFactory(work / "cells", None, KB)
    sandbox = Sandbox(landlock.abi(), [str(work / "record")])
    agent = CommandAgent(
        preset(spec["agent"]),
        model=spec["model"],
        gateway=server.url,
        timeout=spec["timeout"],
        sandbox=sandbox,
    )
    tickets = [Ticket(id=cell["id"], split="validation", question=cell["question"]) for cell in spec["cells"]]
    cells: dict[str, dict[str, Any]] = {t.id: {"turns": []} for t in tickets}
    workspaces: dict[str, Workspace] = {}
    sessions: dict[str, str | None] = {}
    async with MeteringProxy(server.url, Ledger()) as proxy:
        for ticket in tickets:
            access = proxy.open_cell(ticket.id, None)
            made = factory.create(ticket, 0)
            workspaces[ticket.id] = replace(made, gateway=access.url, gateway_key=access.key)
            cells[ticket.id]["workspace"] = str(made.root)
        messages = [None, *spec["replies"]]
        for index, message in enumerate(messages):
            for ticket in tickets:
                turn = Turn(index, message or ticket.question, sessions.get(ticket.id))
                first = len(server.requests)
                outcome = await agent.turn(ticket, 0, workspaces[ticket.id], turn)
                await proxy.ledger.quiet(ticket.id, 30.0)
                sessions[ticket.id] = outcome.session
                cells[ticket.id]["turns"].append(outcome_record(outcome, (first, len(server.requests))))
        if spec.get("cross"):
            owner, other = tickets[0], tickets[-1]
            first = len(server.requests)
            turn = Turn(len(messages), spec["replies"][-1], sessions[owner.id])
            outcome = await agent.turn(other, 0, workspaces[other.id], turn)
            await proxy.ledger.quiet(other.id, 30.0)
            cells[other.id]["cross"] = outcome_record(outcome, (first, len(server.requests)))
        for ticket in tickets:
            proxy.close_cell(ticket.id)
            usage = proxy.ledger.cell(ticket.id).usage()
            cells[ticket.id]["metered"] = [usage.input_tokens, usage.output_tokens]
    ids = [s for s in sessions.values() if s]
    for ticket in tickets:
        cells[ticket.id]["home_holds"] = holding(workspaces[ticket.id].root / HOME_DIR, ids)
        cells[ticket.id]["session"] = sessions[ticket.id]
    sandbox.close()
    return cells


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    work = Path(spec["work"])
    work.mkdir(parents=True, exist_ok=True)
    (work / "record").mkdir(exist_ok=True)
    blackhole = Blackhole()
    blackhole.open(work / "resolv.conf")
    turns = [[step_of(step) for step in turn] for turn in spec["turns"]]
    chooser = CustomerTurns(turns, CUSTOMER_REPLIED)
    with ModelServer(chooser, model=spec["model"]) as server:
        cells = asyncio.run(play(spec, server, work))
        record = {
            "cells": cells,
            "requests": [
                {
                    "path": r.path,
                    "body": r.body,
                    "status": r.status,
                    "usage": None if r.usage is None else [r.usage.prompt_tokens, r.usage.output_tokens],
                }
                for r in server.requests
            ],
            "problems": server.problems,
        }
    record["attempts"] = [str(a) for a in blackhole.close()]
    Path(spec["record"]).write_text(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
