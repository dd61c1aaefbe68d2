"""Two replicas with leader election (assay_operator.leader): exactly one reconciles; when the leader is
killed (SIGKILL, no cleanup) during a burst of Evaluations the standby takes over once the lease expires;
still exactly one Job per generation and every verdict right. The takeover time is printed (the benchmark,
bench/takeover.py, measures it over several kills during bursts)."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, replay_spec
from assay_operator import rbac
from assay_operator.leader import LEASE_NAME
from tests.operator_cluster.conftest import StartOperator

LEASE_SECONDS = 6

pytestmark = pytest.mark.cluster


def holder(admin: KubeApi, namespace: str) -> str | None:
    try:
        lease = admin.get(f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{LEASE_NAME}")
    except Exception:
        return None
    found = (lease.get("spec") or {}).get("holderIdentity")
    return str(found) if found else None


def leader_gauge(operator: OperatorProcess) -> str:
    text = httpx.get(f"http://127.0.0.1:{operator.metrics_port}/metrics", timeout=5).text
    return next(line.split()[1] for line in text.splitlines() if line.startswith("assay_leader "))


def reconciled(operator: OperatorProcess) -> list[str]:
    return [line for line in operator.log_text().splitlines() if "Handler 'ensure_run'" in line]


def test_the_standby_takes_over_when_the_leader_dies_during_a_burst(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    env = {
        "ASSAY_LEADER_ELECTION": "true",
        "POD_NAMESPACE": namespace,
        "ASSAY_LEASE_SECONDS": str(LEASE_SECONDS),
    }
    rules = [*rbac.role_rules(), *rbac.leader_election_rules()]
    first = operators(
        namespace, image=support.images().fake_runner, env={**env, "POD_NAME": "replica-a"}, rules=rules
    )
    wait_until(lambda: holder(admin, namespace) == "replica-a", timeout=30, what="replica-a to lead")
    second = operators(
        namespace, image=support.images().fake_runner, env={**env, "POD_NAME": "replica-b"}, rules=rules
    )
    # The standby answers /healthz (operators() waited for it) and says it does not lead.
    assert leader_gauge(first) == "1.0" and leader_gauge(second) == "0.0"

    brain = brains("v1")
    names = [f"{'pass' if i % 3 else 'blocked'}-{i}" for i in range(24)]
    killed_at = 0.0
    for index, name in enumerate(names):
        support.create_evaluation(admin, namespace, name, replay_spec(brain))
        if index == 9:
            first.kill()
            killed_at = time.monotonic()
    wait_until(
        lambda: holder(admin, namespace) == "replica-b", timeout=4 * LEASE_SECONDS + 20, what="takeover"
    )
    lease_taken = time.monotonic() - killed_at
    wait_until(lambda: reconciled(second), timeout=60, what="replica-b to reconcile")
    first_reconcile = time.monotonic() - killed_at
    for name in names:
        done = support.wait_for_verdict(admin, namespace, name, timeout=180, operator=second)
        assert done["status"]["verdict"] == ("Blocked" if name.startswith("blocked") else "Pass"), name
        jobs = sorted(j["metadata"]["name"] for j in support.jobs_of(admin, namespace, name))
        assert jobs == [f"{name}-g1", f"{name}-g1-answer"]
    print(
        f"\ntakeover after SIGKILL of the leader (lease {LEASE_SECONDS} s): lease held by the standby after "
        f"{lease_taken:.1f} s, its first reconcile {first_reconcile:.1f} s after the kill"
    )
    # Only one replica reconciled at a time: the standby touched nothing before it held the lease.
    log = second.log_text()
    leading = log.index("leading as replica-b")
    assert all(log.index(line) > leading for line in reconciled(second))
    assert leader_gauge(second) == "1.0"

    # The old leader comes back as a standby.
    first.start()
    assert leader_gauge(first) == "0.0" and holder(admin, namespace) == "replica-b"


def test_a_clean_stop_hands_the_lease_over_at_once(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    env = {"ASSAY_LEADER_ELECTION": "true", "POD_NAMESPACE": namespace, "ASSAY_LEASE_SECONDS": "30"}
    rules = [*rbac.role_rules(), *rbac.leader_election_rules()]
    first = operators(
        namespace, image=support.images().fake_runner, env={**env, "POD_NAME": "replica-a"}, rules=rules
    )
    wait_until(lambda: holder(admin, namespace) == "replica-a", timeout=30, what="replica-a to lead")
    second = operators(
        namespace, image=support.images().fake_runner, env={**env, "POD_NAME": "replica-b"}, rules=rules
    )
    first.stop()  # SIGTERM, as in a rolling update
    stopped = time.monotonic()
    wait_until(lambda: holder(admin, namespace) == "replica-b", timeout=20, what="the hand-over")
    handed_over = time.monotonic() - stopped
    print(f"\nhand-over after SIGTERM: {handed_over:.1f} s (the lease lasts 30 s)")
    support.create_evaluation(admin, namespace, "after", replay_spec(brains("v1")))
    assert support.wait_for_verdict(admin, namespace, "after", operator=second)["status"]["verdict"] == "Pass"
