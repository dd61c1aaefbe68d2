"""A latency limit set on the Evaluation decides a run whose answers are all right: the status names the rule,
its value and the slow tickets, beside the rules the mean passes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.operator_support import OperatorProcess, replay_spec

pytestmark = pytest.mark.cluster

SECONDS = 3.0
"""Each answer takes at least this long (the agent sleeps it, then gives the good brain's recorded answer)."""


def test_a_latency_limit_blocks_a_run_the_mean_passes_and_the_status_says_why(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    spec = replay_spec(
        brains("v1"),
        agent=support.slow_agent(SECONDS),
        concurrency=8,
        gate={
            "maxAnswerSeconds": SECONDS - 1,
            "answerSecondsPercentile": {"percentile": 50, "maxSeconds": 1000},
        },
    )
    support.create_evaluation(admin, namespace, "slow", spec)
    done = support.wait_for_verdict(admin, namespace, "slow", operator=operator, timeout=300)
    status = done["status"]
    rules = {rule["name"]: rule for rule in status["rules"]}
    print({name: (rule["passed"], rule.get("value"), rule["detail"]) for name, rule in rules.items()})
    # The same answers as the replayed good brain: every rule the mean and the tickets decide passes.
    assert all(rules[name]["passed"] for name in ("score", "judges", "ticketFloor", "complete"))
    assert status["score"] >= 0.9
    slowest = rules["maxAnswerSeconds"]
    assert not slowest["passed"] and slowest["value"] >= SECONDS
    assert slowest["detail"].startswith("16 cell(s) over 2s: ")
    median = rules["answerSecondsPercentile"]
    assert median["passed"] and SECONDS <= median["value"] <= slowest["value"]
    assert "p50 (nearest rank of 16 cells)" in median["detail"]
    assert status["verdict"] == "Blocked" and "maxAnswerSeconds: 16 cell(s) over 2s" in status["message"]
    assert status["tickets"]["flaky"] == 0 and status["repetitions"]["flaky"] == []
    support.assert_conditions(done, {"Ready": "False", "Completed": "True", "Stalled": "True"}, 1)
