"""The CLI presets on the cluster: an Evaluation with `agent.kind` set to a preset, the real operator, the
runner pod on the local kubelet running the real, pinned CLI from the runner image built with them
(`make images`: assay-runner-agents) against the scripted model server on loopback, ending in a verdict
in status; and an Evaluation naming a preset the runner image
lacks, which stalls with the reason instead of starting a Job. Cost: one ticket per preset, ~15 s each."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.images import buildah
from assay_dev.operator_support import evaluation
from assay_dev.servers.model_server import ModelServer, ReadFile, Say, Script, WriteFile
from tests.agents.conftest import CLIS
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster

PRESETS = ["opencode", "claude-code", "codex"]
MODEL = "assay-scripted-model"
TICKET = re.compile(r"# Support ticket (\S+)")
CITED = re.compile(r"\bKB-\d+\b")


def write_the_recorded_answer(text: str) -> Script:
    """For ticket T-xxx: read every article the example's v1 answer cites (the suite's `read_before_citing`
    judge checks the trajectory for it), write that answer through the CLI's own write tool, then end."""
    found = TICKET.search(text)
    assert found is not None, "no ticket id in the request"
    answer = (support.SUPPORT_DESK / "answers" / "v1" / found.group(1) / "answer.md").read_text()
    reads = [ReadFile(f"kb/{article}.md") for article in dict.fromkeys(CITED.findall(answer))]
    return [*reads, WriteFile("answer.md", answer), Say("I wrote the reply to answer.md.")]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_preset_runs_in_the_runner_pod_and_ends_in_a_verdict(
    preset: str,
    agents_image: str,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    operator = operators(
        namespace, image=agents_image, env={"ASSAY_RUNNER_AGENT_PRESETS": "opencode,claude-code,codex"}
    )
    brain = brains("v1")
    spec = support.replay_spec(
        brain,
        agent={"kind": preset, "model": MODEL, "timeoutSeconds": 120},
        tickets={"ids": ["T-001"]},
        prices={MODEL: {"inputPerMillion": 3, "outputPerMillion": 15}},
        resources=dict(support.FOR_CLIS),
    )
    with ModelServer(write_the_recorded_answer, model=MODEL) as server:
        spec["gateway"] = server.url
        admin.create(support.evaluations_path(namespace), evaluation(f"agent-{preset}", spec))
        done = support.wait_for_verdict(admin, namespace, f"agent-{preset}", timeout=180, operator=operator)
        requests = list(server.requests)
        problems = list(server.problems)
        reported = server.reported_usage()
    assert problems == []
    status = done["status"]
    assert status["verdict"] == "Pass", status
    assert status["tickets"]["summary"] == "1/1"
    expected = {"opencode": "chat", "claude-code": "messages", "codex": "responses"}[preset]
    assert {r.protocol for r in requests} == {expected}
    assert any(r.body.get("tools") for r in requests)  # the CLI's own conversation, with its tools
    # The cost in status is the usage the server reported (the CLI's calls and the preflight) at the
    # Evaluation's price; the tokens also count the model judge's (from cassettes, its model unpriced).
    usage = status["usage"]
    assert usage["inputTokens"] > reported.prompt_tokens and usage["outputTokens"] > reported.output_tokens
    cost = (reported.prompt_tokens * 3 + reported.output_tokens * 15) / 1e6
    assert usage["costUsd"] == pytest.approx(cost, abs=1e-6) and usage["costUsd"] > 0


def test_a_preset_the_image_lacks_stalls_with_the_reason(
    admin: KubeApi, namespace: str, operator: support.OperatorProcess, brains: Callable[[str], str]
) -> None:
    brain = brains("v1")
    spec = support.replay_spec(brain, agent={"kind": "codex", "model": MODEL})
    admin.create(support.evaluations_path(namespace), evaluation("no-codex", spec))
    stalled = support.wait_for_evaluation(
        admin,
        namespace,
        "no-codex",
        lambda o: support.condition_status(o, "Stalled") == "True",
        timeout=60,
        operator=operator,
    )
    condition = support.condition(stalled, "Stalled")
    assert condition is not None and condition["reason"] == "AgentNotInImage"
    assert "'codex'" in condition["message"] and "runner.agentPresets" in condition["message"]
    assert admin.get(support.jobs_path(namespace))["items"] == []  # no Job that could only crash
    assert (stalled.get("status") or {}).get("verdict") is None


def test_the_agent_clis_in_the_image_are_usable_by_any_uid(agents_image: str) -> None:
    # Runner pods run as uid 1001 or an arbitrary one: the CLIs, node, and every directory on the way must
    # be readable and executable by others.
    name = f"assay-test-inspect-{os.getpid()}"
    rootfs = buildah.checkout(buildah.inspect_image(agents_image).id, name)
    try:
        programs = [rootfs / "opt/agents/bin/node"] + [
            rootfs / "opt/agents/node_modules/.bin" / c for c in CLIS
        ]
        for program in programs:
            target = program.resolve()
            assert target.is_relative_to(rootfs), f"{program} points outside the image"
            assert target.stat().st_mode & 0o005 == 0o005, f"{target} is not executable by others"
            for folder in target.relative_to(rootfs).parents:
                mode = (rootfs / folder).stat().st_mode
                assert mode & 0o005 == 0o005, f"/{folder} is not traversable by others"
    finally:
        buildah.release(name)
