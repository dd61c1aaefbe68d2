"""The bundled example end to end: brain ConfigMap -> Evaluation -> answer Job -> judge Job -> the REAL runner
-> verdict in the status, read the ways users read it (kubectl get, kubectl wait, Events)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ApiError, ControlPlane, KubeApi
from assay_dev.operator_support import OperatorProcess, condition, evaluation, replay_spec
from assay_runner.contract import RunSummary, digest_files

pytestmark = pytest.mark.cluster


def test_bundled_example_passes_v1_and_blocks_v0(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    v1, v0 = brains("v1"), brains("v0")
    path = support.evaluations_path(namespace)
    with support.recording(control_plane, path) as watch:
        admin.create(path, evaluation("support-v1", replay_spec(v1, "v1")))
        admin.create(path, evaluation("support-v0", replay_spec(v0, "v0")))
        passed = support.wait_for_verdict(admin, namespace, "support-v1", operator=operator)
        blocked = support.wait_for_verdict(admin, namespace, "support-v0", operator=operator)
        history = watch.versions("support-v1")

    # --- Reconciling=True while the Job runs, then Completed ---------------------------------------------
    running = [
        o
        for o in history
        if support.condition_status(o, "Reconciling") == "True" and (o.get("status") or {}).get("jobName")
    ]
    assert running, "never saw Reconciling=True with the Job named"
    first = running[0]
    assert support.condition_status(first, "Ready") == "Unknown"
    assert support.condition_status(first, "Completed") == "False"
    assert support.condition_status(first, "Stalled") == "False"
    operator_digest = first["status"]["inputs"]["brainDigest"]

    # --- the verdict and what goes with it ------------------------------------------------------------------
    status = passed["status"]
    assert status["verdict"] == "Pass"
    assert status["observedGeneration"] == passed["metadata"]["generation"] == 1
    assert 0.9 <= status["score"] <= 1.0
    assert set(status["judges"]) >= {"kb_citation", "must_mention", "policy", "format", "quality"}
    assert all(v is None or 0 <= v <= 1 for v in status["judges"].values())
    assert {r["name"] for r in status["rules"]} >= {"score", "judges", "ticketFloor"}
    assert all(r["passed"] for r in status["rules"])
    assert status["tickets"] == {"total": 16, "passed": 16, "summary": "16/16", "failing": [], "flaky": 0}
    assert status["jobName"] == "support-v1-g1"
    assert status["answer"] == {
        "jobName": "support-v1-g1-answer",
        "claimName": "support-v1-g1-answers",
        "shards": 1,
        "shardsSucceeded": 1,
        "shardsFailed": 0,
        "failed": [],
        "cellsDone": 16,
        "cellsTotal": 16,
        "shardsSummary": "1/1",
        "cellsSummary": "16/16",
    }
    assert status["completionTime"] and status["startTime"]
    support.assert_conditions(
        passed, {"Ready": "True", "Completed": "True", "Reconciling": "False", "Stalled": "False"}, 1
    )

    # The runner's own digest of the mounted brain = the operator's digest of the ConfigMap = the files'.
    expected = digest_files(support.brain_files("v1"))
    assert status["inputs"]["brainDigest"] == operator_digest == expected
    pods = support.pods_of_job(admin, namespace, "support-v1-g1")
    terminated = [
        cs["state"]["terminated"]
        for p in pods
        for cs in p["status"].get("containerStatuses") or []
        if "terminated" in cs["state"]
    ]
    summary = RunSummary.model_validate_json(terminated[0]["message"])
    assert summary.inputs.brain_digest == expected
    assert status["inputs"]["suiteDigest"] == summary.inputs.suite_digest
    assert status["score"] == round(summary.score, 3)

    # --- v0: Blocked by the gate, with the reason -----------------------------------------------------------
    bstatus = blocked["status"]
    assert bstatus["verdict"] == "Blocked"
    assert bstatus["tickets"]["passed"] < bstatus["tickets"]["total"]
    assert bstatus["tickets"]["failing"]
    assert any(not r["passed"] for r in bstatus["rules"])
    stalled = condition(blocked, "Stalled")
    assert stalled is not None and stalled["status"] == "True" and stalled["reason"] == "GateBlocked"
    assert support.condition_status(blocked, "Ready") == "False"
    assert support.condition_status(blocked, "Completed") == "True"
    assert bstatus["message"].startswith("Blocked: ")

    # --- kubectl get: the printer columns -----------------------------------------------------------------
    table = control_plane.kubectl("get", "evaluations", "-n", namespace).stdout.splitlines()
    header = table[0].split()
    assert header == ["NAME", "VERDICT", "SCORE", "READY", "STATE", "TICKETS", "SHARDS", "CELLS", "AGE"], (
        table
    )
    rows = {line.split()[0]: line.split() for line in table[1:]}
    assert rows["support-v1"][1:8] == [
        "Pass",
        str(status["score"]),
        "True",
        "Completed",
        "16/16",
        "1/1",
        "16/16",
    ]
    assert rows["support-v0"][1] == "Blocked" and rows["support-v0"][3] == "False"
    short = control_plane.kubectl("get", "evals", "-n", namespace, "-o", "name").stdout.split()
    assert sorted(short) == ["evaluation.assay.dev/support-v0", "evaluation.assay.dev/support-v1"]

    # --- kubectl wait: Ready only for a Pass; Completed and the verdict for CI ------------------------------
    ok = control_plane.kubectl(
        "wait", "-n", namespace, "--for=condition=Ready", "evaluation/support-v1", "--timeout=30s"
    )
    assert "condition met" in ok.stdout
    not_ready = control_plane.kubectl(
        "wait", "-n", namespace, "--for=condition=Ready", "evaluation/support-v0", "--timeout=3s", check=False
    )
    assert not_ready.returncode != 0 and "timed out" in not_ready.stderr, not_ready
    for wanted in ("--for=condition=Completed", "--for=jsonpath={.status.verdict}=Blocked"):
        done = control_plane.kubectl(
            "wait", "-n", namespace, wanted, "evaluation/support-v0", "--timeout=30s"
        )
        assert "condition met" in done.stdout, (wanted, done)

    # --- Events a person sees in `kubectl describe` ---------------------------------------------------------
    # (posted asynchronously by kopf: wait for them)
    support.wait_for_events(admin, namespace, "support-v1", {"JobCreated", "Completed"})
    support.wait_for_events(admin, namespace, "support-v0", {"JobCreated", "Blocked"})
    created = next(
        e for e in support.events_for(admin, namespace, "support-v1") if e["reason"] == "JobCreated"
    )
    assert created["type"] == "Normal" and "support-v1-g1-answer" in created["message"]
    support.wait_for_events(admin, namespace, "support-v1", {"JudgeJobCreated"})

    # --- the Jobs as the apiserver stored them ------------------------------------------------------------
    judge = admin.get(support.jobs_path(namespace, "support-v1-g1"))
    assert judge["spec"]["backoffLimit"] == 1 and judge["spec"]["ttlSecondsAfterFinished"] == 3600
    assert 360 <= judge["spec"]["activeDeadlineSeconds"] <= 1800  # what is left, never below its reserve
    answers = admin.get(support.jobs_path(namespace, "support-v1-g1-answer"))
    assert answers["spec"]["completionMode"] == "Indexed" and answers["spec"]["completions"] == 1
    assert answers["spec"]["backoffLimitPerIndex"] == 1 and answers["spec"]["activeDeadlineSeconds"] == 1800
    for job in (judge, answers):
        rules = job["spec"]["podFailurePolicy"]["rules"]
        assert rules[0]["action"] == "Ignore" and rules[0]["onPodConditions"][0]["type"] == "DisruptionTarget"
        assert {r["action"] for r in rules[1:]} == {"FailJob"}
        assert all(r["onExitCodes"]["values"] == [2] for r in rules[1:])
        template = job["spec"]["template"]["spec"]
        assert template["restartPolicy"] == "Never"
        assert template["containers"][0]["terminationMessagePolicy"] == "FallbackToLogsOnError"

    # --- one answer Job and one judge Job per Evaluation; the children are owned by it ----------------------
    for name in ("support-v1", "support-v0"):
        jobs = support.jobs_of(admin, namespace, name)
        assert sorted(j["metadata"]["name"] for j in jobs) == [f"{name}-g1", f"{name}-g1-answer"]
        for job in jobs:
            owner = job["metadata"]["ownerReferences"]
            assert owner[0]["kind"] == "Evaluation" and owner[0]["controller"] is True
    config_maps = admin.get(support.config_maps_path(namespace))["items"]
    owned = [
        c["metadata"]["name"]
        for c in config_maps
        if any(r["kind"] == "Evaluation" for r in c["metadata"].get("ownerReferences") or [])
    ]
    assert len(owned) == 6, owned  # a brain snapshot, the answer and the judge RunConfigs each
    snapshot = next(c for c in config_maps if c["metadata"]["name"].startswith("support-v1-brain-"))
    assert snapshot["immutable"] is True
    assert snapshot["metadata"]["annotations"]["assay.dev/brain-digest"] == expected
    config = json.loads(
        next(c for c in config_maps if c["metadata"]["name"] == "support-v1-g1-judge")["data"]["config.json"]
    )
    # The bundled suite is split in each pod: the judge phase reads the public part and the key file.
    assert (config["suite"], config["keys"]) == ("/etc/assay/suite", "/etc/assay/key/keys.yaml")
    answer_config = json.loads(
        next(c for c in config_maps if c["metadata"]["name"] == "support-v1-run-g1")["data"]["answer.json"]
    )
    assert "keys" not in answer_config and answer_config["resume"] is True
    for job, first in ((judge, ["split"]), (answers, ["split", "evidence"])):
        pod = job["spec"]["template"]["spec"]
        assert [c["name"] for c in pod["initContainers"]] == first  # the answer pods make the evidence key
        assert pod["initContainers"][0]["command"][2].endswith("/support-desk")
    # The answers volume: provisioned, bound, owned; result.json and the report stay on it.
    claim = admin.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/support-v1-g1-answers")
    assert (
        claim["status"]["phase"] == "Bound"
        and claim["metadata"]["ownerReferences"][0]["kind"] == "Evaluation"
    )
    kept = support.claim_path(admin, namespace, "support-v1-g1-answers")
    assert {p.name for p in (kept / "result").iterdir()} >= {"result.json", "summary.json", "report.html"}
    assert (kept / "shard-0" / "answers.json").is_file()

    # --- small status; kopf's bookkeeping under the assay.dev prefix -------------------------------------
    assert len(json.dumps(passed["status"])) < 8 * 1024
    annotations = passed["metadata"].get("annotations") or {}
    assert sum(len(k) + len(v) for k, v in annotations.items()) < 256 * 1024
    assert "assay.dev/last-handled-configuration" in annotations
    assert not [k for k in annotations if "kopf.zalando.org" in k], annotations
    assert not passed["metadata"].get("finalizers")

    # --- the runner pods: no ServiceAccount token, no key in their environment ------------------------------
    for pod in [*pods, *support.pods_of_job(admin, namespace, "support-v1-g1-answer")]:
        assert pod["spec"]["automountServiceAccountToken"] is False
        volumes = [v["name"] for v in pod["spec"]["volumes"]]
        assert not [v for v in volumes if v.startswith("kube-api-access")], volumes
        env = {e["name"] for c in pod["spec"]["containers"] for e in c.get("env") or []}
        assert not [n for n in env if "KEY" in n or "TOKEN" in n or "SECRET" in n], env

    # --- probes and metrics ---------------------------------------------------------------------------------
    assert httpx.get(f"http://127.0.0.1:{operator.liveness_port}/healthz", timeout=5).status_code == 200
    metrics = httpx.get(f"http://127.0.0.1:{operator.metrics_port}/metrics", timeout=5).text
    assert 'assay_evaluations_total{reason="Passed",verdict="Pass"} 1.0' in metrics
    assert 'assay_evaluations_total{reason="GateBlocked",verdict="Blocked"} 1.0' in metrics
    assert "assay_jobs_created_total 4.0" in metrics  # an answer Job and a judge Job each
    # ... and a clean stop: SIGTERM, out within the grace period (the fixture asserts it too).
    assert operator.stop() < support.GRACE_SECONDS


def test_runner_pods_are_admitted_under_pod_security_restricted(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    labels = {f"pod-security.kubernetes.io/{mode}": "restricted" for mode in ("enforce", "warn", "audit")}
    admin.merge_patch(f"/api/v1/namespaces/{namespace}", {"metadata": {"labels": labels}})
    # The namespace really enforces it: a pod without the restricted settings is refused.
    plain = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "plain"},
        "spec": {"containers": [{"name": "c", "image": support.images().runner}]},
    }
    with pytest.raises(ApiError) as refused:
        admin.create(support.pods_path(namespace), plain)
    assert refused.value.status == 403 and "violates PodSecurity" in str(refused.value)

    support.create_evaluation(admin, namespace, "restricted", replay_spec(brains("v1")))
    done = support.wait_for_verdict(admin, namespace, "restricted", operator=operator)
    assert done["status"]["verdict"] == "Pass"
    for name in ("restricted-g1", "restricted-g1-answer"):
        job = admin.get(support.jobs_path(namespace, name))
        failures = [c for c in job["status"].get("conditions") or [] if c["type"] == "Failed"]
        assert not failures, failures
