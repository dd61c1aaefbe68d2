"""The metering proxy is the witness: an article counts as read when its content reached the model in a tool
result the proxy relayed, whatever the command's wording; the CLI's own account is kept for display, with
where it disagrees named. A real run of the Codex preset (a stand-in `codex` on PATH that runs real shell
commands in its workspace and sends their output to its model), a real proxy, a real model server."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import httpx
import pytest

from assay_dev.servers.model_server import ModelServer
from assay_runner.agents.trajectory.witness import articles_shown, normalised_kb
from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.gateway.metering.ledger import Ledger
from assay_runner.gateway.metering.proxy import MeteringProxy

FAKE_CODEX = Path(__file__).resolve().parents[1] / "support" / "agents" / "fake_codex.py"
ARTICLE = "# KB-1: Export\n" + "".join(
    f"{n}. Step {n} of the export: open Settings > Export, pick format {n * 7}, confirm batch {n * 13}.\n"
    for n in range(1, 13)
)
OTHER = "# KB-2: Billing\nInvoices are sent on the first of each month, by e-mail, to the account owner.\n"
SCENARIOS = {
    "T-head0": "head -c 0 kb/KB-1.md",
    "T-wc": "wc -c kb/KB-1.md",
    "T-grep": "grep -n 'Step 3 ' kb/KB-1.md",
    "T-glob": "cat kb/*.md",
    "T-cd": "cd kb && cat KB-1.md",
    "T-ls": "ls kb && cat kb/KB-1.md",
    "T-partial": "head -n 8 kb/KB-1.md",
    "T-nohit": "rg no-such-words kb\nrun: cat kb/KB-1.md",
}
QUESTION = "Export?\nrun: "
"""Each line of the question that starts with `run: ` is a command the stand-in Codex runs."""
SUITE = """\
name: witness
judges:
  - {name: kb, type: kb_citation, weight: 0.5, threshold: 0.9}
  - name: steps
    type: trajectory
    weight: 0.5
    threshold: 1.0
    citedArticlesRead: true
    maxFailedToolCalls: 0
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
"""


@pytest.fixture
def codex_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "codex").write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_CODEX} "$@"\n')
    (folder / "codex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{Path(sys.executable).parent}:/usr/bin:/bin")


def witness_suite(root: Path) -> Path:
    (root / "kb").mkdir(parents=True)
    (root / "kb" / "KB-1.md").write_text(ARTICLE)
    (root / "kb" / "KB-2.md").write_text(OTHER)
    tickets = "".join(
        f"  - {{id: {ticket}, split: validation, question: {json.dumps(QUESTION + command)}, "
        "key: {kb: [KB-1]}}\n"
        for ticket, command in SCENARIOS.items()
    )
    (root / "suite.yaml").write_text(SUITE + tickets)
    return root


@pytest.mark.usefixtures("codex_on_path")
def test_a_read_counts_when_the_article_reached_the_model(brain: Path, tmp_path: Path) -> None:
    suite = witness_suite(tmp_path / "suite")
    with ModelServer([], model="m") as server:
        code = main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "codex",
                "--model", "m", "--gateway", server.url, "--out", str(tmp_path / "out"), "-j", "2",
            ]
        )  # fmt: skip
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    cells = {ticket.id: ticket.repetitions[0] for ticket in result.tickets}
    assert code == 1  # the unread ones block
    steps = {ticket: cell.judges["steps"] for ticket, cell in cells.items()}
    read = {
        ticket: cell.trajectory.articles_read if cell.trajectory else None for ticket, cell in cells.items()
    }
    # Nothing of the article reached the model: an empty range, a size, one line of a search.
    for ticket in ("T-head0", "T-wc", "T-grep"):
        ran = cells[ticket].trajectory
        assert ran is not None and len(ran.tool_calls()) == 1 and ran.tool_calls()[0].ok  # the command ran
        assert read[ticket] == [] and steps[ticket].score < 1, (ticket, steps[ticket].reason)
        assert "cites KB-1 without having read it" in steps[ticket].reason
    # However worded, the article's content reached the model.
    for ticket in ("T-glob", "T-cd", "T-ls", "T-partial", "T-nohit"):
        assert "KB-1" in (read[ticket] or []) and steps[ticket].score == 1, (ticket, steps[ticket].reason)
    assert read["T-glob"] == ["KB-1", "KB-2"]
    # The CLI's own account is kept, and where it disagrees with the proxy's record it is named.
    head0 = cells["T-head0"].trajectory
    assert head0 is not None and head0.tool_calls()[0].action == "read"  # the transcript says "read"
    assert (
        "kb/KB-1.md: read in the CLI's transcript, but its content never reached the model"
        in head0.differences
    )
    glob = cells["T-glob"].trajectory
    assert glob is not None
    assert (
        "kb/KB-1.md: its content reached the model, with no read of it in the CLI's transcript"
        in glob.differences
    )
    # The model calls are the proxy's count: one per command and the final one; Codex's stream shows one turn.
    assert head0.model_calls == 2 and cells["T-nohit"].trajectory.model_calls == 3  # type: ignore[union-attr]
    assert any("shows 1 model turn(s); the proxy relayed 2" in d for d in head0.differences)
    # A search that found nothing is not a failed call (rg exits 1), as for the other two CLIs.
    nohit = cells["T-nohit"].trajectory
    assert nohit is not None and nohit.tool_calls()[0].action == "search" and nohit.tool_calls()[0].ok


CLAUDE_READ = "".join(f"{n:>6}→{line}\n" for n, line in enumerate(ARTICLE.splitlines(), 1))
PAST_THE_END = (
    "<system-reminder>Warning: the file exists but is shorter than the provided offset (200). The file "
    "has 13 lines.</system-reminder>"
)
OPENCODE_READ = (
    "<file>\n" + "".join(f"{n:05d}| {line}\n" for n, line in enumerate(ARTICLE.splitlines(), 1)) + "</file>"
)


def messages_call(result: str) -> dict[str, object]:
    return {
        "model": "m",
        "max_tokens": 50,
        "messages": [
            {"role": "user", "content": "answer"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "r1", "content": result}]},
        ],
    }


def chat_call(result: str) -> dict[str, object]:
    calls = [{"id": "r1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": "answer"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": "r1", "content": result},
        ],
    }


def responses_call(result: str) -> dict[str, object]:
    return {
        "model": "m",
        "input": [
            {"role": "user", "content": "answer"},
            {"type": "function_call", "call_id": "r1", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "r1", "output": result},
        ],
    }


@pytest.mark.parametrize(
    ("path", "body", "counts"),
    [
        ("messages", messages_call(CLAUDE_READ), True),  # Claude Code's Read: numbered lines
        ("messages", messages_call(PAST_THE_END), False),  # a Read past the end returns ok, and nothing
        ("chat/completions", chat_call(OPENCODE_READ), True),  # OpenCode's read
        ("chat/completions", chat_call("kb/KB-1.md:4:3. Step 3 of the export"), False),  # a search hit
        ("responses", responses_call(json.dumps({"output": ARTICLE, "metadata": {"exit_code": 0}})), True),
        ("responses", responses_call(""), False),  # head -c 0
    ],
    ids=["claude-read", "claude-past-the-end", "opencode-read", "search-hit", "codex-json-output", "empty"],
)
def test_what_each_protocol_carried_to_the_model_is_the_record(
    path: str, body: dict[str, object], counts: bool
) -> None:
    async def scenario(upstream: str) -> list[str]:
        async with MeteringProxy(upstream, Ledger()) as proxy, httpx.AsyncClient() as http:
            cell = proxy.open_cell("T-1/1")
            headers = {"authorization": f"Bearer {cell.key}"}
            reply = await http.post(f"{cell.url}/{path}", content=json.dumps(body).encode(), headers=headers)
            assert reply.status_code == 200, reply.text
            return proxy.witness.of("T-1/1").results

    with ModelServer([], model="m") as server:
        results = asyncio.run(scenario(server.url))
    kb = normalised_kb({"KB-1": ARTICLE, "KB-2": OTHER})
    assert articles_shown(results, kb) == (["KB-1"] if counts else [])
