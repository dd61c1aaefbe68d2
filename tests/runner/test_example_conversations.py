"""The conversational example suite (examples/support-desk-conversations) run as a user would run it:
`assay run` with the chat agent against the scripted model server on loopback, the customer scripted. The
ticket can only be solved by asking: the agent that asks passes, the one that guesses is Blocked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.suite.split import split_suite
from tests.support.conversations import conversation_of, run_conversation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support-desk-conversations"
BRAIN = EXAMPLE / "brains" / "asks"
ASK = "## Summary\nTwo quick questions first.\n\nWhich device is it, and which plan are you on?\n"
SOLVED = (
    "## Summary\nOn the Free plan Lumen syncs on 2 devices [KB-2001], so your new tablet, a third device, "
    'shows "Device limit reached" [KB-1003].\n'
    "## Steps\n1. Sign out on a device you no longer use, or\n"
    "2. Upgrade to Plus for unlimited devices: Settings > Billing > Change plan [KB-2001].\n"
    "## Next\nThe tablet syncs as soon as it is within the limit.\n"
)
GUESS = (
    "## Summary\nLet us force a sync [KB-1003].\n## Steps\n1. Check status.lumen-notes.example.\n"
    "2. Choose Help > Sync now.\n## Next\nSend us the sync log if it still fails.\n"
)


def script(asks: bool) -> Any:
    def reply(body: dict[str, Any]) -> Reply:
        assert "Ask before you answer" in body["messages"][0]["content"]  # the example's brain
        said = json.dumps(body["messages"][2:])
        if asks and not ("tablet" in said and "Free plan" in said):
            return Reply(content=ASK)
        return Reply(content=SOLVED if asks else GUESS)

    return reply


@pytest.mark.parametrize(("asks", "code"), [(True, 0), (False, 1)])
def test_the_example_passes_the_agent_that_asks_and_blocks_the_one_that_guesses(
    tmp_path: Path, asks: bool, code: int
) -> None:
    with ChatServer(script(asks)) as server:
        found, result = run_conversation(EXAMPLE, BRAIN, tmp_path / "out", "--gateway", server.url)
    assert found == code, result.reasons
    record = conversation_of(result, "C-001")
    judges = result.tickets[0].repetitions[0].judges
    if asks:
        assert [t.speaker for t in record.turns] == ["customer", "agent", "customer", "agent"]
        assert record.turns[2].revealed == ["device", "plan"] and judges["asked_first"].score == 1.0
    else:
        assert record.ended == "turnLimit" and judges["asked_first"].score == 0.0
        assert "device, plan still unsaid" in (result.tickets[0].repetitions[0].error or "")
    assert (tmp_path / "out" / "report.html").is_file()


def test_the_example_validates_and_splits_without_its_hidden_facts(tmp_path: Path) -> None:
    assert main(["validate", str(EXAMPLE)]) == 0
    public = tmp_path / "public"
    split_suite(EXAMPLE, public, tmp_path / "keys.yaml")
    for path in public.rglob("*"):
        if path.is_file() and not path.is_relative_to(public / "kb"):
            assert "Android tablet" not in path.read_text() and "Free plan" not in path.read_text(), path
    assert "It is my new Android tablet." in (tmp_path / "keys.yaml").read_text()


def test_the_split_phases_play_the_customer_from_the_customers_part(tmp_path: Path) -> None:
    """As on the cluster: the suite split in three (`--customer`), the answer phase given the public part
    and the customers only (never the key), the judge phase the key: the agent that asks passes."""
    public, keys, customers = (
        tmp_path / "public",
        tmp_path / "key" / "keys.yaml",
        tmp_path / "c" / "customers.yaml",
    )
    split = [
        "split",
        str(EXAMPLE),
        "--public",
        str(public),
        "--keys",
        str(keys),
        "--customer",
        str(customers),
    ]
    assert main(split) == 0 and customers.is_file()
    answers = tmp_path / "answers"
    with ChatServer(script(True)) as server:
        answer = ["answer", str(public), "--brain", str(BRAIN), "--agent", "chat", "--model", "agent-m"]
        answer += ["--gateway", server.url, "--customer", str(customers), "--answers-out", str(answers), "-q"]
        assert main(answer) == 0
    cell = json.loads((answers / "C-001" / "1" / "cell.json").read_text())
    assert cell["conversation"]["ended"] == "answered", cell["conversation"]
    out = tmp_path / "out"
    score = ["score", str(public), "--keys", str(keys), "--answers", str(answers), "--out", str(out), "-q"]
    assert main(score) == 0
    result = json.loads((out / "result.json").read_text())
    assert result["verdict"] == "Pass" and result["conversations"]["conversations"] == 1, result[
        "conversations"
    ]
