"""The scripted model server's conversations with a customer who answers back (`CustomerTurns`): a request
is at the turn that counts how often its history holds the text opening a later turn, and plays the step
numbered by the tool results in the whole history; so a CLI that continued its session gets the turn's own
steps, and one that restarted with only the reply gets the opening turn's again. Real server on loopback,
requests in the Chat Completions protocol."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from assay_dev.servers.model_server import CustomerTurns, ModelServer, Say, WriteFile

ASK = WriteFile("answer.md", "Which router?")
FIX = WriteFile("answer.md", "Reset the TP-Link.")
OPENS = "# The customer replied"
REPLY = f"{OPENS}\n\nIt is a TP-Link."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write",
            "parameters": {"type": "object", "properties": {"filePath": {}, "content": {}}},
        },
    }
]


def ask(server: ModelServer, messages: list[dict[str, Any]]) -> dict[str, Any]:
    system = {"role": "system", "content": "Working directory: /w"}
    body = {"model": "m", "messages": [system, *messages], "tools": TOOLS}
    reply = httpx.post(f"{server.url}/chat/completions", json=body, timeout=10).json()
    message: dict[str, Any] = reply["choices"][0]["message"]
    return message


def written(message: dict[str, Any]) -> str:
    call = message["tool_calls"][0]["function"]
    assert call["name"] == "write"
    return str(json.loads(call["arguments"])["content"])


def tool_result(text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "c", "content": text}


def test_each_turn_plays_its_own_steps_after_the_earlier_turns() -> None:
    turns = CustomerTurns([[ASK, Say("asked")], [FIX, Say("fixed")]], OPENS)
    with ModelServer(turns, model="m") as server:
        opening = [{"role": "user", "content": "My router drops."}]
        assert written(ask(server, opening)) == "Which router?"
        assert ask(server, [*opening, tool_result("ok")])["content"] == "asked"
        # The session continued: the opening turn's tool result, then the reply.
        continued = [*opening, tool_result("ok"), {"role": "assistant", "content": "asked"}]
        continued.append({"role": "user", "content": REPLY})
        assert written(ask(server, continued)) == "Reset the TP-Link."
        assert ask(server, [*continued, tool_result("ok")])["content"] == "fixed"
        # A restarted session (only the reply): the opening turn's steps again, which a test sees.
        assert written(ask(server, [{"role": "user", "content": REPLY}])) == "Which router?"
        assert server.problems == []


def test_the_same_words_on_every_turn_still_count_as_turns() -> None:
    again = f"{OPENS}\n\nThat did not work."
    turns = CustomerTurns([[ASK, Say("one")], [FIX, Say("two")]], OPENS)
    assert turns.turn_of(f"question {again} {again}") == 2
    # Turns past the last play the last one again, after every earlier turn's steps.
    assert turns(f"question {again}") == [ASK, FIX, Say("two")]
    assert turns(f"question {again} {again}") == [ASK, FIX, FIX, Say("two")]
    assert turns(f"{again} {again} {again}") == [ASK, FIX, FIX, FIX, Say("two")]


@pytest.mark.parametrize(
    ("turns", "opens", "error"),
    [
        ([[ASK, Say("a")]], " ", "opened_by must be a text"),
        ([[ASK]], OPENS, "turn 0 must end with its one Say"),
        ([[Say("a"), Say("b")]], OPENS, "turn 0 must end with its one Say"),
    ],
)
def test_a_conversation_is_checked(turns: list[list[Any]], opens: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        CustomerTurns(turns, opens)
