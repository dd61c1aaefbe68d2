"""What a container on the local kubelet's runc back end can and cannot see, asked from inside one.

A probe container (the runner image, OpenShift's restricted settings, a memory and a CPU limit) reports
who it runs as, its capabilities, no_new_privs and seccomp mode, the processes it can see, its cgroup
limits, whether its root is writable, whether mount and unshare work, whether the node's paths and a
neighbouring pod's Secret are anywhere in reach, and whether a server on the node's loopback answers.
"""

from __future__ import annotations

import http.server
import json
import secrets
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay_dev.cluster import ControlPlane, LocalKubelet
from assay_dev.cluster.wait import wait_until
from tests.conftest import current_images

pytestmark = pytest.mark.cluster

Obj = dict[str, Any]
REPO = Path(__file__).resolve().parents[2]

PROBE = """
    import ctypes, errno, json, os, socket, sys, urllib.request

    report = {"ids": [os.getuid(), os.getgid(), sorted(os.getgroups())]}
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    report.update(capEff=status["CapEff"].strip(), noNewPrivs=status["NoNewPrivs"].strip(),
                  seccomp=status["Seccomp"].strip(), hostname=socket.gethostname())
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    commands = {p: open(f"/proc/{p}/cmdline", "rb").read() for p in pids}
    report["processes"] = {p: command.replace(b"\\0", b" ").decode() for p, command in commands.items()}
    report["memoryLimit"] = int(open("/sys/fs/cgroup/memory/memory.limit_in_bytes").read())
    report["cpuQuota"] = int(open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").read())

    def error_of(action):
        try:
            action()
            return "ok"
        except OSError as error:
            return errno.errorcode[error.errno]

    report["writeRoot"] = error_of(lambda: open("/probe", "w"))
    report["writeTmp"] = error_of(lambda: open("/tmp/probe", "w"))
    libc = ctypes.CDLL(None, use_errno=True)

    def syscall(call):
        return "ok" if call() == 0 else errno.errorcode[ctypes.get_errno()]

    report["mount"] = syscall(lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
    report["unshare"] = syscall(lambda: libc.unshare(0x00020000))  # CLONE_NEWNS
    report["hostPaths"] = {path: os.path.exists(path) for path in sys.argv[1].split(",")}
    report["loopback"] = urllib.request.urlopen(sys.argv[2], timeout=10).read().decode()
    canary, found = sys.argv[3], []
    for root, dirs, files in os.walk("/"):
        if root == "/":
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
        for name in files:
            try:
                with open(os.path.join(root, name), "rb") as stream:
                    if canary.encode() in stream.read(1 << 20):
                        found.append(os.path.join(root, name))
            except OSError:
                pass
    for pid in pids:
        try:
            if canary.encode() in open(f"/proc/{pid}/environ", "rb").read():
                found.append(f"/proc/{pid}/environ")
        except OSError:
            pass
    report["canaryFound"] = found
    open("/dev/termination-log", "w").write(json.dumps(report))
"""

RESTRICTED = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "readOnlyRootFilesystem": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


@pytest.fixture
def loopback_server() -> Iterator[str]:
    """An HTTP server on the node's loopback, as the tests' gateway and MLflow servers are."""

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"hello from the node"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def pod(name: str, containers: list[Obj], **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"restartPolicy": "Never", "containers": containers, **spec},
    }


def python(name: str, script: str, *args: str, **extra: Any) -> Obj:
    command = ["python", "-c", textwrap.dedent(script), *args]
    return {"name": name, "image": current_images().python, "command": command, **extra}


def finished(cp: ControlPlane, namespace: str, name: str, timeout: float = 120) -> Obj:
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"

    def probe() -> Obj | None:
        current = cp.api.get(path)
        return current if current["status"].get("phase") in ("Succeeded", "Failed") else None

    return wait_until(
        probe, timeout=timeout, what=f"pod {name} to finish", describe=lambda: str(cp.api.get(path))
    )


def message(pod_obj: Obj, container: str) -> str:
    for status in pod_obj["status"]["containerStatuses"]:
        if status["name"] == container:
            return str(status["state"]["terminated"].get("message", ""))
    raise AssertionError(f"no container {container}")


def test_a_container_sees_its_own_processes_and_files_and_nothing_of_the_node_or_other_pods(
    control_plane: ControlPlane, kubelet: LocalKubelet, namespace: str, loopback_server: str
) -> None:
    api = control_plane.api
    canary = f"neighbour-canary-{secrets.token_hex(6)}"
    api.create(
        f"/api/v1/namespaces/{namespace}/secrets",
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "neighbour"},
            "stringData": {"key": canary},
        },
    )
    # A neighbouring pod holding the canary in a Secret volume and in its environment, running meanwhile.
    sleeper = python(
        "sleeper",
        "import time; time.sleep(600)",
        env=[{"name": "CANARY", "value": canary}],
        volumeMounts=[{"name": "secret", "mountPath": "/etc/neighbour"}],
    )
    neighbour = pod(
        "neighbour", [sleeper], volumes=[{"name": "secret", "secret": {"secretName": "neighbour"}}]
    )
    api.create(f"/api/v1/namespaces/{namespace}/pods", neighbour)

    def running() -> Obj | None:
        current = api.get(f"/api/v1/namespaces/{namespace}/pods/neighbour")
        return current if current["status"].get("phase") == "Running" else None

    neighbour_pod = wait_until(running, what="the neighbour to run")
    neighbour_volume = kubelet.work_dir / "pods" / neighbour_pod["metadata"]["uid"] / "volumes" / "secret"
    assert canary in (neighbour_volume / "key").read_text()  # it is on the node, in the neighbour's volume
    host_paths = [str(neighbour_volume), str(kubelet.work_dir), str(REPO / "pyproject.toml")]

    limits = {"cpu": "500m", "memory": "128Mi"}
    probe = python(
        "probe",
        PROBE,
        ",".join(host_paths),
        loopback_server,
        canary,
        securityContext={**RESTRICTED, "runAsUser": 1000680000},
        resources={"limits": limits, "requests": limits},
        volumeMounts=[{"name": "tmp", "mountPath": "/tmp"}],
    )
    api.create(
        f"/api/v1/namespaces/{namespace}/pods",
        pod("probe", [probe], volumes=[{"name": "tmp", "emptyDir": {}}]),
    )
    done = finished(control_plane, namespace, "probe")
    assert done["status"]["phase"] == "Succeeded", done["status"]
    report = json.loads(message(done, "probe"))

    # Who it is: an arbitrary uid in group 0, no capabilities, no_new_privs, seccomp filtering (mode 2).
    assert report["ids"] == [1000680000, 0, []]
    assert (report["capEff"], report["noNewPrivs"], report["seccomp"]) == ("0000000000000000", "1", "2")
    assert report["hostname"] == "probe"
    # Its own PID namespace: itself as PID 1 and nothing else — not the neighbour, not the node.
    assert list(report["processes"]) == ["1"], report["processes"]
    assert "python" in report["processes"]["1"]
    # Its cgroup limits: 128 MiB of memory, half a CPU per 100 ms period.
    assert (report["memoryLimit"], report["cpuQuota"]) == (128 * 1024 * 1024, 50_000)
    # A read-only root, a writable emptyDir; no mount, no new namespaces.
    assert (report["writeRoot"], report["writeTmp"]) == ("EROFS", "ok")
    assert (report["mount"], report["unshare"]) == ("EPERM", "EPERM")
    # Nothing of the node's file system, the neighbour's volume included; the node's loopback answers.
    assert report["hostPaths"] == dict.fromkeys(host_paths, False)
    assert report["loopback"] == "hello from the node"
    assert report["canaryFound"] == []


def test_containers_of_a_pod_share_processes_only_when_the_pod_asks(
    control_plane: ControlPlane, namespace: str
) -> None:
    api = control_plane.api
    listing = (
        "import os, time; time.sleep(2); open('/dev/termination-log', 'w').write(' '.join(sorted("
        "open(f'/proc/{p}/cmdline').read().replace(chr(0), ' ').strip() for p in os.listdir('/proc') "
        "if p.isdigit())))"
    )
    for name, shared in (("apart", False), ("together", True)):
        containers = [python("lister", listing), python("sidecar", "import time; time.sleep(5)")]
        api.create(
            f"/api/v1/namespaces/{namespace}/pods", pod(name, containers, shareProcessNamespace=shared)
        )
    apart = message(finished(control_plane, namespace, "apart"), "lister")
    together = message(finished(control_plane, namespace, "together"), "lister")
    assert "sleep(5)" not in apart and "catatonit" not in apart
    assert "sleep(5)" in together and "/catatonit -P" in together  # the sidecar, and the pod's sandbox
