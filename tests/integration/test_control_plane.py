"""Smoke tests of the control plane and the local kubelet: each one checks a behaviour the operator's
tests rely on (CRD validation, Job semantics, garbage collection, RBAC, kubelet-style status)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from assay_dev.cluster import ApiError, ControlPlane, LocalKubelet, PullFault
from assay_dev.cluster.pod_container import LOG_TAIL_BYTES, LOG_TAIL_LINES
from assay_dev.cluster.wait import wait_until
from assay_dev.images import buildah
from tests.conftest import current_images

pytestmark = pytest.mark.cluster

Obj = dict[str, Any]


# --- helpers ------------------------------------------------------------------------------------------

SLEEPER = "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *_: sys.exit(143)); time.sleep(600)"
"""A long-running container that stops on SIGTERM: as PID 1 of its own PID namespace it would otherwise
ignore the signal (the kernel's rule for a namespace's init, as on a node) and wait out the grace period."""


def python_container(script: str, **extra: Any) -> Obj:
    return {
        "name": "main",
        "image": current_images().python,
        "command": ["python", "-c", textwrap.dedent(script)],
        **extra,
    }


def job(name: str, containers: list[Obj], **spec: Any) -> Obj:
    pod_spec = {"restartPolicy": "Never", "containers": containers, **spec.pop("pod", {})}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, **spec.pop("metadata", {})},
        "spec": {"backoffLimit": 0, "template": {"spec": pod_spec}, **spec},
    }


def pod(name: str, containers: list[Obj], **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"restartPolicy": "Never", "containers": containers, **spec},
    }


def jobs_path(namespace: str, name: str = "") -> str:
    return f"/apis/batch/v1/namespaces/{namespace}/jobs" + (f"/{name}" if name else "")


def pods_path(namespace: str, name: str = "") -> str:
    return f"/api/v1/namespaces/{namespace}/pods" + (f"/{name}" if name else "")


def job_condition(cp: ControlPlane, namespace: str, name: str, kind: str, timeout: float = 60) -> Obj:
    def probe() -> Obj | None:
        conditions = cp.api.get(jobs_path(namespace, name)).get("status", {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == kind and c["status"] == "True"), None)

    return wait_until(
        probe,
        timeout=timeout,
        what=f"job {name} condition {kind}",
        describe=lambda: str(cp.api.get(jobs_path(namespace, name)).get("status")),
    )


def job_pods(cp: ControlPlane, namespace: str, name: str) -> list[Obj]:
    items: list[Obj] = cp.api.get(pods_path(namespace), labelSelector=f"job-name={name}")["items"]
    return items


def terminated_pod(cp: ControlPlane, namespace: str, name: str, timeout: float = 60) -> Obj:
    def probe() -> Obj | None:
        current = cp.api.get(pods_path(namespace, name))
        return current if current["status"].get("phase") in ("Succeeded", "Failed") else None

    return wait_until(
        probe,
        timeout=timeout,
        what=f"pod {name} to finish",
        describe=lambda: str(cp.api.get(pods_path(namespace, name))["status"]),
    )


def running_pod(cp: ControlPlane, namespace: str, name: str, timeout: float = 60) -> Obj:
    def probe() -> Obj | None:
        current = cp.api.get(pods_path(namespace, name))
        return current if current["status"].get("phase") == "Running" else None

    return wait_until(probe, timeout=timeout, what=f"pod {name} to run")


def gone(cp: ControlPlane, path: str) -> bool:
    try:
        cp.api.get(path)
    except ApiError as error:
        if error.status == 404:
            return True
        raise
    return False


def state(pod_obj: Obj, container: str = "main") -> Obj:
    statuses = pod_obj["status"]["containerStatuses"]
    found: Obj = next(s for s in statuses if s["name"] == container)["state"]
    return found


# --- (a) CRD validation -------------------------------------------------------------------------------


def test_crd_cel_rule_rejects_a_bad_object(control_plane: ControlPlane, namespace: str) -> None:
    group = f"{namespace}.smoke.assay.dev"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}},
                                    "x-kubernetes-validations": [
                                        {"rule": "self.min <= self.max", "message": "min must not exceed max"}
                                    ],
                                }
                            },
                        }
                    },
                }
            ],
        },
    }
    control_plane.api.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    try:
        path = f"/apis/{group}/v1/namespaces/{namespace}/widgets"

        def established() -> bool:
            got = control_plane.api.get(
                f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{group}"
            )
            return any(
                c["type"] == "Established" and c["status"] == "True"
                for c in got.get("status", {}).get("conditions") or []
            )

        wait_until(established, timeout=30, what="CRD Established")

        def widget(name: str, low: int, high: int) -> Obj:
            return {
                "apiVersion": f"{group}/v1",
                "kind": "Widget",
                "metadata": {"name": name},
                "spec": {"min": low, "max": high},
            }

        wait_until(
            lambda: _created(control_plane, path, widget("good", 1, 2)), timeout=30, what="good widget"
        )
        with pytest.raises(ApiError) as rejected:
            control_plane.api.create(path, widget("bad", 3, 2))
        assert rejected.value.status == 422
        assert "min must not exceed max" in str(rejected.value)
        assert gone(control_plane, f"{path}/bad")
    finally:
        control_plane.api.delete(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{group}")


def _created(cp: ControlPlane, path: str, body: Obj) -> bool:
    """Create, retrying while a just-established CRD's endpoint still answers 404."""
    try:
        cp.api.create(path, body)
        return True
    except ApiError as error:
        if error.status == 404:
            return False
        raise


# --- (b) a Job runs, mounts are faithful, the termination message is reported ---------------------------


def test_job_completes_with_configmap_mounted_read_only(control_plane: ControlPlane, namespace: str) -> None:
    control_plane.api.create(
        f"/api/v1/namespaces/{namespace}/configmaps",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "smoke"},
            "data": {"greeting": "hello", "unused": "x"},
        },
    )
    script = """
        import errno, os, socket
        greeting = open("/etc/smoke/greeting").read()
        try:
            open("/etc/smoke/written", "w")
            read_only = "writable"
        except OSError as error:
            read_only = errno.errorcode[error.errno]
        open("/tmp/scratch", "w").write("ok")  # the product writes to /tmp
        entries = sorted(os.listdir("/etc/smoke"))
        host = "host-ok" if os.environ["POD_NAME"] == socket.gethostname() else "host-bad"
        message = "|".join([greeting, read_only, host, os.environ["GREETING"], ",".join(entries)])
        open("/dev/termination-log", "w").write(message)
    """
    container = python_container(
        script,
        volumeMounts=[{"name": "smoke", "mountPath": "/etc/smoke", "readOnly": True}],
        env=[
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "GREETING", "valueFrom": {"configMapKeyRef": {"name": "smoke", "key": "greeting"}}},
        ],
    )
    volumes = [
        {"name": "smoke", "configMap": {"name": "smoke", "items": [{"key": "greeting", "path": "greeting"}]}}
    ]
    control_plane.api.create(jobs_path(namespace), job("smoke", [container], pod={"volumes": volumes}))

    job_condition(control_plane, namespace, "smoke", "Complete")
    (finished,) = job_pods(control_plane, namespace, "smoke")
    terminated = state(finished)["terminated"]
    assert terminated["exitCode"] == 0
    assert terminated["reason"] == "Completed"
    # kubelet's atomic-writer layout shows through: ..data and the timestamped directory
    greeting, read_only, host, env_greeting, entries = terminated["message"].split("|")
    assert (greeting, read_only, host, env_greeting) == ("hello", "EROFS", "host-ok", "hello")
    assert entries.startswith("..") and entries.split(",")[-1] == "greeting" and "unused" not in entries
    assert finished["status"]["phase"] == "Succeeded"


# --- (c) garbage collection through ownerReferences --------------------------------------------------


def test_deleting_the_owner_collects_the_job_and_its_pods(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str
) -> None:
    owner = control_plane.api.create(
        f"/api/v1/namespaces/{namespace}/configmaps",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "owner"},
        },
    )
    reference = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    sleeper = python_container(SLEEPER)
    control_plane.api.create(
        jobs_path(namespace), job("owned", [sleeper], metadata={"ownerReferences": [reference]})
    )
    pod_name = wait_until(
        lambda: [p["metadata"]["name"] for p in job_pods(control_plane, namespace, "owned")],
        what="the job's pod",
    )[0]
    running_pod(control_plane, namespace, pod_name)
    assert kubelet.is_running(namespace, pod_name)

    control_plane.api.delete(f"/api/v1/namespaces/{namespace}/configmaps/owner")

    wait_until(lambda: gone(control_plane, jobs_path(namespace, "owned")), timeout=60, what="job collected")
    wait_until(lambda: gone(control_plane, pods_path(namespace, pod_name)), timeout=60, what="pod collected")
    assert not kubelet.is_running(namespace, pod_name)


# --- (d) namespace deletion ---------------------------------------------------------------------------


def test_a_namespace_with_running_pods_deletes_cleanly(
    control_plane: ControlPlane, kubelet: LocalKubelet
) -> None:
    name = "doomed-namespace"
    control_plane.create_namespace(name)
    control_plane.api.create(
        pods_path(name),
        pod("sleeper", [python_container(SLEEPER)], terminationGracePeriodSeconds=5),
    )
    control_plane.api.create(
        f"/api/v1/namespaces/{name}/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
    )
    running_pod(control_plane, name, "sleeper")

    control_plane.delete_namespace(name, wait=90)

    assert gone(control_plane, f"/api/v1/namespaces/{name}")
    assert not kubelet.is_running(name, "sleeper")


# --- Indexed Jobs: several pods at once, each with its index ---------------------------------------------


def test_each_pod_of_an_indexed_job_gets_its_completion_index(
    control_plane: ControlPlane, namespace: str
) -> None:
    """The Job controller gives each pod of an Indexed Job its index as an annotation and as
    JOB_COMPLETION_INDEX (a downward-API fieldRef it adds to every container), which the kubelet resolves."""
    script = """
        import os, time
        time.sleep(1)
        open("/dev/termination-log", "w").write(os.environ["JOB_COMPLETION_INDEX"])
    """
    indexed = job(
        "indexed", [python_container(script)], completions=3, parallelism=3, completionMode="Indexed"
    )
    control_plane.api.create(jobs_path(namespace), indexed)

    job_condition(control_plane, namespace, "indexed", "Complete", timeout=120)
    pods = job_pods(control_plane, namespace, "indexed")
    reported = {
        p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]: state(p)["terminated"][
            "message"
        ]
        for p in pods
    }
    assert reported == {"0": "0", "1": "1", "2": "2"}


def test_an_indexed_job_writes_each_shard_on_a_provisioned_claim_that_outlives_its_pods(
    control_plane: ControlPlane, namespace: str
) -> None:
    """The local-path provisioner makes the claim's volume (Immediate binding, no scheduler); each pod of an
    Indexed Job mounts its own `shard-$(JOB_COMPLETION_INDEX)` (subPathExpr), as an arbitrary uid; a later
    pod reads the whole claim read-only; deleting the claim removes its volume and the directory."""
    api = control_plane.api
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "answers"},
        "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "64Mi"}}},
    }
    api.create(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", claim)
    volume = {"name": "answers", "persistentVolumeClaim": {"claimName": "answers"}}
    write = """
        import os
        open("/answers/index", "w").write(os.environ["JOB_COMPLETION_INDEX"])
    """
    writer = python_container(
        write,
        volumeMounts=[
            {"name": "answers", "mountPath": "/answers", "subPathExpr": "shard-$(JOB_COMPLETION_INDEX)"}
        ],
        securityContext={"runAsUser": 1000770000, "runAsGroup": 0},
    )
    shards = job(
        "shards", [writer], completions=2, parallelism=2, completionMode="Indexed", pod={"volumes": [volume]}
    )
    api.create(jobs_path(namespace), shards)
    job_condition(control_plane, namespace, "shards", "Complete", timeout=120)
    read = """
        import pathlib
        found = {p.parent.name: p.read_text() for p in sorted(pathlib.Path("/answers").glob("*/index"))}
        try:
            open("/answers/new", "w")
            found["writable"] = "yes"
        except OSError:
            found["writable"] = "no"
        open("/dev/termination-log", "w").write(repr(found))
    """
    reader = python_container(
        read, volumeMounts=[{"name": "answers", "mountPath": "/answers", "readOnly": True}]
    )
    api.create(pods_path(namespace), pod("reader", [reader], volumes=[volume]))
    done = terminated_pod(control_plane, namespace, "reader", timeout=120)
    assert state(done)["terminated"]["message"] == repr({"shard-0": "0", "shard-1": "1", "writable": "no"})
    bound = api.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/answers")
    assert bound["spec"]["storageClassName"] == "local-path"  # the default class
    volume_name = bound["spec"]["volumeName"]
    directory = Path(api.get(f"/api/v1/persistentvolumes/{volume_name}")["spec"]["hostPath"]["path"])
    assert (directory / "shard-1" / "index").read_text() == "1"
    api.delete(jobs_path(namespace, "shards"), {"propagationPolicy": "Foreground"})
    api.delete(pods_path(namespace, "reader"))
    api.delete(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/answers")
    wait_until(
        lambda: gone(control_plane, f"/api/v1/persistentvolumes/{volume_name}") and not directory.exists(),
        timeout=120,
        what="the provisioner to delete the released volume and its directory",
    )


# --- (e) Job deadline -----------------------------------------------------------------------------------


def test_a_job_past_its_deadline_fails_with_deadline_exceeded(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str
) -> None:
    sleeper = python_container(SLEEPER)
    control_plane.api.create(jobs_path(namespace), job("slow", [sleeper], activeDeadlineSeconds=3))

    failed = job_condition(control_plane, namespace, "slow", "Failed", timeout=90)

    assert failed["reason"] == "DeadlineExceeded"
    for leftover in job_pods(control_plane, namespace, "slow"):  # deleted, or terminal and being deleted
        assert not kubelet.is_running(namespace, leftover["metadata"]["name"])


# --- (f) FallbackToLogsOnError ------------------------------------------------------------------------


def test_fallback_to_logs_reports_the_log_tail(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str
) -> None:
    lines = [f"line {i:03d} " + "x" * 30 for i in range(120)]
    noisy = python_container(
        f"import sys\nfor line in {lines!r}: print(line)\nsys.exit(3)",
        terminationMessagePolicy="FallbackToLogsOnError",
    )
    explicit = python_container(
        "import sys\nprint('not this')\nopen('/dev/termination-log', 'w').write('from the file')\n"
        "sys.exit(4)",
        name="explicit",
        terminationMessagePolicy="FallbackToLogsOnError",
    )
    control_plane.api.create(pods_path(namespace), pod("noisy", [noisy, explicit]))

    finished = terminated_pod(control_plane, namespace, "noisy")

    log_tail = "".join(f"{line}\n" for line in lines[-LOG_TAIL_LINES:]).encode()[-LOG_TAIL_BYTES:].decode()
    assert state(finished)["terminated"]["exitCode"] == 3
    assert state(finished)["terminated"]["reason"] == "Error"
    assert state(finished)["terminated"]["message"] == log_tail
    assert state(finished, "explicit")["terminated"]["message"] == "from the file"
    assert finished["status"]["phase"] == "Failed"
    assert kubelet.logs(namespace, "noisy").splitlines()[0] == lines[0]


# --- (g) OOM kill ---------------------------------------------------------------------------------------


def test_oom_kill_reports_137_oomkilled(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str
) -> None:
    control_plane.api.create(pods_path(namespace), pod("hog", [python_container(SLEEPER)]))
    running = running_pod(control_plane, namespace, "hog")
    assert "running" in state(running)

    kubelet.oom_kill(namespace, "hog")

    finished = terminated_pod(control_plane, namespace, "hog")
    terminated = state(finished)["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (137, "OOMKilled")
    assert finished["status"]["phase"] == "Failed"


# --- (h) RBAC -------------------------------------------------------------------------------------------


def test_a_serviceaccount_without_a_role_is_forbidden(control_plane: ControlPlane, namespace: str) -> None:
    control_plane.api.create(
        f"/api/v1/namespaces/{namespace}/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "nobody"}},
    )
    kubeconfig = control_plane.token_kubeconfig(namespace, "nobody")

    denied = control_plane.kubectl("get", "pods", "-n", namespace, kubeconfig=kubeconfig, check=False)

    assert denied.returncode != 0
    assert f'"system:serviceaccount:{namespace}:nobody" cannot list resource "pods"' in denied.stderr

    # The same token works once a Role allows it: the refusal above was RBAC, not a broken token.
    rbac = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}"
    control_plane.api.create(
        f"{rbac}/roles",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "pod-reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}],
        },
    )
    control_plane.api.create(
        f"{rbac}/rolebindings",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "nobody"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "nobody", "namespace": namespace}],
        },
    )
    allowed = wait_until(
        lambda: (
            control_plane.kubectl(
                "get", "pods", "-n", namespace, kubeconfig=kubeconfig, check=False
            ).returncode
            == 0
        ),
        timeout=10,
        what="RBAC to allow listing pods",
    )
    assert allowed


# --- more kubelet faults ------------------------------------------------------------------------------


def test_eviction_fails_the_pod_with_a_disruption_target(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str
) -> None:
    control_plane.api.create(pods_path(namespace), pod("victim", [python_container(SLEEPER)]))
    running_pod(control_plane, namespace, "victim")

    kubelet.evict(namespace, "victim")

    finished = terminated_pod(control_plane, namespace, "victim")
    assert finished["status"]["phase"] == "Failed"
    assert finished["status"]["reason"] == "Evicted"
    conditions = {c["type"]: c for c in finished["status"]["conditions"]}
    assert conditions["DisruptionTarget"]["status"] == "True"
    assert conditions["DisruptionTarget"]["reason"] == "TerminationByKubelet"
    assert state(finished)["terminated"]["exitCode"] == 137


def test_images_that_start_late_never_or_are_unknown(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str
) -> None:
    # Two more names for the runner image, one pulling slowly and one never finishing its pull.
    stuck_image, slow_image = "localhost/assay-test/stuck:1", "localhost/assay-test/slow:1"
    buildah.tag(current_images().python, stuck_image, slow_image)
    kubelet.fault_pull(stuck_image, PullFault(never=True))
    kubelet.fault_pull(slow_image, PullFault(delay=3))
    quick = ["python", "-c", "print('hi')"]
    control_plane.api.create(
        pods_path(namespace), pod("stuck", [{"name": "main", "image": stuck_image, "command": quick}])
    )
    control_plane.api.create(
        pods_path(namespace), pod("slow", [{"name": "main", "image": slow_image, "command": quick}])
    )
    control_plane.api.create(
        pods_path(namespace), pod("unknown", [{"name": "main", "image": "nope/missing:1"}])
    )

    def waiting_reason(name: str) -> str | None:
        statuses = control_plane.api.get(pods_path(namespace, name))["status"].get("containerStatuses") or []
        return statuses[0]["state"].get("waiting", {}).get("reason") if statuses else None

    assert wait_until(lambda: waiting_reason("unknown") == "ErrImagePull", what="ErrImagePull")
    assert waiting_reason("slow") == "ContainerCreating"  # 3 s have not passed yet
    slow = terminated_pod(control_plane, namespace, "slow")
    started = state(slow)["terminated"]["startedAt"]
    assert started >= slow["status"]["startTime"]
    assert slow["status"]["phase"] == "Succeeded"

    stuck = control_plane.api.get(pods_path(namespace, "stuck"))
    assert stuck["status"]["phase"] == "Pending"
    assert waiting_reason("stuck") == "ContainerCreating"
    control_plane.api.delete(pods_path(namespace, "stuck"))
    wait_until(
        lambda: gone(control_plane, pods_path(namespace, "stuck")), timeout=30, what="stuck pod deleted"
    )


def test_an_openshift_style_pod_runs_as_an_arbitrary_uid_on_a_read_only_root(
    control_plane: ControlPlane, namespace: str
) -> None:
    script = """
        import errno, os
        open("/tmp/scratch", "w").write("ok")  # the emptyDir is writable for any uid
        try:
            open("/root-owned-file", "w")
            result = "root writable"
        except OSError as error:
            result = errno.errorcode[error.errno]
        ids = f"{os.getuid()}:{os.getgid()}:{sorted(os.getgroups())}"
        open("/dev/termination-log", "w").write(f"{result}|{ids}|{os.environ['HOME']}")
    """
    context = {"readOnlyRootFilesystem": True, "runAsNonRoot": True, "allowPrivilegeEscalation": False}
    container = python_container(
        script, securityContext=context, volumeMounts=[{"name": "tmp", "mountPath": "/tmp"}]
    )
    spec = {
        "volumes": [{"name": "tmp", "emptyDir": {}}],
        "securityContext": {"runAsUser": 1000680000, "fsGroup": 1000680000},
    }
    control_plane.api.create(pods_path(namespace), pod("restricted", [container], **spec))
    as_root = python_container("pass", securityContext={"runAsNonRoot": True})
    as_root["image"] = current_images().root_base  # an image whose USER is root
    control_plane.api.create(pods_path(namespace), pod("as-root", [as_root]))

    finished = terminated_pod(control_plane, namespace, "restricted")

    # HOME: the image's own ENV (an arbitrary uid has no passwd entry, so the runner image sets /tmp).
    assert state(finished)["terminated"]["message"] == "EROFS|1000680000:0:[1000680000]|/tmp"
    assert finished["status"]["phase"] == "Succeeded"

    def refusal() -> Obj | None:
        # Past ContainerCreating (its image's root may still be checked out on a loaded machine).
        waiting = state(control_plane.api.get(pods_path(namespace, "as-root"))).get("waiting")
        return waiting if waiting and waiting.get("reason") != "ContainerCreating" else None

    refused = wait_until(refusal, what="as-root to be refused")
    assert refused["reason"] == "CreateContainerConfigError"
    assert "container has runAsNonRoot and image will run as root" in refused["message"]


def test_a_pod_reaches_the_apiserver_with_its_projected_token(
    control_plane: ControlPlane, namespace: str
) -> None:
    script = """
        import os, ssl, urllib.error, urllib.request
        secrets = "/var/run/secrets/kubernetes.io/serviceaccount"
        token = open(f"{secrets}/token").read()
        namespace = open(f"{secrets}/namespace").read()
        context = ssl.create_default_context(cafile=f"{secrets}/ca.crt")
        host, port = os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"]
        request = urllib.request.Request(
            f"https://{host}:{port}/api/v1/namespaces/{namespace}/pods",
            headers={"Authorization": f"Bearer {token}"},
        )
        try:
            urllib.request.urlopen(request, context=context)
            result = "200"
        except urllib.error.HTTPError as error:
            result = f"{error.code} {error.read().decode()}"
        open("/dev/termination-log", "w").write(result)
    """
    control_plane.api.create(pods_path(namespace), pod("client", [python_container(script)]))

    finished = terminated_pod(control_plane, namespace, "client")

    # Authenticated as the pod's ServiceAccount (a bad token would be 401), refused by RBAC.
    message = state(finished)["terminated"]["message"]
    assert message.startswith("403 ")
    assert f"system:serviceaccount:{namespace}:default" in message


def test_pod_security_admission_enforces_the_restricted_level(
    control_plane: ControlPlane, namespace: str
) -> None:
    control_plane.api.merge_patch(
        f"/api/v1/namespaces/{namespace}",
        {"metadata": {"labels": {"pod-security.kubernetes.io/enforce": "restricted"}}},
    )
    loose = pod("loose", [python_container("pass")])
    restricted_context = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    tight = pod("tight", [python_container("pass", securityContext=restricted_context)])

    with pytest.raises(ApiError) as refused:
        control_plane.api.create(pods_path(namespace), loose)
    control_plane.api.create(pods_path(namespace), tight)

    assert refused.value.status == 403
    assert 'violates PodSecurity "restricted:latest"' in str(refused.value)


def test_init_containers_secrets_subpaths_downward_api_and_env_sources(
    control_plane: ControlPlane, namespace: str
) -> None:
    api = control_plane.api
    api.create(
        f"/api/v1/namespaces/{namespace}/configmaps",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "app"},
            "data": {"config.yaml": "level: 3\n", "MODE": "strict"},
        },
    )
    api.create(
        f"/api/v1/namespaces/{namespace}/secrets",
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "creds"},
            "stringData": {"token": "s3cret"},
        },
    )
    init = python_container(
        "open('/work/from-init', 'w').write('init ran')",
        name="prepare",
        volumeMounts=[{"name": "work", "mountPath": "/work"}],
    )
    script = """
        import json, os, stat, sys
        token_file = "/var/run/creds/token"
        result = {
            "init": open("/work/from-init").read(),
            "config": open("/etc/app/config.yaml").read(),
            "etc_app": sorted(os.listdir("/etc/app")),
            "token": open(token_file).read(),
            "token_mode": oct(stat.S_IMODE(os.stat(token_file).st_mode)),
            "labels": open("/etc/podinfo/labels").read(),
            "env": [os.environ["APP_MODE"], os.environ["TOKEN"], os.environ["GREETING"]],
            "argv": sys.argv[1:],
        }
        open("/dev/termination-log", "w").write(json.dumps(result))
    """
    main = {
        "name": "main",
        "image": current_images().python,
        "command": ["python", "-c", textwrap.dedent(script)],
        "args": ["$(GREETING)", "$$(GREETING)", "$(UNDEFINED)"],
        "envFrom": [{"configMapRef": {"name": "app"}, "prefix": "APP_"}],
        "env": [
            {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}},
            {"name": "GREETING", "value": "hi-$(APP_MODE)"},
        ],
        "volumeMounts": [
            {"name": "work", "mountPath": "/work"},
            {"name": "app", "mountPath": "/etc/app/config.yaml", "subPath": "config.yaml"},
            {"name": "creds", "mountPath": "/var/run/creds", "readOnly": True},
            {"name": "podinfo", "mountPath": "/etc/podinfo"},
        ],
    }
    volumes = [
        {"name": "work", "emptyDir": {}},
        {"name": "app", "configMap": {"name": "app"}},
        {"name": "creds", "secret": {"secretName": "creds", "defaultMode": 0o400}},
        {
            "name": "podinfo",
            "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]},
        },
    ]
    # As root: the Secret's 0400 file is root's (no fsGroup here), as on a node.
    manifest = pod("full", [main], initContainers=[init], volumes=volumes, securityContext={"runAsUser": 0})
    manifest["metadata"]["labels"] = {"app": "smoke", "tier": "test"}
    api.create(pods_path(namespace), manifest)

    finished = terminated_pod(control_plane, namespace, "full")

    assert finished["status"]["phase"] == "Succeeded", finished["status"]
    assert finished["status"]["initContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
    result = json.loads(state(finished)["terminated"]["message"])
    assert result == {
        "init": "init ran",
        "config": "level: 3\n",
        "etc_app": ["config.yaml"],
        "token": "s3cret",
        "token_mode": "0o400",
        "labels": 'app="smoke"\ntier="test"',
        "env": ["strict", "s3cret", "hi-strict"],
        "argv": ["hi-strict", "$(GREETING)", "$(UNDEFINED)"],
    }


def test_a_native_sidecar_runs_beside_the_pod_is_restarted_and_stopped_after_it(
    control_plane: ControlPlane, namespace: str
) -> None:
    """An init container with restartPolicy Always (KEP-753): the next init container starts once it runs;
    it exits at first and is restarted after kubelet's back-off; it serves the regular container; it is
    stopped (SIGTERM) once that container ended, and its exit code does not fail the pod."""
    sidecar_script = """
        import os, signal, sys, time
        starts = open("/shared/starts", "a+")
        starts.write("start\\n"); starts.flush(); starts.seek(0)
        if len(starts.read().split()) == 1:
            sys.exit(1)  # its first start fails: kubelet restarts it
        def stop(*_):
            open("/dev/termination-log", "w").write("stopped by SIGTERM")
            sys.exit(143)
        signal.signal(signal.SIGTERM, stop)
        open("/shared/served", "w").write("from the sidecar")
        while True:
            time.sleep(1)
    """
    sidecar = python_container(sidecar_script, name="helper", restartPolicy="Always")
    waits = python_container(
        "import os, time\nwhile not os.path.exists('/shared/served'): time.sleep(0.1)",
        name="waits-for-helper",
    )
    main = python_container("print(open('/shared/served').read())")
    for container in (sidecar, waits, main):
        container["volumeMounts"] = [{"name": "shared", "mountPath": "/shared"}]
    manifest = pod(
        "with-sidecar",
        [main],
        initContainers=[sidecar, waits],
        volumes=[{"name": "shared", "emptyDir": {}}],
        terminationGracePeriodSeconds=30,
    )
    control_plane.api.create(pods_path(namespace), manifest)

    finished = terminated_pod(control_plane, namespace, "with-sidecar", timeout=120)

    assert finished["status"]["phase"] == "Succeeded", finished["status"]
    assert state(finished)["terminated"]["exitCode"] == 0
    helper, waited = finished["status"]["initContainerStatuses"]
    assert waited["state"]["terminated"]["exitCode"] == 0
    assert helper["restartCount"] == 1 and helper["lastState"]["terminated"]["exitCode"] == 1
    stopped = helper["state"]["terminated"]
    assert stopped["exitCode"] == 143 and stopped["message"] == "stopped by SIGTERM"
    # Stopped only after the regular container ended.
    assert stopped["finishedAt"] >= state(finished)["terminated"]["finishedAt"]
