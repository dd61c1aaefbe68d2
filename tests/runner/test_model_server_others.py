"""The scripted model server standing in for a second model (`others`: a model customer's, beside the
agent's): that model's chat calls get the reply a function of the request gives, with `OTHER_USAGE`; the
listing names both; any other model is still refused. Real server on loopback."""

from __future__ import annotations

from typing import Any

import httpx

from assay_dev.servers.model_server import OTHER_USAGE, ModelServer, Say


def echo_last(body: dict[str, Any]) -> str:
    return f"You said: {body['messages'][-1]['content']}"


def test_another_model_is_answered_by_its_function_with_its_usage() -> None:
    with ModelServer([Say("the agent's words")], model="agent-m", others={"customer-m": echo_last}) as server:
        body = {"model": "customer-m", "messages": [{"role": "user", "content": "hello"}]}
        reply = httpx.post(f"{server.url}/chat/completions", json=body, timeout=10).json()
        listing = httpx.get(f"{server.url}/models", timeout=10).json()
        unknown = httpx.post(f"{server.url}/chat/completions", json={**body, "model": "x"}, timeout=10)
    assert reply["choices"][0]["message"]["content"] == "You said: hello"
    usage = reply["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (
        OTHER_USAGE.prompt_tokens,
        OTHER_USAGE.output_tokens,
    )
    assert [m["id"] for m in listing["data"]] == ["agent-m", "customer-m"]
    assert unknown.status_code == 404 and server.problems == ["unknown model 'x'; this server has 'agent-m'"]
    assert [r.usage for r in server.requests if r.method == "POST"] == [OTHER_USAGE, None]
