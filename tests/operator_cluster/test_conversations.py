"""Conversational tickets on the cluster (issue 40), with the REAL operator and runner in their Job pods: the
example suite (examples/support-desk-conversations) as a suite ConfigMap, split by the operator into its
public part, its key and its customers part; the answer pods' runner plays the scripted customer from the
customers part, which is mounted into the answer container alone; the judge pod reads the key.

Four Evaluations at once, one per outcome (and the suite bundled in the image once), against the
scripted model server behind each answer pod's gateway sidecar:
- the chat agent that asks which device and which plan before it answers: Pass, status.conversations
  filled from the result, and the sidecar's ledger reconciled with every turn's call;
- the chat agent that guesses: Blocked at its turn limit, asked_first at 0;
- the asking chat agent on the same suite bundled in the runner image (split in the answer pod, the
  customers part into an emptyDir of the answer container's alone): Pass;
- a command agent that looks for the hidden facts from its sandbox in the answer pod (the customers file, its
  folder, the key's path) before each turn: the kernel refuses every look, it can only guess, and it is
  Blocked like the guesser.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.operator_support import OperatorProcess
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_operator.evaluation.build.layout import CUSTOMER_DIR, CUSTOMERS_PATH, KEY_DIR
from assay_runner.contract import Result

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support-desk-conversations"
PROBE = f"{support.AGENTS_DIR}/customer_probe.py"
HIDDEN = ("Android tablet", "I am on the Free plan")
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
PROBED = [CUSTOMERS_PATH, CUSTOMER_DIR, f"{CUSTOMER_DIR}/..data/customers.yaml", f"{KEY_DIR}/keys.yaml"]


def reply(body: dict[str, Any]) -> Reply:
    """The agent model: the `ask` model (its brain says so) asks until the customer said both facts, then
    solves; the `guess` model guesses every turn."""
    said = json.dumps(body["messages"][2:])
    if body["model"] == "guess":
        return Reply(content=GUESS, prompt_tokens=100, completion_tokens=20)
    if not ("tablet" in said and "Free plan" in said):
        return Reply(content=ASK, prompt_tokens=100, completion_tokens=20)
    return Reply(content=SOLVED, prompt_tokens=200, completion_tokens=60)


def config_maps(admin: KubeApi, namespace: str) -> None:
    kb = EXAMPLE / "kb"
    for name, data in (
        ("conv-suite", {"suite.yaml": (EXAMPLE / "suite.yaml").read_text()}),
        ("conv-kb", {p.name: p.read_text() for p in sorted(kb.iterdir()) if p.suffix == ".md"}),
        ("conv-brain", {"AGENTS.md": (EXAMPLE / "brains" / "asks" / "AGENTS.md").read_text()}),
    ):
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
        admin.create(support.config_maps_path(namespace), config_map)


def spec(gateway: str, agent: dict[str, Any]) -> dict[str, Any]:
    return {
        "brain": {"configMap": {"name": "conv-brain"}},
        "suite": {"configMap": {"name": "conv-suite"}, "kbConfigMap": {"name": "conv-kb"}},
        "agent": agent,
        "gateway": gateway,
        "gatewayTokenSecretRef": {"name": "gateway"},
        "resources": dict(support.SMALL),
        "deadlineSeconds": 600,
    }


def test_a_conversation_on_the_cluster_passes_the_agent_that_asks_and_blocks_the_guesser_and_the_prober(
    admin: KubeApi, namespace: str, operator: OperatorProcess
) -> None:
    token = f"gw-{secrets.token_urlsafe(24)}"
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", support.secret("gateway", "token", token))
    config_maps(admin, namespace)
    probe = ["python", PROBE, "open", *PROBED]
    again = ["python", PROBE, "continue", "{message}", *PROBED]
    agents = {
        "asks": {"kind": "chat", "model": "ask"},
        "guesses": {"kind": "chat", "model": "guess"},
        "probes": {
            "kind": "command",
            "model": "m",
            "command": probe,
            "continueCommand": again,
        },
    }
    with ChatServer(reply, token=token) as gateway:
        for name, agent in agents.items():
            support.create_evaluation(admin, namespace, name, spec(gateway.url, agent))
        # The same suite bundled in the runner image: split in the answer pod, customers part included.
        bundled = {**spec(gateway.url, agents["asks"]), "suite": {"bundled": "support-desk-conversations"}}
        support.create_evaluation(admin, namespace, "bundled", bundled)
        agents["bundled"] = agents["asks"]
        done = {
            name: support.wait_for_verdict(admin, namespace, name, operator=operator, timeout=600)
            for name in agents
        }
        rejected = gateway.rejected
    assert rejected == 0

    results = {}
    for name in agents:
        kept = support.claim_path(admin, namespace, f"{name}-g1-answers")
        results[name] = (kept, Result.model_validate_json((kept / "result" / "result.json").read_text()))

    # Bundled: the answer pod's split wrote the customers part into the answer container's emptyDir alone.
    _, from_image = results["bundled"]
    assert done["bundled"]["status"]["verdict"] == from_image.verdict == "Pass", from_image.reasons
    conversation = from_image.tickets[0].repetitions[0].conversation
    assert conversation is not None and conversation.ended == "answered"
    for pod in support.pods_of_job(admin, namespace, support.answer_job("bundled")):
        split = pod["spec"]["initContainers"][0]
        assert split["name"] == "split" and split["command"][-2:] == ["--customer", CUSTOMERS_PATH]
        containers = [*pod["spec"]["initContainers"], *pod["spec"]["containers"]]
        holding = [c["name"] for c in containers if any(m["name"] == "customer" for m in c["volumeMounts"])]
        assert holding == ["split", "answer"], holding

    # The customers part: a snapshot of its own, mounted into the answer container alone.
    answer_pods = support.pods_of_job(admin, namespace, support.answer_job("asks"))
    for pod in answer_pods:
        containers = [*pod["spec"].get("initContainers", []), *pod["spec"]["containers"]]
        holding = [c["name"] for c in containers if any(m["name"] == "customer" for m in c["volumeMounts"])]
        assert holding == ["answer"], holding
    judge = support.pods_of_job(admin, namespace, "asks-g1")
    assert judge and all("customer" not in {v["name"] for v in pod["spec"]["volumes"]} for pod in judge)

    # The agent that asks: Pass, its exchange recorded, its cost in the status, agent and customer apart.
    status = done["asks"]["status"]
    _, asked = results["asks"]
    assert status["verdict"] == asked.verdict == "Pass", (status, asked.reasons)
    cell = asked.tickets[0].repetitions[0]
    assert cell.conversation is not None and cell.conversation.ended == "answered"
    assert [t.speaker for t in cell.conversation.turns] == ["customer", "agent", "customer", "agent"]
    assert cell.conversation.turns[2].revealed == ["device", "plan"]
    conversations = status["conversations"]
    assert conversations["conversations"] == 1 and conversations["turns"] == 2, conversations
    assert (conversations["agent"]["inputTokens"], conversations["agent"]["outputTokens"]) == (300, 80)
    assert conversations["customer"].get("inputTokens", 0) == 0  # scripted: no model call
    assert status["usage"]["inputTokens"] == asked.usage.input_tokens == 300
    # The gateway sidecar counted both turns' calls for the cell, and the judge's reconciliation added up.
    ledger = json.loads((results["asks"][0] / "ledgers" / "shard-0" / "ledger.json").read_text())
    assert ledger["cells"]["C-001/1"]["requests"] == 2 and ledger["refused"]["count"] == 0, ledger

    # The guesser: Blocked at its turn limit, not asking first.
    status = done["guesses"]["status"]
    _, guessed = results["guesses"]
    assert status["verdict"] == guessed.verdict == "Blocked"
    cell = guessed.tickets[0].repetitions[0]
    assert cell.conversation is not None and cell.conversation.ended == "turnLimit", cell.conversation
    assert cell.judges["asked_first"].score == 0.0
    assert status["conversations"]["turns"] == 3, status["conversations"]

    # The prober: the kernel refused every look at the customers part and the key; it could only guess.
    kept, probed = results["probes"]
    assert done["probes"]["status"]["verdict"] == probed.verdict == "Blocked"
    cell = probed.tickets[0].repetitions[0]
    assert cell.isolation is not None and cell.isolation.filesystem, cell.isolation
    assert cell.conversation is not None and cell.conversation.ended == "turnLimit", cell.conversation
    agent_turns = [t.text for t in cell.conversation.turns if t.speaker == "agent"]
    assert agent_turns and all(text == GUESS for text in agent_turns), agent_turns
    transcript = (kept / "shard-0" / "C-001" / "1" / "transcript").read_text()
    lines = [line.removeprefix("probe ") for line in transcript.splitlines() if line.startswith("probe ")]
    assert len(lines) == len(agent_turns), transcript
    for line in lines:
        found = json.loads(line)
        assert set(found) == set(PROBED) and all(what.startswith("refused: ") for what in found.values()), (
            found
        )
    for hidden in HIDDEN:
        assert hidden not in transcript and all(hidden not in text for text in agent_turns)
