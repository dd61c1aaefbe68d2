"""One pod's life on the local kubelet, from binding to the confirmed deletion, in its own thread:

images pulled (looked up in the local store) and volumes laid out -> the sandbox started -> init containers
one at a time -> the regular containers together -> the sidecars stopped -> the terminal phase -> on
deletionTimestamp, SIGTERM, SIGKILL after the grace period, the final status, then the deletion confirmed
with grace 0.

Native sidecars (an init container with `restartPolicy: Always`, KEP-753) as kubelet runs them: started in
their place among the init containers, the next one starting as soon as the sidecar runs (no startup probe
here); running beside the regular containers, restarted when they exit (with kubelet's back-off, 10 s
doubling to 5 min: CrashLoopBackOff); stopped — SIGTERM, SIGKILL after the pod's grace period, in reverse
order — once the regular containers have ended (or an init container failed); their exit codes do not
count towards the pod's phase.

Status goes through the `/status` subresource with complete container lists, as kubelet writes it: waiting
(ContainerCreating, ErrImagePull, CreateContainerConfigError, CreateContainerError), running, terminated
{exitCode, reason Completed|Error|OOMKilled|StartError, message, startedAt, finishedAt}. Each container's
record and the message it leaves: pod_container.py.
"""

from __future__ import annotations

import datetime
import functools
import logging
import os
import shutil
import signal
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay_dev.images.buildah import BuildahError

from . import oci, resources, waiting
from .images import UnknownImage, pull
from .kubeapi import ApiError, pods_path
from .mirrors import MirrorSetError
from .netns import NetworkError
from .network import PodNetwork
from .pod_container import POD_MESSAGE_BUDGET, Container, termination_message
from .pod_host import PodHost
from .podspec import (
    ConfigError,
    container_argv,
    container_env,
    identity,
    pod_hostname,
    sub_path_of,
)
from .runc import RuncError
from .runtime import ContainerHandle, PodSandbox
from .security import security
from .volumes import MountError, materialize

Obj = dict[str, Any]
log = logging.getLogger(__name__)

POD_IP = "127.0.0.1"
START_ERROR_EXIT = 128
KILLED_EXIT = 137
RESTART_BACKOFF = (10.0, 300.0)
"""A sidecar that exited is started again after 10 s, doubling up to 5 min (kubelet's CrashLoopBackOff)."""
OWNED_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Stopped(Exception):
    """The kubelet is stopping, or the pod is gone."""


class PodWorker:
    def __init__(self, kubelet: PodHost, pod: Obj) -> None:
        self.kubelet = kubelet
        self.pod = pod
        meta = pod["metadata"]
        self.namespace: str = meta["namespace"]
        self.name: str = meta["name"]
        self.uid: str = meta["uid"]
        self.dir = kubelet.work_dir / "pods" / self.uid
        self.logs_dir = kubelet.work_dir / "logs" / f"{self.namespace}_{self.name}_{self.uid}"
        spec = pod["spec"]
        self.containers = [Container(c, init=True) for c in spec.get("initContainers") or []] + [
            Container(c, init=False) for c in spec["containers"]
        ]
        for c in self.containers:
            c.log_file = self.logs_dir / f"{c.name}.log"
        self.start_time = now()
        self.phase = "Pending"
        self.pod_reason: str | None = None
        self.pod_message: str | None = None
        self.extra_conditions: list[Obj] = []
        self.sandbox: PodSandbox | None = None
        self.networked = kubelet.network is not None and not spec.get("hostNetwork")
        """On a networked node, a pod has a network namespace of its own (unless hostNetwork)."""
        self.pod_network: PodNetwork | None = None
        self.rules_wait: float | None = None
        """Seconds the pod waited for the enforcer's rules before its containers started."""
        self._deletion = threading.Event()
        self._gone = threading.Event()
        self._wake = threading.Event()
        self._evict_message: str | None = None
        self._sources: Mapping[str, Path] = {}
        self._stopping_sidecars = False
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

    def container(self, name: str | None) -> Container:
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
        while target.handle is None or "running" not in target.state:
            if time.monotonic() > deadline:
                raise TimeoutError(f"container {target.name} of {self.namespace}/{self.name} never ran")
            time.sleep(0.05)
        target.oom_killed = True
        target.handle.signal(signal.SIGKILL)
        self._wake.set()

    def evict(self, message: str) -> None:
        self._evict_message = message
        self.kill_all(signal.SIGKILL)
        self._wake.set()

    def kill_all(self, sig: signal.Signals) -> None:
        for c in self.containers:
            if c.handle is not None:
                c.handle.signal(sig)

    def running(self) -> bool:
        return any(c.handle is not None and c.handle.running() for c in self.containers)

    # --- the pod's life -----------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._live()
        except Stopped:
            pass
        except Exception as error:
            log.exception("local kubelet: pod %s/%s failed unexpectedly", self.namespace, self.name)
            self._give_up(error)
        finally:
            self._tear_down()

    def _give_up(self, error: Exception) -> None:
        """A bug in the kubelet must not leave a pod Pending forever and undeletable: fail it, saying why,
        and still confirm its deletion."""
        try:
            self.kill_all(signal.SIGKILL)
            self.phase = "Failed"
            self.pod_reason, self.pod_message = "LocalKubeletError", f"{type(error).__name__}: {error}"
            self._write_status()
            while not self._deletion.is_set():
                self._check_stop()
                self._wake.wait(1)
                self._wake.clear()
            with self._lock:
                pod = self.pod
            self.kubelet.confirm_deletion(pod)
        except Stopped:
            pass
        except Exception:
            log.exception("local kubelet: pod %s/%s could not be failed either", self.namespace, self.name)

    def _tear_down(self) -> None:
        if self.sandbox is not None:
            try:
                self.sandbox.stop()
            except Exception:
                log.exception(
                    "local kubelet: removing pod %s/%s's containers failed", self.namespace, self.name
                )
        if self.pod_network is not None and self.kubelet.network is not None:
            try:
                self.kubelet.network.remove_pod(self.uid)
            except NetworkError:
                log.exception("local kubelet: removing pod %s/%s's network failed", self.namespace, self.name)
        if self._gone.is_set():
            shutil.rmtree(self.dir, ignore_errors=True)

    def _check_stop(self) -> None:
        if self.kubelet.stopping.is_set() or self._gone.is_set():
            raise Stopped

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
        if sources is not None and self._wire_network() and self._start_sandbox():
            self._sources = sources
            init = [c for c in self.containers if c.init]
            regular = [c for c in self.containers if not c.init]
            for container in init:
                self._start(container, sources)
                self._write_status()
                if container.sidecar:
                    continue  # running is enough for the next one to start (no startup probe here)
                self._wait_for({container.name})
                if container.terminated is None or container.terminated["exitCode"] != 0:
                    break
            else:
                for container in regular:
                    self._start(container, sources)
                if all(c.handle is not None for c in regular):
                    self.phase = "Running"
                self._write_status()
                self._wait_for({c.name for c in regular})
            self._stop_sidecars()
        self._finish()
        self._write_status()
        # A bound pod is gone only once its kubelet confirms: wait for the deletion, then confirm it.
        while not self._deletion.is_set():
            self._check_stop()
            self._wake.wait(1)
            self._wake.clear()
        with self._lock:
            pod = self.pod
        self.kubelet.confirm_deletion(pod)
        while not self._gone.is_set() and not self.kubelet.stopping.is_set():
            self._wake.wait(1)
            self._wake.clear()

    def _prepare(self) -> dict[str, Path] | None:
        """Wait until every image is in the store and pulled (pull faults included) and every volume can
        be laid out; returns the volume sources, or None when the pod is deleted or evicted first."""
        started = time.monotonic()
        while not self._interrupted():
            self._check_stop()
            try:
                mirror_sets = self.kubelet.mirror_sets()
                for c in self.containers:
                    c.image = pull(c.spec["image"], self.kubelet.registry_puller, mirror_sets)
                faults = [self.kubelet.pull_faults.get(c.spec["image"]) for c in self.containers]
                delay = max((f.delay for f in faults if f is not None), default=0.0)
                stuck = any(f is not None and f.never for f in faults)
                if stuck or time.monotonic() - started < delay:
                    self._sleep(1.0 if stuck else 0.2)
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
            except (UnknownImage, MirrorSetError) as error:  # as kubelet: the why in the status and an Event
                self.events.warning("Failed", f"Failed to pull image: {error}")
                self._set_waiting("ErrImagePull", str(error))
                self._sleep(1.0)
        return None

    def _wire_network(self) -> bool:
        """On a networked node: the pod's network namespace, wired, its IP in the status; then, with an
        enforcer, wait until its rules for the pod are in place (so no container runs before its policy is
        enforced). False when the pod is deleted or evicted first."""
        if not self.networked:
            return True
        network = self.kubelet.network
        assert network is not None
        while self.pod_network is None:
            self._check_stop()
            if self._interrupted():
                return False
            try:
                self.pod_network = network.add_pod(self.uid, self.namespace, self.name)
            except NetworkError as error:
                self._set_waiting("ContainerCreating", f"failed to set up the pod's network: {error}")
                self._sleep(1.0)
        self._write_status()  # the podIP the enforcer selects the pod by
        enforcer = self.kubelet.enforcer
        if enforcer is None:
            return True
        started = time.monotonic()
        while not self._interrupted():
            self._check_stop()
            with self._lock:
                pod = self.pod
            if enforcer.rules_ready(pod, self.pod_network.ip, self.kubelet.network_policies(self.namespace)):
                self.rules_wait = time.monotonic() - started
                log.info(
                    "local kubelet: pod %s/%s's network rules in place after %.2fs",
                    self.namespace,
                    self.name,
                    self.rules_wait,
                )
                return True
            self._wake.wait(0.05)
            self._wake.clear()
        return False

    def _start_sandbox(self) -> bool:
        """The pod's sandbox; False when the pod is deleted or evicted before it could start."""
        netns = self.pod_network.netns if self.pod_network is not None else None
        while not self._interrupted():
            self._check_stop()
            sandbox = self.kubelet.runtime.sandbox(self.uid, self.dir, pod_hostname(self.pod), netns)
            self.sandbox = sandbox
            try:
                sandbox.start()
                return True
            except (RuncError, OSError) as error:
                sandbox.stop()
                self._set_waiting("ContainerCreating", f"failed to create the pod sandbox: {error}")
                self._sleep(1.0)
        return False

    def _set_waiting(self, reason: str, message: str) -> None:
        changed = False
        for c in self.containers:
            state = {"waiting": {"reason": reason, **({"message": message} if message else {})}}
            if c.handle is None and c.state != state:
                c.state = state
                changed = True
        if changed:
            log.warning("local kubelet: pod %s/%s: %s: %s", self.namespace, self.name, reason, message)
            self._write_status()

    def _start(self, container: Container, sources: Mapping[str, Path]) -> None:
        """Create and start one container, or show why it cannot be created yet (kubelet's
        CreateContainerConfigError for a missing ConfigMap or Secret, CreateContainerError otherwise)."""
        assert self.sandbox is not None and container.log_file is not None
        while True:
            self._check_stop()
            if self._interrupted():
                return
            try:
                handle = self._create(container, sources)
                break
            except (ConfigError, MountError) as error:
                container.state = {"waiting": {"reason": "CreateContainerConfigError", "message": str(error)}}
            except (BuildahError, RuncError, OSError) as error:
                container.state = {"waiting": {"reason": "CreateContainerError", "message": str(error)}}
            self._write_status()
            self._sleep(1.0)
        handle.start(container.log_file)
        container.handle = handle
        container.started_at = now()
        container.state = {"running": {"startedAt": container.started_at}}

    def _create(self, container: Container, sources: Mapping[str, Path]) -> ContainerHandle:
        assert self.sandbox is not None and container.image is not None
        with self._lock:
            pod = self.pod
        spec = container.spec
        image = container.image.spec
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
        context = security(pod, spec)
        mounts = self._mounts(container, sources, env)
        process = oci.Process(
            argv=argv,
            env=env,
            cwd=spec.get("workingDir") or image.workdir,
            uid=user.uid,
            gid=user.gid,
            groups=user.groups,
            oom_score_adj=self.kubelet.runtime.oom_score(
                resources.oom_score_adj(pod, spec, self.kubelet.memory_bytes)
            ),
        )
        limits = resources.linux_resources(
            spec, self.kubelet.runtime.pids_limit, self.kubelet.runtime.swap_accounted
        )
        share_pid = bool(pod["spec"].get("shareProcessNamespace"))
        return self.sandbox.create(
            container.name, container.image.id, process, context, limits, mounts, share_pid=share_pid
        )

    def _mounts(
        self, container: Container, sources: Mapping[str, Path], env: Mapping[str, str]
    ) -> list[oci.Mount]:
        """The container's volume mounts (subPath and subPathExpr resolved) and its termination-message
        file."""
        spec = container.spec
        mounts: list[oci.Mount] = []
        with self._lock:
            volumes = self.pod["spec"].get("volumes") or []
        read_only_volumes = {
            v["name"] for v in volumes if (v.get("persistentVolumeClaim") or {}).get("readOnly")
        }
        for mount in spec.get("volumeMounts") or []:
            if mount["name"] not in sources:
                raise ConfigError(f"volume {mount['name']!r} not found in pod spec")
            source = sources[mount["name"]]
            sub_path = sub_path_of(mount, env)
            if sub_path:
                root, source = source, source / sub_path
                if not os.path.lexists(source):
                    # As kubelet does for a missing subPath: made with the volume root's mode, so the
                    # container's user may write where it may write in the volume's root.
                    source.mkdir(parents=True)
                    source.chmod(stat.S_IMODE(root.stat().st_mode))
            read_only = bool(mount.get("readOnly")) or mount["name"] in read_only_volumes
            mounts.append(oci.Mount(str(source), mount["mountPath"], read_only=read_only))
        message_path = spec.get("terminationMessagePath") or "/dev/termination-log"
        container.message_file = self.dir / f"{container.name}.termination-log"
        container.message_file.write_bytes(b"")
        container.message_file.chmod(0o666)  # the container's user, whoever it is, writes it
        mounts.append(oci.Mount(str(container.message_file), message_path))
        return mounts

    def _wait_for(self, names: set[str]) -> None:
        """Wait until the named containers exit; on deletion, SIGTERM, then SIGKILL after the grace."""
        kill_at: float | None = None
        while True:
            self._check_stop()
            changed = False
            changed = self._keep_sidecars_running(names) or changed
            for c in self.containers:
                if c.name not in names or c.terminated is not None:
                    continue
                if c.handle is None:  # never started: deleted while its config was missing
                    c.state = {
                        "terminated": {
                            "exitCode": KILLED_EXIT,
                            "reason": "ContainerStatusUnknown",
                            "startedAt": None,
                            "message": "The container could not be located when the pod was terminated",
                            "finishedAt": now(),
                        }
                    }
                    changed = True
                elif c.handle.exited():
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

    def _keep_sidecars_running(self, waited: set[str]) -> bool:
        """Restart a sidecar that exited while the pod runs, after its back-off; True when a state changed."""
        if self._stopping_sidecars or self._interrupted():
            return False
        changed = False
        for c in self.containers:
            if not c.sidecar or c.name in waited or c.handle is None:
                continue
            if c.restart_at is None and "running" in c.state and c.handle.exited():
                self._record_exit(c)
                c.last_state = c.state
                c.restart_count += 1
                backoff = min(RESTART_BACKOFF[0] * 2 ** (c.restart_count - 1), RESTART_BACKOFF[1])
                c.restart_at = time.monotonic() + backoff
                message = f"back-off {backoff:g}s restarting failed container={c.name} pod={self.name}"
                c.state = {"waiting": {"reason": "CrashLoopBackOff", "message": message}}
                changed = True
            elif c.restart_at is not None and time.monotonic() >= c.restart_at:
                c.restart_at = None
                self._start(c, self._sources)
                changed = True
        return changed

    def _stop_sidecars(self) -> None:
        """Once the regular containers ended (or an init container failed): SIGTERM each running sidecar, in
        reverse order, SIGKILL after the pod's grace period; a sidecar waiting to restart is not restarted."""
        self._stopping_sidecars = True
        sidecars = [c for c in self.containers if c.sidecar]
        for c in sidecars:
            if c.restart_at is not None:  # exited, waiting out its back-off: it stays as it ended
                c.restart_at = None
                c.state = c.last_state
        running = [c for c in reversed(sidecars) if c.handle is not None and c.terminated is None]
        if not running:
            return
        with self._lock:
            grace = float(self.pod["spec"].get("terminationGracePeriodSeconds", 30))
        for c in running:
            assert c.handle is not None
            c.handle.signal(signal.SIGTERM)
        kill_at = time.monotonic() + grace
        while not all(c.handle is not None and c.handle.exited() for c in running):
            self._check_stop()
            if time.monotonic() >= kill_at:
                for c in running:
                    assert c.handle is not None
                    c.handle.signal(signal.SIGKILL)
            self._wake.wait(0.05)
            self._wake.clear()
        for c in running:
            self._record_exit(c)
        self._write_status()

    def _record_exit(self, container: Container) -> None:
        assert container.handle is not None and container.log_file is not None
        assert container.message_file is not None
        status = container.handle.exit_status()
        container.handle.remove()  # read the OOM counter first: the cgroup goes with the container
        terminated: Obj = {"exitCode": status.code, "startedAt": container.started_at, "finishedAt": now()}
        if status.start_error:
            terminated.update(exitCode=START_ERROR_EXIT, reason="StartError", message=status.start_error)
        else:
            # The kernel's OOM killer (or the oom_kill fault) ended the container's first process.
            oom = container.oom_killed or (status.oom_kills > 0 and status.code == KILLED_EXIT)
            terminated["reason"] = "OOMKilled" if oom else ("Completed" if status.code == 0 else "Error")
            message = termination_message(
                container.spec,
                container.message_file,
                container.log_file,
                status.code,
                POD_MESSAGE_BUDGET // len(self.containers),
            )
            if message:
                terminated["message"] = message
        container.state = {"terminated": terminated}

    def _finish(self) -> None:
        """The terminal phase (every restartPolicy behaves like Never)."""
        for c in self.containers:
            if c.terminated is None and c.handle is None and not c.init:
                c.state = {"waiting": {"reason": "PodInitializing"}}
        # A sidecar's exit code does not count: it is stopped when the pod's work is done.
        codes = [
            c.terminated["exitCode"] for c in self.containers if c.terminated is not None and not c.sidecar
        ]
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
        initialized = all(
            c.started_at != "" if c.sidecar else (c.terminated is not None and c.terminated["exitCode"] == 0)
            for c in init
        )
        sidecars = [c for c in init if c.sidecar]
        ready = not terminal and all("running" in c.state for c in [*regular, *sidecars])
        sandbox = (self.sandbox is not None and self.sandbox.pid != 0) or terminal
        reason_not_ready = "PodCompleted" if terminal else "ContainersNotReady"
        conditions = [
            _condition("PodReadyToStartContainers", sandbox and not terminal),
            _condition("Initialized", initialized, None if initialized else "ContainersNotInitialized"),
            _condition("ContainersReady", ready, None if ready else reason_not_ready),
            _condition("Ready", ready, None if ready else reason_not_ready),
            *self.extra_conditions,
        ]
        host_ip = self.kubelet.host_ip
        pod_ip = host_ip if not self.networked else self.pod_network.ip if self.pod_network else None
        status: Obj = {
            "phase": self.phase,
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            **({"podIP": pod_ip, "podIPs": [{"ip": pod_ip}]} if pod_ip else {}),
            "startTime": self.start_time,
            "qosClass": resources.qos_class(self.pod),
            "conditions": conditions,
            "containerStatuses": [c.status() for c in regular],
        }
        if init:
            status["initContainerStatuses"] = [c.status() for c in init]
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


def _condition(kind: str, value: bool, reason: str | None = None) -> Obj:
    condition: Obj = {"type": kind, "status": "True" if value else "False", "lastTransitionTime": now()}
    if reason:
        condition["reason"] = reason
    return condition


def memory_bytes() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 0
