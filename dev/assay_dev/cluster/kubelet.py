"""A local kubelet: runs the pods of one Node as local processes, for tests on a real control plane.

What it does, as kubelet does it:
- registers a Ready Node and binds every unscheduled pod to it (the `binding` subresource);
- per container, resolves the image through a map the tests give (`ImageSpec`), builds argv and env, lays
  out volumes in a per-pod directory and starts the process in a private mount namespace where those
  volumes (and a per-container file for `terminationMessagePath`) are bind-mounted at the pod's real
  paths (see pod_init.py);
- reports Pending/ContainerCreating, Running, then terminated {exitCode, reason, message, startedAt,
  finishedAt} and phase Succeeded/Failed through the `/status` subresource, reading the termination message
  exactly like kubelet (the file's last 4096 bytes; with FallbackToLogsOnError and a non-zero exit, the
  last 2048 bytes of the last 80 log lines);
- on deletionTimestamp, SIGTERM then SIGKILL after the grace period, final status, then delete with
  grace 0 — what lets Job deadlines, garbage collection and namespace deletion finish.

Faults for tests: `oom_kill`, `evict`, and images that start late or never (`ImageSpec`).
Not covered: restarts (every restartPolicy behaves like Never), probes, resource limits, sidecar init
containers, capabilities/seccomp/SELinux (users and groups from securityContext and readOnlyRootFilesystem
are applied), `kubectl logs/exec`, pod networking (every pod is 127.0.0.1 on the host network).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import functools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import waiting
from .kubeapi import ApiError, KubeApi, pods_path
from .podspec import ConfigError, ImageSpec, container_argv, container_env, identity, pod_hostname
from .volumes import MountError, materialize

Obj = dict[str, Any]
log = logging.getLogger(__name__)

POD_INIT = Path(__file__).with_name("pod_init.py")
POD_IP = "127.0.0.1"
TERMINATION_MESSAGE_MAX = 4096
LOG_TAIL_LINES = 80
LOG_TAIL_BYTES = 2048
POD_MESSAGE_BUDGET = 12 * 1024
START_ERROR_EXIT = 128
EVICTION_MESSAGE = "The node was low on resource: memory."
OWNED_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def termination_message(
    container: Obj, message_file: Path, log_file: Path, exit_code: int, pod_budget: int = POD_MESSAGE_BUDGET
) -> str:
    """The message kubelet puts in state.terminated.message (pkg/kubelet/kuberuntime: the file's last 4096
    bytes, else the log tail; pkg/kubelet/status: at most 12 KiB per pod, split evenly among containers)."""
    data = b""
    if message_file.exists():
        with message_file.open("rb") as f:
            f.seek(max(0, message_file.stat().st_size - TERMINATION_MESSAGE_MAX))
            data = f.read()
    fallback = container.get("terminationMessagePolicy") == "FallbackToLogsOnError" and exit_code != 0
    if not data and fallback and log_file.exists():
        lines = log_file.read_bytes().splitlines(keepends=True)[-LOG_TAIL_LINES:]
        data = b"".join(lines)[-LOG_TAIL_BYTES:]
    return data[:pod_budget].decode(errors="replace")


class _Stopped(Exception):
    """The kubelet is stopping, or the pod is gone."""


@dataclass
class _Container:
    spec: Obj
    init: bool
    state: Obj = field(default_factory=lambda: {"waiting": {"reason": "ContainerCreating"}})
    process: subprocess.Popen[bytes] | None = None
    started_at: str = ""
    oom_killed: bool = False
    message_file: Path | None = None
    start_error_file: Path | None = None
    log_file: Path | None = None

    @property
    def name(self) -> str:
        return str(self.spec["name"])

    @property
    def terminated(self) -> Obj | None:
        value: Obj | None = self.state.get("terminated")
        return value

    def status(self, pod_uid: str) -> Obj:
        running = "running" in self.state
        status: Obj = {
            "name": self.name,
            "image": self.spec["image"],
            "imageID": f"local://{self.spec['image']}",
            "ready": running and not self.init,
            "restartCount": 0,
            "started": running,
            "state": self.state,
            "lastState": {},
        }
        if self.process is not None:
            status["containerID"] = f"local://{pod_uid}/{self.name}/{self.process.pid}"
        return status


class LocalKubelet:
    """One Node whose pods run as local processes. Thread-based; `start()` then `stop()`."""

    def __init__(
        self,
        api: KubeApi,
        *,
        work_dir: Path,
        node_name: str = "assay-local-node",
        images: Mapping[str, ImageSpec] | None = None,
        service_env: Mapping[str, str] | None = None,
        keep_paths: Sequence[str] | None = None,
    ) -> None:
        self.api = api
        self.node_name = node_name
        self.work_dir = work_dir
        self.images: dict[str, ImageSpec] = dict(images or {})
        self.service_env = dict(service_env or {})
        # The interpreter an image map points at must survive a volume mounted over its parent (/tmp).
        self.keep_paths = list(keep_paths if keep_paths is not None else _default_keep_paths())
        self.allocatable = {"cpu": str(os.cpu_count() or 1), "memory": f"{_memory_kib()}Ki", "pods": "250"}
        self._workers: dict[str, _PodWorker] = {}
        self._by_name: dict[tuple[str, str], _PodWorker] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._created_paths: list[Path] = []
        self._machine_lock: TextIO | None = None

    # --- public API ---------------------------------------------------------------------------------

    def register_image(self, image: str, spec: ImageSpec) -> None:
        self.images[image] = spec

    def start(self) -> None:
        _check_namespaces()
        self.work_dir.mkdir(parents=True, exist_ok=True)
        # Shared by every live local kubelet on this machine; see _remove_created_paths.
        self._machine_lock = (Path(tempfile.gettempdir()) / "assay-local-kubelet.lock").open("a")
        fcntl.flock(self._machine_lock, fcntl.LOCK_SH)
        self._register_node()
        self._thread = threading.Thread(target=self._watch_loop, name="local-kubelet", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Kill every pod process, stop the watch, remove the mount points made on the host."""
        self._stopping.set()
        with self._lock:
            workers = list(self._workers.values())
        for worker in workers:
            worker.kill_all(signal.SIGKILL)
            worker.wake()
        for worker in workers:
            worker.join(10)
        self.api.close()  # ends the watch the loop is blocked in
        if self._thread is not None:
            self._thread.join(10)
        self._remove_created_paths()

    def log_path(self, namespace: str, name: str, container: str | None = None) -> Path:
        """The file holding a container's stdout and stderr (the first container by default)."""
        worker = self._worker(namespace, name)
        chosen = worker.container(container)
        assert chosen.log_file is not None
        return chosen.log_file

    def logs(self, namespace: str, name: str, container: str | None = None) -> str:
        path = self.log_path(namespace, name, container)
        return path.read_text(errors="replace") if path.exists() else ""

    def oom_kill(self, namespace: str, name: str, container: str | None = None) -> None:
        """Kill a running container with SIGKILL and report it as the kernel's OOM killer would (137)."""
        self._worker(namespace, name).oom_kill(container)

    def evict(self, namespace: str, name: str, message: str = EVICTION_MESSAGE) -> None:
        """Evict a pod as kubelet's eviction manager does: DisruptionTarget condition, containers killed,
        phase Failed with reason Evicted; the pod object stays."""
        self._worker(namespace, name).evict(message)

    def is_running(self, namespace: str, name: str) -> bool:
        worker = self._worker(namespace, name)
        return any(c.process is not None and c.process.poll() is None for c in worker.containers)

    # --- internals ----------------------------------------------------------------------------------

    def _worker(self, namespace: str, name: str, timeout: float = 30.0) -> _PodWorker:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                worker = self._by_name.get((namespace, name))
            if worker is not None:
                return worker
            if time.monotonic() > deadline:
                raise LookupError(f"pod {namespace}/{name} is not on node {self.node_name}")
            time.sleep(0.1)

    def _register_node(self) -> None:
        node: Obj = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.node_name,
                "labels": {
                    "kubernetes.io/hostname": self.node_name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                },
            },
        }
        try:
            self.api.create("/api/v1/nodes", node)
        except ApiError as error:
            if error.status != 409:
                raise
        stamp = now()
        status = {
            "capacity": self.allocatable,
            "allocatable": self.allocatable,
            "addresses": [
                {"type": "InternalIP", "address": POD_IP},
                {"type": "Hostname", "address": self.node_name},
            ],
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "local kubelet is posting ready status",
                    "lastHeartbeatTime": stamp,
                    "lastTransitionTime": stamp,
                }
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "operatingSystem": "linux",
                "kubeletVersion": "local",
                "kubeProxyVersion": "",
                "containerRuntimeVersion": "local://0",
                "osImage": "local",
                "kernelVersion": os.uname().release,
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
            },
        }
        self.api.merge_patch(f"/api/v1/nodes/{self.node_name}/status", {"status": status})

    def _watch_loop(self) -> None:
        resource_version = ""
        while not self._stopping.is_set():
            try:
                if not resource_version:
                    listing = self.api.get("/api/v1/pods")
                    for pod in listing["items"]:
                        self._on_pod(pod)
                    resource_version = listing["metadata"]["resourceVersion"]
                for event in self.api.watch("/api/v1/pods", resource_version, timeout_seconds=60):
                    if event["type"] == "ERROR":  # 410 Gone: our resourceVersion is too old
                        resource_version = ""
                        break
                    obj = event["object"]
                    resource_version = obj["metadata"]["resourceVersion"]
                    if event["type"] == "DELETED":
                        self._on_pod_deleted(obj)
                    elif event["type"] in ("ADDED", "MODIFIED"):
                        self._on_pod(obj)
            except Exception:
                if self._stopping.is_set():
                    return
                log.exception("local kubelet: pod watch failed; retrying")
                resource_version = ""
                time.sleep(0.5)

    def _on_pod(self, pod: Obj) -> None:
        meta, spec = pod["metadata"], pod["spec"]
        node = spec.get("nodeName")
        if not node:
            if "deletionTimestamp" not in meta and spec.get("schedulerName") in (None, "default-scheduler"):
                self._bind(pod)
            return
        if node != self.node_name:
            return
        with self._lock:
            worker = self._workers.get(meta["uid"])
            if worker is None:
                if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                    # Finished before this kubelet started: only confirm a deletion.
                    if "deletionTimestamp" in meta:
                        threading.Thread(target=self._confirm_deletion, args=(pod,), daemon=True).start()
                    return
                worker = _PodWorker(self, pod)
                self._workers[meta["uid"]] = worker
                self._by_name[(meta["namespace"], meta["name"])] = worker
                worker.start()
                return
        worker.observe(pod)

    def _on_pod_deleted(self, pod: Obj) -> None:
        with self._lock:
            worker = self._workers.pop(pod["metadata"]["uid"], None)
        if worker is not None:
            worker.gone()

    def _bind(self, pod: Obj) -> None:
        meta = pod["metadata"]
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": meta["name"], "uid": meta["uid"]},
            "target": {"apiVersion": "v1", "kind": "Node", "name": self.node_name},
        }
        try:
            self.api.create(pods_path(meta["namespace"], meta["name"], "binding"), binding)
        except ApiError as error:
            if error.status not in (404, 409):  # gone, or bound already
                log.warning("local kubelet: binding %s/%s failed: %s", meta["namespace"], meta["name"], error)

    def _confirm_deletion(self, pod: Obj) -> None:
        meta = pod["metadata"]
        body = {"gracePeriodSeconds": 0, "preconditions": {"uid": meta["uid"]}}
        try:
            self.api.delete(pods_path(meta["namespace"], meta["name"]), body)
        except ApiError as error:
            if error.status not in (404, 409):
                raise

    def config_map(self, namespace: str, name: str) -> Obj | None:
        return self._get_or_none(f"/api/v1/namespaces/{namespace}/configmaps/{name}")

    def secret(self, namespace: str, name: str) -> Obj | None:
        return self._get_or_none(f"/api/v1/namespaces/{namespace}/secrets/{name}")

    def _get_or_none(self, path: str) -> Obj | None:
        try:
            return self.api.get(path)
        except ApiError as error:
            if error.status == 404:
                return None
            raise

    def token(self, pod: Obj, audience: str, expiration_seconds: int) -> str:
        meta = pod["metadata"]
        account = pod["spec"].get("serviceAccountName") or "default"
        request: Obj = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {
                "audiences": [audience] if audience else [],
                "expirationSeconds": expiration_seconds,
                "boundObjectRef": {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": meta["name"],
                    "uid": meta["uid"],
                },
            },
        }
        path = f"/api/v1/namespaces/{meta['namespace']}/serviceaccounts/{account}/token"
        try:
            response = self.api.create(path, request)
        except ApiError as error:
            raise MountError(f"failed to fetch token: {error}") from error
        return str(response["status"]["token"])

    def ensure_host_mount_point(self, path: Path, is_file: bool) -> None:
        """Create a missing mount point on the host (a mount namespace shares the host's files) and
        remember it, so stop() can remove it again."""
        with self._lock:
            if os.path.lexists(path):
                return
            missing = [path]
            while not os.path.lexists(missing[-1].parent):
                missing.append(missing[-1].parent)
            path.parent.mkdir(parents=True, exist_ok=True)
            if is_file:
                path.touch()
            else:
                path.mkdir()
            self._created_paths.extend(reversed(missing))

    def _remove_created_paths(self) -> None:
        """Remove the mount points made on the host, unless another local kubelet (another test run) is
        alive: unlinking a mount point detaches it in every namespace, its pods' included."""
        if self._machine_lock is None:
            return
        try:
            fcntl.flock(self._machine_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._created_paths.clear()
        for path in reversed(self._created_paths):
            try:
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()
                elif path.stat().st_size == 0:
                    path.unlink()
            except OSError:
                pass  # not empty, or still in use: leave it
        self._created_paths.clear()
        self._machine_lock.close()
        self._machine_lock = None


def _check_namespaces() -> None:
    """Pods need root and mount namespaces; say so at start rather than with every pod failing."""
    probe = ["unshare", "--mount", "--uts", "--propagation", "private", "--", "true"]
    result = subprocess.run(probe, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"the local kubelet needs root and mount namespaces (`{' '.join(probe)}` failed: "
            f"{result.stderr.strip()})"
        )


def _default_keep_paths() -> list[str]:
    """This interpreter's installation and virtualenv: what the default image map points at."""
    return sorted({sys.prefix, os.path.realpath(sys.base_prefix)})


def _memory_kib() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    return 0


class _PodWorker:
    """Runs one pod from creation to deletion, in its own thread."""

    def __init__(self, kubelet: LocalKubelet, pod: Obj) -> None:
        self.kubelet = kubelet
        self.pod = pod
        meta = pod["metadata"]
        self.namespace: str = meta["namespace"]
        self.name: str = meta["name"]
        self.uid: str = meta["uid"]
        self.dir = kubelet.work_dir / "pods" / self.uid
        self.logs_dir = kubelet.work_dir / "logs" / f"{self.namespace}_{self.name}_{self.uid}"
        spec = pod["spec"]
        self.containers = [_Container(c, init=True) for c in spec.get("initContainers") or []] + [
            _Container(c, init=False) for c in spec["containers"]
        ]
        for c in self.containers:
            c.log_file = self.logs_dir / f"{c.name}.log"
        self.start_time = now()
        self.phase = "Pending"
        self.pod_reason: str | None = None
        self.pod_message: str | None = None
        self.extra_conditions: list[Obj] = []
        self._deletion = threading.Event()
        self._gone = threading.Event()
        self._wake = threading.Event()
        self._evict_message: str | None = None
        self.events = waiting.PodEvents(kubelet.api, pod, kubelet.node_name)
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._run, name=f"pod-{self.namespace}/{self.name}", daemon=True
        )

    # --- called from other threads ------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def wake(self) -> None:
        self._wake.set()

    def observe(self, pod: Obj) -> None:
        with self._lock:
            self.pod = pod
        if "deletionTimestamp" in pod["metadata"]:
            self._deletion.set()
        self._wake.set()

    def gone(self) -> None:
        self._gone.set()
        self.kill_all(signal.SIGKILL)
        self._wake.set()

    def container(self, name: str | None) -> _Container:
        regular = [c for c in self.containers if not c.init]
        if name is None:
            return regular[0]
        for c in self.containers:
            if c.name == name:
                return c
        raise LookupError(f"pod {self.namespace}/{self.name} has no container {name}")

    def oom_kill(self, name: str | None) -> None:
        target = self.container(name)
        deadline = time.monotonic() + 30
        while target.process is None or "running" not in target.state:
            if time.monotonic() > deadline:
                raise TimeoutError(f"container {target.name} of {self.namespace}/{self.name} never ran")
            time.sleep(0.05)
        target.oom_killed = True
        _kill_group(target.process, signal.SIGKILL)
        self._wake.set()

    def evict(self, message: str) -> None:
        self._evict_message = message
        self.kill_all(signal.SIGKILL)
        self._wake.set()

    def kill_all(self, sig: signal.Signals) -> None:
        for c in self.containers:
            if c.process is not None:
                _kill_group(c.process, sig)

    # --- the pod's life -----------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._live()
        except _Stopped:
            pass
        except Exception:
            log.exception("local kubelet: pod %s/%s failed unexpectedly", self.namespace, self.name)
        finally:
            self.kill_all(signal.SIGKILL)
            for c in self.containers:
                if c.process is not None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        c.process.wait(5)
            if self._gone.is_set():
                shutil.rmtree(self.dir, ignore_errors=True)

    def _check_stop(self) -> None:
        if self.kubelet._stopping.is_set() or self._gone.is_set():
            raise _Stopped

    def _interrupted(self) -> bool:
        return self._deletion.is_set() or self._evict_message is not None

    def _sleep(self, seconds: float) -> None:
        """Sleep, waking early for a deletion, an eviction or a stop."""
        deadline = time.monotonic() + seconds
        while not self._interrupted():
            self._check_stop()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._wake.wait(min(left, 0.5))
            self._wake.clear()

    def _live(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        self._write_status()
        sources = self._prepare()
        init = [c for c in self.containers if c.init]
        regular = [c for c in self.containers if not c.init]
        if sources is not None:
            for container in init:
                self._start(container, sources)
                self._write_status()
                self._wait_for({container.name})
                if container.terminated is None or container.terminated["exitCode"] != 0:
                    break
            else:
                for container in regular:
                    self._start(container, sources)
                if all(c.process is not None for c in regular):
                    self.phase = "Running"
                self._write_status()
                self._wait_for({c.name for c in regular})
        self._finish()
        self._write_status()
        # A bound pod is gone only once its kubelet confirms: wait for the deletion, then confirm it.
        while not self._deletion.is_set():
            self._check_stop()
            self._wake.wait(1)
            self._wake.clear()
        with self._lock:
            pod = self.pod
        self.kubelet._confirm_deletion(pod)
        while not self._gone.is_set() and not self.kubelet._stopping.is_set():
            self._wake.wait(1)
            self._wake.clear()

    def _prepare(self) -> dict[str, Path] | None:
        """Wait until every image is known and started pulling and every volume can be laid out; returns
        the volume sources, or None when the pod is deleted or evicted first."""
        started = time.monotonic()
        while not self._interrupted():
            self._check_stop()
            try:
                images = {c.name: self._image(c) for c in self.containers}
                delay = max((image.start_delay for image in images.values()), default=0.0)
                if any(image.never_start for image in images.values()) or time.monotonic() - started < delay:
                    self._sleep(0.2 if not any(i.never_start for i in images.values()) else 1.0)
                    continue
                with self._lock:
                    pod = self.pod
                volumes_dir = self.dir / "volumes"
                shutil.rmtree(volumes_dir, ignore_errors=True)
                mount = functools.partial(
                    materialize,
                    pod,
                    volumes_dir=volumes_dir,
                    objects=self.kubelet,
                    tokens=self.kubelet.token,
                    allocatable=self.kubelet.allocatable,
                )
                return waiting.mount_all(pod["spec"].get("volumes") or [], mount)
            except waiting.FailedMount as error:  # as kubelet: default waiting reasons, the why in an Event
                self.events.warning("FailedMount", str(error))
                self._set_waiting(waiting.default_waiting(pod)["waiting"]["reason"], "")
                self._sleep(1.0)
            except _UnknownImage as error:
                self._set_waiting("ErrImagePull", str(error))
                self._sleep(1.0)
        return None

    def _image(self, container: _Container) -> ImageSpec:
        image = container.spec["image"]
        spec = self.kubelet.images.get(image)
        if spec is None:
            known = ", ".join(sorted(self.kubelet.images)) or "none"
            raise _UnknownImage(f"image {image!r} is not in the local kubelet's image map (known: {known})")
        return spec

    def _set_waiting(self, reason: str, message: str) -> None:
        changed = False
        for c in self.containers:
            state = {"waiting": {"reason": reason, **({"message": message} if message else {})}}
            if c.process is None and c.state != state:
                c.state = state
                changed = True
        if changed:
            log.warning("local kubelet: pod %s/%s: %s: %s", self.namespace, self.name, reason, message)
            self._write_status()

    def _start(self, container: _Container, sources: Mapping[str, Path]) -> None:
        """Start one container, or record why it cannot start (kubelet's CreateContainerConfigError)."""
        while True:
            self._check_stop()
            if self._interrupted():
                return
            try:
                plan = self._plan(container, sources)
                break
            except (ConfigError, MountError) as error:
                container.state = {"waiting": {"reason": "CreateContainerConfigError", "message": str(error)}}
                self._write_status()
                self._sleep(1.0)
        plan_file = self.dir / f"{container.name}.plan.json"
        plan_file.write_text(json.dumps(plan))
        assert container.log_file is not None
        with container.log_file.open("ab") as log_file:
            container.process = subprocess.Popen(
                [
                    "unshare",
                    "--mount",
                    "--uts",
                    "--propagation",
                    "private",
                    "--",
                    sys.executable,
                    "-I",
                    "-S",
                    str(POD_INIT),
                    str(plan_file),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                cwd="/",
            )
        container.started_at = now()
        container.state = {"running": {"startedAt": container.started_at}}

    def _plan(self, container: _Container, sources: Mapping[str, Path]) -> Obj:
        """What pod_init.py needs: mounts, argv, env, working directory."""
        with self._lock:
            pod = self.pod
        spec = container.spec
        image = self._image(container)
        env = container_env(
            pod,
            spec,
            image,
            objects=self.kubelet,
            service_env=self.kubelet.service_env,
            allocatable=self.kubelet.allocatable,
        )
        argv = container_argv(spec, image, env)
        user = identity(pod, spec, image)
        mounts: list[Obj] = []
        for mount in spec.get("volumeMounts") or []:
            if mount["name"] not in sources:
                raise ConfigError(f"volume {mount['name']!r} not found in pod spec")
            source = sources[mount["name"]]
            if mount.get("subPath"):
                source = source / mount["subPath"]
                if not os.path.lexists(source):
                    source.mkdir(parents=True)  # as kubelet does for a missing subPath
            mounts.append(
                {
                    "source": str(source),
                    "target": mount["mountPath"],
                    "readOnly": bool(mount.get("readOnly")),
                    "file": not source.is_dir(),
                }
            )
        message_path = spec.get("terminationMessagePath") or "/dev/termination-log"
        container.message_file = self.dir / f"{container.name}.termination-log"
        container.message_file.write_bytes(b"")
        container.message_file.chmod(0o666)
        container.start_error_file = self.dir / f"{container.name}.start-error"
        mounts.append(
            {"source": str(container.message_file), "target": message_path, "readOnly": False, "file": True}
        )
        for m in _top_level(mounts):
            self.kubelet.ensure_host_mount_point(Path(m["target"]), m["file"])
        security = spec.get("securityContext") or {}
        root_dir = self.dir / f"{container.name}.root"  # where a read-only root is assembled
        root_dir.mkdir(exist_ok=True)
        return {
            "mounts": mounts,
            "keep": self.kubelet.keep_paths,
            "argv": argv,
            "env": env,
            "cwd": spec.get("workingDir") or image.workdir,
            "hostname": pod_hostname(pod),
            "readOnlyRootFilesystem": bool(security.get("readOnlyRootFilesystem")),
            "uid": user.uid,
            "gid": user.gid,
            "groups": list(user.groups),
            "rootDir": str(root_dir),
            "startErrorFile": str(container.start_error_file),
        }

    def _wait_for(self, names: set[str]) -> None:
        """Wait until the named containers exit; on deletion, SIGTERM, then SIGKILL after the grace."""
        kill_at: float | None = None
        while True:
            self._check_stop()
            changed = False
            for c in self.containers:
                if c.name not in names or c.terminated is not None:
                    continue
                if c.process is None:  # never started: deleted while its config was missing
                    c.state = {
                        "terminated": {
                            "exitCode": 137,
                            "reason": "ContainerStatusUnknown",
                            "startedAt": None,
                            "message": "The container could not be located when the pod was terminated",
                            "finishedAt": now(),
                        }
                    }
                    changed = True
                elif _exited(c.process):
                    _kill_group(c.process, signal.SIGKILL)  # a container's processes die with its first
                    c.process.wait()
                    self._record_exit(c)
                    changed = True
            if all(c.terminated is not None for c in self.containers if c.name in names):
                return
            if changed:
                self._write_status()
            if self._deletion.is_set() and kill_at is None:
                with self._lock:
                    grace = self.pod["metadata"].get("deletionGracePeriodSeconds", 30)
                self.kill_all(signal.SIGTERM)
                kill_at = time.monotonic() + float(grace)
            if kill_at is not None and time.monotonic() >= kill_at:
                self.kill_all(signal.SIGKILL)
            self._wake.wait(0.05)
            self._wake.clear()

    def _record_exit(self, container: _Container) -> None:
        assert container.process is not None and container.log_file is not None
        code = container.process.returncode
        exit_code = 128 - code if code < 0 else code  # killed by signal N: 128 + N
        assert container.start_error_file is not None and container.message_file is not None
        start_error = container.start_error_file.read_text() if container.start_error_file.exists() else ""
        terminated: Obj = {"exitCode": exit_code, "startedAt": container.started_at, "finishedAt": now()}
        if start_error and exit_code == START_ERROR_EXIT:
            terminated.update(reason="StartError", message=start_error)
        else:
            terminated["reason"] = (
                "OOMKilled" if container.oom_killed else ("Completed" if exit_code == 0 else "Error")
            )
            message = termination_message(
                container.spec,
                container.message_file,
                container.log_file,
                exit_code,
                POD_MESSAGE_BUDGET // len(self.containers),
            )
            if message:
                terminated["message"] = message
        container.state = {"terminated": terminated}

    def _finish(self) -> None:
        """The terminal phase (every restartPolicy behaves like Never)."""
        for c in self.containers:
            if c.terminated is None and c.process is None:
                c.state = {"waiting": {"reason": "PodInitializing"}} if not c.init else c.state
        codes = [c.terminated["exitCode"] for c in self.containers if c.terminated is not None]
        regular_done = all(c.terminated is not None for c in self.containers if not c.init)
        self.phase = "Succeeded" if regular_done and all(code == 0 for code in codes) else "Failed"
        if self._evict_message is not None:
            self.phase = "Failed"
            self.pod_reason, self.pod_message = "Evicted", self._evict_message
            self.extra_conditions = [
                {
                    "type": "DisruptionTarget",
                    "status": "True",
                    "reason": "TerminationByKubelet",
                    "message": self._evict_message,
                    "lastTransitionTime": now(),
                }
            ]

    # --- status -------------------------------------------------------------------------------------

    def _owned_status(self) -> Obj:
        regular = [c for c in self.containers if not c.init]
        init = [c for c in self.containers if c.init]
        terminal = self.phase in ("Succeeded", "Failed")
        initialized = all(c.terminated is not None and c.terminated["exitCode"] == 0 for c in init)
        ready = not terminal and all("running" in c.state for c in regular)
        sandbox = any(c.process is not None for c in self.containers) or terminal
        reason_not_ready = "PodCompleted" if terminal else "ContainersNotReady"
        conditions = [
            _condition("PodReadyToStartContainers", sandbox and not terminal),
            _condition("Initialized", initialized, None if initialized else "ContainersNotInitialized"),
            _condition("ContainersReady", ready, None if ready else reason_not_ready),
            _condition("Ready", ready, None if ready else reason_not_ready),
            *self.extra_conditions,
        ]
        status: Obj = {
            "phase": self.phase,
            "hostIP": POD_IP,
            "hostIPs": [{"ip": POD_IP}],
            "podIP": POD_IP,
            "podIPs": [{"ip": POD_IP}],
            "startTime": self.start_time,
            "conditions": conditions,
            "containerStatuses": [c.status(self.uid) for c in regular],
        }
        if init:
            status["initContainerStatuses"] = [c.status(self.uid) for c in init]
        if self.pod_reason:
            status["reason"], status["message"] = self.pod_reason, self.pod_message
        return status

    def _write_status(self) -> None:
        """Replace the kubelet-owned parts of the status (complete lists), keeping others' conditions."""
        owned = self._owned_status()
        owned_types = {c["type"] for c in owned["conditions"]} | set(OWNED_CONDITIONS)
        path = pods_path(self.namespace, self.name)
        for _ in range(20):
            try:
                current = self.kubelet.api.get(path)
            except ApiError as error:
                if error.status == 404:
                    return
                raise
            if current["metadata"]["uid"] != self.uid:
                return
            previous = {c["type"]: c for c in current.get("status", {}).get("conditions") or []}
            conditions = [c for c in previous.values() if c["type"] not in owned_types]
            for condition in owned["conditions"]:
                old = previous.get(condition["type"])
                unchanged = old is not None and old.get("status") == condition["status"]
                since = old["lastTransitionTime"] if unchanged and old else condition["lastTransitionTime"]
                conditions.append({**condition, "lastTransitionTime": since})
            body = {
                "metadata": {"resourceVersion": current["metadata"]["resourceVersion"]},
                "status": {**owned, "conditions": conditions},
            }
            try:
                self.kubelet.api.merge_patch(pods_path(self.namespace, self.name, "status"), body)
                return
            except ApiError as error:
                if error.status == 404:
                    return
                if error.status != 409:
                    raise
        raise RuntimeError(f"could not write the status of pod {self.namespace}/{self.name}: conflicts")


class _UnknownImage(Exception):
    """An image the tests did not map; kubelet would show ErrImagePull."""


def _condition(kind: str, value: bool, reason: str | None = None) -> Obj:
    condition: Obj = {"type": kind, "status": "True" if value else "False", "lastTransitionTime": now()}
    if reason:
        condition["reason"] = reason
    return condition


def _top_level(mounts: Iterable[Obj]) -> list[Obj]:
    """Mounts whose target is not inside another mount of the same container (those need a host mount
    point; the others get theirs inside the volume)."""
    targets = [m["target"].rstrip("/") for m in mounts]
    return [
        m
        for m in mounts
        if not any(m["target"].startswith(t + "/") for t in targets if t and t != m["target"].rstrip("/"))
    ]


def _kill_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether the process has exited, without reaping it: while it is a zombie its process group id
    cannot be reused, so the group can still be killed safely."""
    if process.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return process.poll() is not None
