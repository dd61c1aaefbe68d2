"""Re-running without editing the spec: a new value of the rerun.assay.dev/token annotation starts another
run of the same generation (its own deterministic Jobs), recorded in status.rerun; the same value again, or
removing it, starts nothing; the earlier run's Jobs are deleted and its late result never overwrites the new
run's. The rerun resumes on the generation's answers volume: only the cells missing or errored are answered
again. GitOps tools keep using spec changes (new generations)."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import replay_spec
from assay_operator.evaluation.build import names
from tests.operator_cluster.conftest import StartOperator

RERUN = names.RERUN_ANNOTATION


def annotate(admin: KubeApi, namespace: str, name: str, token: str | None) -> None:
    admin.merge_patch(
        support.evaluations_path(namespace, name), {"metadata": {"annotations": {RERUN: token}}}
    )


def job_names(admin: KubeApi, namespace: str, name: str) -> list[str]:
    return sorted(
        j["metadata"]["name"]
        for j in support.jobs_of(admin, namespace, name)
        if not j["metadata"].get("deletionTimestamp")
    )


def wait_for_run(
    admin: KubeApi, namespace: str, name: str, job: str, operator: support.OperatorProcess
) -> dict[str, Any]:
    return support.wait_for_evaluation(
        admin,
        namespace,
        name,
        lambda o: (o.get("status") or {}).get("jobName") == job and support.has_verdict()(o),
        what=f"the verdict of run {job}",
        operator=operator,
    )


def test_a_new_token_reruns_the_same_generation(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    support.create_evaluation(admin, namespace, "pass-rerun", replay_spec(brain))
    first = support.wait_for_verdict(admin, namespace, "pass-rerun", operator=operator)
    assert first["status"]["jobName"] == "pass-rerun-g1" and "rerun" not in first["status"]

    annotate(admin, namespace, "pass-rerun", "after-judge-fix")
    second_job = names.job_name("pass-rerun", 1, "after-judge-fix")
    second_jobs = sorted([second_job, support.answer_job("pass-rerun", 1, "after-judge-fix")])
    second = wait_for_run(admin, namespace, "pass-rerun", second_job, operator)
    assert second["metadata"]["generation"] == 1  # an annotation is not a spec change
    assert second["status"]["rerun"] == "after-judge-fix"
    assert second["status"]["verdict"] == "Pass" and second["status"]["observedGeneration"] == 1
    assert second["status"]["startTime"] >= first["status"]["startTime"]
    support.wait_for_events(admin, namespace, "pass-rerun", {"JobCreated"})
    # The earlier run's Jobs are deleted: one answer Job and one judge Job per (generation, token).
    wait_until(lambda: job_names(admin, namespace, "pass-rerun") == second_jobs, timeout=30, what="one run")

    # The same token again, and then no token: nothing new runs.
    annotate(admin, namespace, "pass-rerun", "after-judge-fix")
    annotate(admin, namespace, "pass-rerun", None)
    time.sleep(5)
    assert job_names(admin, namespace, "pass-rerun") == second_jobs
    kept = admin.get(support.evaluations_path(namespace, "pass-rerun"))
    assert kept["status"]["jobName"] == second_job and kept["status"]["rerun"] == "after-judge-fix"

    # A spec change is still a new generation, with or without the annotation.
    admin.merge_patch(support.evaluations_path(namespace, "pass-rerun"), {"spec": {"repetitions": 2}})
    third = support.wait_for_verdict(admin, namespace, "pass-rerun", generation=2, operator=operator)
    assert third["status"]["jobName"] == "pass-rerun-g2" and "rerun" not in third["status"]


def test_a_rerun_while_running_replaces_the_run(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    """A token set while the first run is still going: that Job is deleted, and only the new run's result
    becomes the verdict."""
    operator = operators(namespace)
    brain = brains("v1")
    support.create_evaluation(admin, namespace, "busy", replay_spec(brain, agent=support.slow_agent(3)))
    support.running_pod(admin, namespace, "busy-g1-answer")
    annotate(admin, namespace, "busy", "now")
    rerun_job = names.job_name("busy", 1, "now")
    done = wait_for_run(admin, namespace, "busy", rerun_job, operator)
    assert done["status"]["verdict"] == "Pass" and done["status"]["rerun"] == "now"
    rerun_jobs = sorted([rerun_job, support.answer_job("busy", 1, "now")])
    wait_until(lambda: job_names(admin, namespace, "busy") == rerun_jobs, timeout=60, what="one run")


# --- resume: a rerun answers only what is missing or errored ------------------------------------------------

FLAKY_AGENT = """
import shutil, sys, urllib.request
ticket, answer, server, answers = sys.argv[1:5]
direct = urllib.request.build_opener(urllib.request.ProxyHandler(dict()))
if direct.open(server + "/" + ticket, timeout=60).read() != b"ok":
    sys.exit(3)
shutil.copy(answers + "/" + ticket + "/answer.md", answer)
"""
# No braces in the program: the runner fills {placeholders} in every argument of an agent's command.


class Flaky:
    """A loopback server the agent asks before each cell: it records the ticket and says whether to fail
    (the pods share the node's network)."""

    def __init__(self) -> None:
        self.failing: set[str] = set()
        self.calls: list[str] = []
        flaky = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                ticket = self.path.strip("/")
                flaky.calls.append(ticket)
                body = b"fail" if ticket in flaky.failing else b"ok"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def agent(self) -> dict[str, Any]:
        argv = [
            "python",
            "-c",
            FLAKY_AGENT,
            "{ticket_id}",
            "{answer_file}",
            self.url,
            f"{support.ANSWERS_DIR}/v1",
        ]
        return {"kind": "command", "model": "recorded", "command": argv, "timeoutSeconds": 600}


@pytest.fixture
def flaky() -> Iterator[Flaky]:
    server = Flaky()
    yield server
    server.server.shutdown()


# The flaky agent asks the test's server on the host before each cell: a TCP port the cell's sandbox refuses
# (it connects only to its gateway port). What this test shows is the rerun, not the sandbox.
@pytest.mark.usefixtures("node_without_landlock")
def test_a_rerun_resumes_on_the_volume_and_answers_only_the_errored_cells(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str], flaky: Flaky
) -> None:
    operator = operators(namespace)
    flaky.failing = {"T-003", "T-011"}
    spec = replay_spec(brains("v1"), agent=flaky.agent(), parallelism=2)
    support.create_evaluation(admin, namespace, "flaky", spec)
    first = support.wait_for_verdict(admin, namespace, "flaky", operator=operator)
    assert first["status"]["verdict"] == "Blocked"
    assert sorted(flaky.calls) == sorted(f"T-{i:03d}" for i in range(1, 17))  # every cell, once
    assert first["status"]["answer"]["cellsSummary"] == "14/16"

    flaky.failing, flaky.calls = set(), []
    annotate(admin, namespace, "flaky", "agent-fixed")
    second = wait_for_run(admin, namespace, "flaky", names.job_name("flaky", 1, "agent-fixed"), operator)
    assert second["status"]["verdict"] == "Pass", support.summarize(second)
    assert sorted(flaky.calls) == ["T-003", "T-011"]  # the 14 answered cells were kept from the volume
    assert second["status"]["answer"]["cellsSummary"] == "16/16"
    assert second["status"]["answer"]["claimName"] == "flaky-g1-answers"  # the generation's, resumed on
