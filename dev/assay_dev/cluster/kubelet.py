"""A local kubelet: runs the pods of one Node under runc, from the images in the local store, for tests and
`make demo` on a real control plane.

What it does, as kubelet does it:
- registers a Ready Node and renews its Lease in `kube-node-lease` (the heartbeat the node lifecycle
  controller reads: a kubelet that stops renewing it goes NotReady, then Unknown-tainted, as on a cluster);
- binds every unscheduled pod (the `binding` subresource) to the node scheduler.py chooses: itself when it
  is the only node; with several kubelets on one control plane (`node.local_nodes`), the kubelet of the
  first Ready node by name binds for all (one binder, which sees each of its bindings before the next
  choice, as kube-scheduler's cache does);
- per pod, a sandbox (catatonit, Kubernetes' pause) holding the pod's IPC and UTS namespaces (and its PID
  namespace, shared only under shareProcessNamespace); per container, a root filesystem from its image (a
  buildah working container: the image's layers plus a private writable layer), run by runc in the
  sandbox's namespaces with its own PID, mount and cgroup namespaces, its securityContext (user and
  groups, capabilities, no_new_privs, read-only root, seccomp RuntimeDefault), its resources as cgroup v1
  limits and its volumes as bind mounts (see pod.py, runtime.py, oci.py);
- reports Pending/ContainerCreating, Running, then terminated {exitCode, reason, message, startedAt,
  finishedAt} and phase Succeeded/Failed through the `/status` subresource, reading the termination message
  exactly like kubelet (the file's last 4096 bytes; with FallbackToLogsOnError and a non-zero exit, the
  last 2048 bytes of the last 80 log lines); a container the kernel OOM-killed ends `OOMKilled`, 137;
- on deletionTimestamp, SIGTERM then SIGKILL after the grace period, final status, then delete with
  grace 0 — what lets Job deadlines, garbage collection and namespace deletion finish.

Pods share the host's network (loopback services stay reachable; no pod IPs), unless the kubelet is given
a NodeNetwork (network.py; opt-in per cluster, `ControlPlane.local_kubelet(networked=True)`): then each
pod but a hostNetwork one gets a network namespace of its own wired by the real CNI plugins, its podIP on
the node's bridge and the Node's address as hostIP; with an enforcer (policy.py) beside it, a pod's
containers start only once the enforcer's rules for it are in place. Faults for tests: `oom_kill`
(SIGKILL reported as the OOM killer's), `evict`, and pulls that are slow or never end (`fault_pull`).
Native sidecars (init containers with `restartPolicy: Always`) run beside the pod's other containers and are
restarted when they exit (pod.py). Not covered: other restarts (a pod's restartPolicy behaves like Never),
probes, `kubectl logs/exec`, SELinux and AppArmor, user namespaces, Localhost seccomp profiles.
"""

from __future__ import annotations

import datetime
import logging
import os
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .images import PullFault
from .kubeapi import ApiError, KubeApi, pods_path
from .mirrors import DigestMirror, load_mirror_sets
from .network import NodeNetwork
from .pod import POD_IP, PodWorker, memory_bytes, now
from .pod_host import Enforcer
from .registry_pull import RegistryPuller
from .runtime import NodeRuntime
from .scheduler import binder, choose_node
from .volumes import MountError

if TYPE_CHECKING:
    from assay_operator.image_mirrors import DigestMirror as OperatorDigestMirror

Obj = dict[str, Any]
log = logging.getLogger(__name__)

EVICTION_MESSAGE = "The node was low on resource: memory."
LEASE_NAMESPACE = "kube-node-lease"
DEFAULT_NODE = "assay-local-node"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
LEASE_DURATION_SECONDS = 40


def now_micro() -> str:
    """A MicroTime, as a Lease's renewTime takes it."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LocalKubelet:
    """One Node whose pods run under runc. Thread-based; `start()` then `stop()`."""

    def __init__(
        self,
        api: KubeApi,
        *,
        work_dir: Path,
        node_name: str = DEFAULT_NODE,
        service_env: Mapping[str, str] | None = None,
        pull_faults: Mapping[str, PullFault] | None = None,
        network: NodeNetwork | None = None,
        lease_renew_seconds: float = 10.0,
        registries: Mapping[str, Path] | None = None,
        mirror_file: Path | None = None,
    ) -> None:
        self.api = api
        self.network = network
        self.enforcer: Enforcer | None = None
        """Set once a NetworkPolicy enforcer runs for this (networked) node; pods started then wait for it."""
        self.host_ip = network.node_ip if network is not None else POD_IP
        self.node_name = node_name
        self.work_dir = work_dir
        self.service_env = dict(service_env or {})
        self.pull_faults: dict[str, PullFault] = dict(pull_faults or {})
        self.registry_puller: RegistryPuller | None = None
        self.mirror_file = mirror_file or work_dir / "image-digest-mirror-sets.yaml"
        """The node's mirror list (ImageDigestMirrorSet documents, mirrors.py), read at every pull as a node
        reads registries.conf once the machine-config operator has rolled out a new mirror set; none when
        the file does not exist."""
        for host, ca in (registries or {}).items():
            self.trust_registry(host, ca)
        self.runtime = NodeRuntime(work_dir)
        self.memory_bytes = memory_bytes()
        self.allocatable = {
            "cpu": str(os.cpu_count() or 1),
            "memory": f"{self.memory_bytes // 1024}Ki",
            "pods": "250",
        }
        self._workers: dict[str, PodWorker] = {}
        self._by_name: dict[tuple[str, str], PodWorker] = {}
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.lease_renew_seconds = lease_renew_seconds
        """How often the node's Lease is renewed (kubelet: a quarter of its 40 s duration)."""
        self._heartbeat: threading.Thread | None = None

    # --- public API ---------------------------------------------------------------------------------

    def fault_pull(self, image: str, fault: PullFault | None) -> None:
        """Make pulls of `image` slow or stuck (None: normal again)."""
        if fault is None:
            self.pull_faults.pop(image, None)
        else:
            self.pull_faults[image] = fault

    def trust_registry(self, host: str, ca: Path) -> None:
        """Pull images named `host/...@sha256:...` from that registry (HTTPS, its certificate verified by
        `ca`), verifying manifest and layers, instead of looking them up in the local store."""
        if self.registry_puller is None:
            self.registry_puller = RegistryPuller({}, self.work_dir / "pulled-images")
        self.registry_puller.registries[host] = ca

    def mirror_digests(self, mirrors: Sequence[OperatorDigestMirror]) -> None:
        """Make these digest mirrors (the operator's reading of spec.imageDigestMirrors) the node's mirror
        list, as an ImageDigestMirrorSet in `mirror_file`; none: no list. Their registries must be trusted
        too (trust_registry)."""
        if not mirrors:
            self.mirror_file.unlink(missing_ok=True)
            return
        entries = [m.model_dump(by_alias=True) for m in mirrors]
        document = {
            "apiVersion": "config.openshift.io/v1",
            "kind": "ImageDigestMirrorSet",
            "metadata": {"name": "local-node"},
            "spec": {"imageDigestMirrors": entries},
        }
        self.mirror_file.write_text(yaml.safe_dump(document))

    def mirror_sets(self) -> tuple[DigestMirror, ...]:
        """The mirror list as it is now (MirrorSetError when the file is malformed: every pull fails)."""
        return load_mirror_sets(self.mirror_file)

    def start(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.runtime.start()
        if self.network is not None:
            self.network.start()
        self._register_node()
        self._renew_lease()
        self._thread = threading.Thread(target=self._watch_loop, name="local-kubelet", daemon=True)
        self._thread.start()
        self._heartbeat = threading.Thread(
            target=self._heartbeat_loop, name="local-kubelet-lease", daemon=True
        )
        self._heartbeat.start()

    def stop(self) -> None:
        """Kill every pod's containers, stop the watch and the heartbeat, remove the containers, sandboxes
        and cgroups. Nothing is reported: to the control plane it is a node that went silent (a machine
        lost), whose pods still say Running until the node lifecycle controller and the pod GC act."""
        self.stopping.set()
        with self._lock:
            workers = list(self._workers.values())
        for worker in workers:
            worker.kill_all(signal.SIGKILL)
            worker.wake()
        for worker in workers:
            worker.join(30)
        self.api.close()  # ends the watch the loop is blocked in
        if self._thread is not None:
            self._thread.join(10)
        if self._heartbeat is not None:
            self._heartbeat.join(10)
        self.runtime.stop()
        if self.enforcer is not None:  # the node's own enforcer goes with it (a machine lost)
            self.enforcer.stop()
        if self.network is not None:
            self.network.stop()

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
        return self._worker(namespace, name).running()

    def rules_wait(self, namespace: str, name: str) -> float | None:
        """On a networked node with an enforcer: how long the pod waited for its rules (None: not yet)."""
        return self._worker(namespace, name).rules_wait

    # --- internals ----------------------------------------------------------------------------------

    def _worker(self, namespace: str, name: str, timeout: float = 30.0) -> PodWorker:
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
            # A networked node's pod CIDR, as the node IPAM controller (or the kubelet's flag) sets it.
            **(
                {"spec": {"podCIDR": self.network.pod_cidr, "podCIDRs": [self.network.pod_cidr]}}
                if self.network
                else {}
            ),
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
                {"type": "InternalIP", "address": self.host_ip},
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
        # The apiserver's TaintNodesByCondition admission gives a new Node `not-ready:NoSchedule`, which the
        # node lifecycle controller removes once the Node is Ready; without that controller (the default
        # plane), the kubelet removes it, or no pod would fit.
        taints = self.api.get(f"/api/v1/nodes/{self.node_name}")["spec"].get("taints") or []
        kept = [t for t in taints if not (t["key"] == NOT_READY_TAINT and t["effect"] == "NoSchedule")]
        if kept != taints:
            self.api.merge_patch(f"/api/v1/nodes/{self.node_name}", {"spec": {"taints": kept or None}})

    def _renew_lease(self) -> None:
        path = f"/apis/coordination.k8s.io/v1/namespaces/{LEASE_NAMESPACE}/leases"
        spec = {
            "holderIdentity": self.node_name,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": now_micro(),
        }
        try:
            self.api.merge_patch(f"{path}/{self.node_name}", {"spec": spec})
        except ApiError as error:
            if error.status != 404:
                raise
            lease = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": self.node_name, "namespace": LEASE_NAMESPACE},
                "spec": spec,
            }
            self.api.create(path, lease)

    def _heartbeat_loop(self) -> None:
        while not self.stopping.wait(self.lease_renew_seconds):
            try:
                self._renew_lease()
                # A pod no node fitted (all cordoned, tainted or NotReady) is tried again, as a scheduler's
                # queue retries it: nothing about the pod itself changes when a node becomes free.
                for pod in self.api.get("/api/v1/pods", fieldSelector="spec.nodeName=")["items"]:
                    self._on_pod(pod)
            except Exception:
                if self.stopping.is_set():
                    return
                log.exception("local kubelet: renewing node %s's lease failed; retrying", self.node_name)

    def _watch_loop(self) -> None:
        resource_version = ""
        while not self.stopping.is_set():
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
                if self.stopping.is_set():
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
                        threading.Thread(target=self.confirm_deletion, args=(pod,), daemon=True).start()
                    return
                worker = PodWorker(self, pod)
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
        nodes = self.api.get("/api/v1/nodes")["items"]
        if binder(nodes) != self.node_name:
            return
        # Other pods' places only matter when there is a choice (one node: no listing of every pod).
        pods = self.api.get("/api/v1/pods")["items"] if len(nodes) > 1 else []
        target = choose_node(pod, nodes, pods)
        if target is None:
            log.info(
                "local kubelet: no node fits pod %s/%s; it stays Pending", meta["namespace"], meta["name"]
            )
            return
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": meta["name"], "uid": meta["uid"]},
            "target": {"apiVersion": "v1", "kind": "Node", "name": target},
        }
        try:
            self.api.create(pods_path(meta["namespace"], meta["name"], "binding"), binding)
        except ApiError as error:
            if error.status not in (404, 409):  # gone, or bound already
                log.warning("local kubelet: binding %s/%s failed: %s", meta["namespace"], meta["name"], error)

    def confirm_deletion(self, pod: Obj) -> None:
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

    def persistent_volume_claim(self, namespace: str, name: str) -> Obj | None:
        return self._get_or_none(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}")

    def network_policies(self, namespace: str) -> list[Obj]:
        items: list[Obj] = self.api.get(f"/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies")[
            "items"
        ]
        return items

    def persistent_volume(self, name: str) -> Obj | None:
        return self._get_or_none(f"/api/v1/persistentvolumes/{name}")

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
