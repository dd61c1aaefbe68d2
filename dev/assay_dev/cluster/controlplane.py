"""A real Kubernetes control plane for tests: etcd, kube-apiserver and kube-controller-manager as local
processes on loopback ports, built from source by scripts/build-k8s.sh (see docs/control-plane.md).

Real CRD validation (OpenAPI and CEL), real RBAC and admission, real Job, garbage-collector, namespace,
service-account, PersistentVolume and ResourceQuota controllers; a real dynamic provisioner when started
(storage.py); with `node_lifecycle`, the node lifecycle, taint eviction, pod GC and disruption controllers.
No scheduler and no kubelet: the local kubelets (kubelet.py beside this module) bind and run pods.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from .certs import Certs, write_certs
from .kubeapi import ApiError, Credentials, KubeApi
from .kubeconfig import write_kubeconfig
from .kubelet import DEFAULT_NODE, LocalKubelet
from .network import NodeNetwork, locate_plugins
from .ports import free_port
from .processes import ControlPlaneError, _Process, locate_binaries

log = logging.getLogger(__name__)

CONTROLLERS = (
    "job-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    "root-ca-certificate-publisher-controller",  # kube-root-ca.crt, which SA token volumes project
    "ttl-after-finished-controller",
    "clusterrole-aggregation-controller",  # the admin/edit/view roles a binding may grant
    # PersistentVolumeClaims (the local-path provisioner makes the volumes, storage.py): binding, and the
    # protection finalizers the apiserver's admission adds, which only these controllers remove.
    "persistentvolume-binder-controller",
    "persistentvolume-protection-controller",
    "persistentvolumeclaim-protection-controller",
    # ResourceQuota: the apiserver's admission enforces a quota only once this controller has counted it.
    "resourcequota-controller",
)
NODE_LIFECYCLE_CONTROLLERS = (
    # Nodes that stop renewing their Lease go NotReady (Unknown) and are tainted unreachable; pods that do
    # not tolerate a NoExecute taint are deleted (DisruptionTarget: DeletionByTaintManager); terminating pods
    # on an out-of-service node, and pods of deleted nodes, are failed and removed by the pod GC; drains
    # respect PodDisruptionBudgets, whose status the disruption controller keeps.
    "node-lifecycle-controller",
    "taint-eviction-controller",
    "pod-garbage-collector-controller",
    "disruption-controller",
)
NODE_MONITOR_GRACE_SECONDS = 20
"""How long a silent node stays Ready (kube-controller-manager's default: 50 s). Shorter here so a node-loss
test waits less; the local kubelets renew their Lease every 2 s on such a plane."""
APISERVER_READY_TIMEOUT = 90.0


AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
"""


class ControlPlane:
    """etcd + kube-apiserver + kube-controller-manager. Use as a context manager, or start()/stop()."""

    def __init__(
        self,
        bin_dir: Path,
        work_dir: Path | None = None,
        *,
        audit: bool = False,
        node_lifecycle: bool = False,
    ) -> None:
        self.bin_dir = bin_dir
        self.audit = audit
        """Log every request's metadata (who, verb, object) to `audit_log`: benchmarks count requests by
        user with it. Off by default: it costs the apiserver a write per request."""
        self.node_lifecycle = node_lifecycle
        """Run the node lifecycle, taint eviction, pod GC and disruption controllers
        (NODE_LIFECYCLE_CONTROLLERS): silent nodes go NotReady and lose their pods, as on a cluster. Off by
        default: a node whose kubelet is starved of CPU for the grace period would lose its pods in an
        unrelated test."""
        self._own_work_dir = work_dir is None
        self.work_dir = work_dir or Path(tempfile.mkdtemp(prefix="assay-cp-"))
        self.logs_dir = self.work_dir / "logs"
        self.certs: Certs | None = None
        self.port = 0
        self.kubeconfig = self.work_dir / "admin.kubeconfig"
        self._processes: list[_Process] = []
        self._api: KubeApi | None = None

    # --- lifecycle ----------------------------------------------------------------------------------

    def __enter__(self) -> ControlPlane:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def audit_log(self) -> Path:
        """One JSON audit event per line (stages ResponseStarted, ResponseComplete), when `audit` is set."""
        return self.logs_dir / "audit.log"

    def _audit_args(self) -> list[str]:
        if not self.audit:
            return []
        policy = self.work_dir / "audit-policy.yaml"
        policy.write_text(AUDIT_POLICY)
        # One file, never rotated (the apiserver rotates at 100 MB by default): readers such as
        # bench/operator_scale.py count from a byte offset taken before their round.
        return [
            f"--audit-policy-file={policy}",
            f"--audit-log-path={self.audit_log}",
            "--audit-log-maxsize=0",
        ]

    @property
    def api(self) -> KubeApi:
        """An admin client (system:masters)."""
        if self._api is None:
            raise ControlPlaneError("the control plane is not started")
        return self._api

    def admin_credentials(self) -> Credentials:
        assert self.certs is not None
        return Credentials(
            server=self.server,
            ca=self.certs.serving_ca,
            client_cert=self.certs.admin_cert,
            client_key=self.certs.admin_key,
        )

    def start(self) -> None:
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        self.certs = write_certs(self.work_dir / "certs")
        try:
            etcd_url = self._start_etcd()
            self._start_apiserver(etcd_url)
            self._api = KubeApi(self.admin_credentials())
            write_kubeconfig(
                self.kubeconfig,
                server=self.server,
                ca=self.certs.serving_ca,
                user="admin",
                client_cert=self.certs.admin_cert,
                client_key=self.certs.admin_key,
            )
            self._start_controller_manager()
            self.wait_for_serviceaccount("default", "default", timeout=60)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self._api is not None:
            self._api.close()
            self._api = None
        for process in reversed(self._processes):
            process.stop()
        self._processes.clear()
        if self._own_work_dir and not os.environ.get("ASSAY_KEEP_CONTROL_PLANE_DIR"):
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def _spawn(self, name: str, argv: Sequence[str]) -> _Process:
        log_file = self.logs_dir / f"{name}.log"
        with log_file.open("ab") as out:
            # setpriv: die with the test process even if it is killed before its teardown runs.
            popen = subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", "--", *argv],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process = _Process(name, popen, log_file)
        self._processes.append(process)
        return process

    def _wait(self, process: _Process, check: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not process.alive():
                raise ControlPlaneError(
                    f"{process.name} exited ({process.popen.returncode}):\n{process.log_tail()}"
                )
            with contextlib.suppress(httpx.HTTPError, ApiError, OSError):
                if check():
                    return
            time.sleep(0.25)
        raise ControlPlaneError(f"{what} not ready after {timeout:.0f}s:\n{process.log_tail()}")

    def _start_etcd(self) -> str:
        """etcd over TLS with client certificates required (clients and peers): only the apiserver, which
        holds a certificate from etcd's CA, can read it, even though the local pods share loopback."""
        assert self.certs is not None
        certs = self.certs
        client, peer = free_port(), free_port()
        client_url, peer_url = f"https://127.0.0.1:{client}", f"https://127.0.0.1:{peer}"
        process = self._spawn(
            "etcd",
            [
                str(self.bin_dir / "etcd"),
                "--name=default",
                f"--data-dir={self.work_dir / 'etcd'}",
                f"--listen-client-urls={client_url}",
                f"--advertise-client-urls={client_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=default={peer_url}",
                f"--cert-file={certs.etcd_cert}",
                f"--key-file={certs.etcd_key}",
                f"--trusted-ca-file={certs.etcd_ca}",
                "--client-cert-auth",
                f"--peer-cert-file={certs.etcd_cert}",
                f"--peer-key-file={certs.etcd_key}",
                f"--peer-trusted-ca-file={certs.etcd_ca}",
                "--peer-client-cert-auth",
                "--unsafe-no-fsync",  # test data: durability buys nothing, fsync costs seconds
                "--log-level=warn",
            ],
        )

        tls = ssl.create_default_context(cafile=str(certs.etcd_ca))
        tls.load_cert_chain(str(certs.etcd_client_cert), str(certs.etcd_client_key))

        def healthy() -> bool:
            response = httpx.get(f"{client_url}/health", timeout=2, verify=tls)
            return response.status_code == 200 and response.json().get("health") == "true"

        self._wait(process, healthy, 30, "etcd")
        return client_url

    def _start_apiserver(self, etcd_url: str) -> None:
        assert self.certs is not None
        certs = self.certs
        self.port = free_port()
        process = self._spawn(
            "kube-apiserver",
            [
                str(self.bin_dir / "kube-apiserver"),
                f"--etcd-servers={etcd_url}",
                f"--etcd-cafile={certs.etcd_ca}",
                f"--etcd-certfile={certs.etcd_client_cert}",
                f"--etcd-keyfile={certs.etcd_client_key}",
                f"--cert-dir={certs.dir}",
                f"--tls-cert-file={certs.apiserver_cert}",
                f"--tls-private-key-file={certs.apiserver_key}",
                f"--secure-port={self.port}",
                "--bind-address=127.0.0.1",
                # Loopback cannot be an advertised endpoint; nothing here needs the kubernetes Endpoints.
                "--advertise-address=127.0.0.1",
                "--endpoint-reconciler-type=none",
                f"--client-ca-file={certs.client_ca}",
                "--authorization-mode=RBAC",
                "--service-cluster-ip-range=10.0.0.0/24",
                f"--service-account-issuer={self.server}/",
                f"--service-account-key-file={certs.sa_public_key}",
                f"--service-account-signing-key-file={certs.sa_private_key}",
                "--allow-privileged=true",
                "--profiling=false",
                *self._audit_args(),
            ],
        )
        client = KubeApi(self.admin_credentials(), timeout=5)
        try:
            self._wait(process, lambda: _readyz(client), APISERVER_READY_TIMEOUT, "kube-apiserver /readyz")
        finally:
            client.close()

    def _start_controller_manager(self) -> None:
        assert self.certs is not None
        controllers = [*CONTROLLERS, *(NODE_LIFECYCLE_CONTROLLERS if self.node_lifecycle else ())]
        lifecycle = (
            [f"--node-monitor-grace-period={NODE_MONITOR_GRACE_SECONDS}s", "--node-monitor-period=2s"]
            if self.node_lifecycle
            else []
        )
        self._spawn(
            "kube-controller-manager",
            [
                str(self.bin_dir / "kube-controller-manager"),
                f"--kubeconfig={self.kubeconfig}",
                "--leader-elect=false",
                f"--controllers={','.join(controllers)}",
                *lifecycle,
                f"--service-account-private-key-file={self.certs.sa_private_key}",
                f"--root-ca-file={self.certs.serving_ca}",
                "--secure-port=0",
                "--concurrent-gc-syncs=5",
            ],
        )

    # --- helpers for tests --------------------------------------------------------------------------

    def kubectl(
        self,
        *args: str,
        check: bool = True,
        input: str | None = None,
        kubeconfig: Path | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run the built kubectl (never the machine's: it is too old for this apiserver)."""
        argv = [str(self.bin_dir / "kubectl"), f"--kubeconfig={kubeconfig or self.kubeconfig}", *args]
        result = subprocess.run(
            argv, input=input, capture_output=True, text=True, timeout=timeout, check=False
        )
        if check and result.returncode != 0:
            raise ControlPlaneError(
                f"kubectl {' '.join(args)} exited {result.returncode}:\n{result.stderr}{result.stdout}"
            )
        return result

    def token_kubeconfig(
        self,
        namespace: str,
        serviceaccount: str,
        *,
        path: Path | None = None,
        expiration_seconds: int = 3600,
    ) -> Path:
        """A kubeconfig that authenticates as a ServiceAccount with a TokenRequest token, so a process run
        with it has exactly that account's RBAC."""
        assert self.certs is not None
        request = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {"expirationSeconds": expiration_seconds},
        }
        response = self.api.create(
            f"/api/v1/namespaces/{namespace}/serviceaccounts/{serviceaccount}/token", request
        )
        target = path or self.work_dir / f"sa-{namespace}-{serviceaccount}.kubeconfig"
        return write_kubeconfig(
            target,
            server=self.server,
            ca=self.certs.serving_ca,
            user=f"{namespace}-{serviceaccount}",
            token=response["status"]["token"],
            namespace=namespace,
        )

    def wait_for_serviceaccount(self, namespace: str, name: str = "default", timeout: float = 30) -> None:
        """Pods need their ServiceAccount to exist (ServiceAccount admission); the controller makes
        `default` in each namespace shortly after the namespace appears."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.api.get(f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}")
                return
            except ApiError as error:
                if error.status != 404 or time.monotonic() > deadline:
                    raise ControlPlaneError(
                        f"serviceaccount {namespace}/{name} did not appear: {error}\n{self.logs_tail()}"
                    ) from error
            time.sleep(0.1)

    def local_kubelet(
        self, *, networked: bool = False, node_name: str = DEFAULT_NODE, network: NodeNetwork | None = None
    ) -> LocalKubelet:
        """A LocalKubelet (not started) for this control plane, with its own admin client. Pods get the
        in-cluster variables pointing at this apiserver, so a pod with a token can reach it.

        `networked`: pods get network namespaces of their own on a bridge in a node network namespace
        (network.py); the apiserver is then reached at the node's address, as a pod reaches a cluster's.
        `node_name`: another node beside the first, with a work directory (pods, logs, runc state, cgroups,
        image roots) of its own. `network`: the node's network, one of several on an Underlay (`networked`
        alone makes the only one, for the first node)."""
        if networked and network is None and node_name != DEFAULT_NODE:
            raise ControlPlaneError("a second networked node needs its network on an Underlay (node.py)")
        work_dir = self.work_dir / ("kubelet" if node_name == DEFAULT_NODE else f"kubelet-{node_name}")
        if network is None and networked:
            network = NodeNetwork(work_dir, locate_plugins())
        host = network.services_ip if network is not None else "127.0.0.1"
        service_env = {
            "KUBERNETES_SERVICE_HOST": host,
            "KUBERNETES_SERVICE_PORT": str(self.port),
            "KUBERNETES_SERVICE_PORT_HTTPS": str(self.port),
            "KUBERNETES_PORT": f"tcp://{host}:{self.port}",
        }
        return LocalKubelet(
            KubeApi(self.admin_credentials()),
            work_dir=work_dir,
            node_name=node_name,
            service_env=service_env,
            network=network,
            lease_renew_seconds=2.0 if self.node_lifecycle else 10.0,
        )

    def logs_tail(self, lines: int = 20) -> str:
        return "\n".join(f"--- {p.name}\n{p.log_tail(lines)}" for p in self._processes)

    def create_namespace(self, name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}
        namespace = self.api.create("/api/v1/namespaces", body)
        self.wait_for_serviceaccount(name)
        return namespace

    def delete_namespace(self, name: str, wait: float = 0) -> None:
        """Delete a namespace; with `wait`, until it is gone (the namespace controller empties it first)."""
        with contextlib.suppress(ApiError):
            self.api.delete(f"/api/v1/namespaces/{name}")
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                self.api.get(f"/api/v1/namespaces/{name}")
            except ApiError as error:
                if error.status == 404:
                    return
                raise
            time.sleep(0.2)
        if wait:
            raise ControlPlaneError(f"namespace {name} still exists after {wait:.0f}s")


def _readyz(client: KubeApi) -> bool:
    try:
        return client.get_text("/readyz").strip() == "ok"
    except ApiError:
        return False


@contextlib.contextmanager
def running_control_plane(bin_dir: Path | None = None, *, audit: bool = False) -> Iterator[ControlPlane]:
    with ControlPlane(bin_dir or locate_binaries(), audit=audit) as control_plane:
        yield control_plane
