"""A networked local node: pods with network namespaces of their own, wired by the real CNI plugins, in a
"node" network namespace that holds everything a node's network is made of, so the host's links, routes and
iptables stay as they were.

- The node namespace (`ip netns add assay-node-<id>`): a bridge (`assay0`, the node's address, NODE_IP, as
  the pods' gateway), the host end of every pod's veth pair, an "outside" address (OUTSIDE_IP, on the
  namespace's loopback: the Internet as the pods see it) and the iptables and ipsets kube-router writes
  (policy.py).
- Per pod, a named network namespace (`assay-node-<id>-pod-<uid>`), wired by the reference plugins
  (tools/cni-plugins): `loopback`, and `bridge` with `host-local` IPAM, run inside the node namespace; the
  pod's sandbox and its containers join it (runtime.py). CNI DEL and the namespace's removal when the pod's
  worker ends.
- Host services the pods use (the test's gateway, MLflow, the apiserver, ...) are on the host's loopback,
  which no pod namespace sees: `expose` forwards a port of an address in the node namespace (NODE_IP, as a
  node's host-network service is reached; OUTSIDE_IP, as an address outside the cluster) to a host port,
  each connection spliced by a thread. kube-router sees the pods' packets to these addresses, so a
  NetworkPolicy decides which reach them.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

NODE_IP = "10.88.0.1"
POD_SUBNET = "10.88.0.0/16"
OUTSIDE_IP = "192.0.2.1"
"""TEST-NET-1 (RFC 5737): an address that is no pod's and no node's, standing in for the Internet."""
BRIDGE = "assay0"
NETNS_DIR = Path("/run/netns")
CNI_VERSION = "1.0.0"
CLONE_NEWNET = 0x40000000


class NetworkError(RuntimeError):
    """A pod's network could not be set up or torn down."""


def locate_plugins() -> Path:
    """The directory of the CNI plugins (bridge, host-local, loopback), built on first use."""
    script = Path(__file__).resolve().parents[3] / "scripts" / "build-go-tools.sh"
    built = subprocess.run(["bash", str(script), "cni-plugins"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise NetworkError(f"{script} cni-plugins failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1]).parent


def _run(argv: list[str], *, stdin: str | None = None, env: Mapping[str, str] | None = None) -> str:
    result = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=dict(env) if env else None, check=False
    )
    if result.returncode != 0:
        raise NetworkError(f"{' '.join(argv)} failed ({result.returncode}): {result.stdout}{result.stderr}")
    return result.stdout


_libc = ctypes.CDLL(None, use_errno=True)


@contextlib.contextmanager
def entered(netns: Path) -> Iterator[None]:
    """Run the calling thread in `netns` (setns(2) affects one thread) and bring it back; a socket made in
    between stays in that namespace."""
    own = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)
    target = os.open(netns, os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise NetworkError(f"setns {netns}: {os.strerror(ctypes.get_errno())}")
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET) != 0:  # pragma: no cover - the thread must not stay there
                error = os.strerror(ctypes.get_errno())
                raise SystemExit(f"setns back to the host's network failed: {error}")
    finally:
        os.close(target)
        os.close(own)


@dataclass(frozen=True)
class PodNetwork:
    netns: Path
    ip: str


class Forward:
    """One port of an address in the node namespace, spliced to a port on the host's loopback."""

    def __init__(self, listener: socket.socket, target: tuple[str, int]) -> None:
        self.listener = listener
        self.target = target
        self.address: tuple[str, int] = listener.getsockname()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, name=f"forward-{self.address}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._splice, args=(client,), daemon=True).start()

    def _splice(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.target, timeout=10)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)

        def pump(source: socket.socket, sink: socket.socket) -> None:
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    sink.shutdown(socket.SHUT_WR)

        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join()
        client.close()
        upstream.close()


def clean_stale() -> None:
    """Remove the namespaces of nodes whose process died (a SIGKILLed test run): a node's name starts with
    its PID."""
    for entry in NETNS_DIR.glob("assay-node-*") if NETNS_DIR.is_dir() else []:
        match = re.match(r"assay-node-(\d+)-", entry.name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            with contextlib.suppress(NetworkError):
                _run(["ip", "netns", "delete", entry.name])


class NodeNetwork:
    """The node namespace, its bridge, and the pods' namespaces. `start()` then `stop()`."""

    def __init__(self, work_dir: Path, cni_bin: Path) -> None:
        digest = hashlib.sha256(str(work_dir).encode()).hexdigest()[:6]
        self.name = f"assay-node-{os.getpid()}-{digest}"
        self.netns = NETNS_DIR / self.name
        self.cni_bin = cni_bin
        self.ipam_dir = work_dir / "cni-ipam"
        self.node_ip = NODE_IP
        self._forwards: list[Forward] = []
        self._pods: dict[str, PodNetwork] = {}
        self._lock = threading.Lock()

    def in_node(self, *argv: str) -> list[str]:
        """`argv` run in the node namespace."""
        return ["nsenter", f"--net={self.netns}", *argv]

    def start(self) -> None:
        clean_stale()
        _run(["ip", "netns", "add", self.name])
        self.ipam_dir.mkdir(parents=True, exist_ok=True)
        ip = ["ip", "-n", self.name]
        _run([*ip, "link", "set", "lo", "up"])
        _run([*ip, "link", "add", BRIDGE, "type", "bridge"])
        _run([*ip, "addr", "add", f"{NODE_IP}/16", "dev", BRIDGE])
        _run([*ip, "link", "set", BRIDGE, "up"])
        _run([*ip, "addr", "add", f"{OUTSIDE_IP}/32", "dev", "lo"])
        # Packets between two pods cross the bridge: iptables (kube-router's rules) must see them too. The
        # setting is the node namespace's own.
        _run(self.in_node("sysctl", "-q", "-w", "net.bridge.bridge-nf-call-iptables=1"))

    def stop(self) -> None:
        for forward in self._forwards:
            forward.close()
        self._forwards.clear()
        with self._lock:
            uids = list(self._pods)
        for uid in uids:
            with contextlib.suppress(NetworkError):
                self.remove_pod(uid)
        with contextlib.suppress(NetworkError):
            _run(["ip", "netns", "delete", self.name])

    def expose(self, port: int, target_port: int, address: str = NODE_IP) -> Forward:
        """Make host port `target_port` (on 127.0.0.1) reachable at `address`:`port` in the node namespace."""
        with entered(self.netns):
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((address, port))
        listener.listen(64)
        forward = Forward(listener, ("127.0.0.1", target_port))
        self._forwards.append(forward)
        return forward

    # --- pods ---------------------------------------------------------------------------------------

    def add_pod(self, uid: str, namespace: str, name: str) -> PodNetwork:
        """The pod's namespace, wired: loopback up, a veth to the bridge, an address from host-local."""
        netns_name = f"{self.name}-pod-{uid}"
        netns = NETNS_DIR / netns_name
        if not netns.exists():
            _run(["ip", "netns", "add", netns_name])
        try:
            self._cni("ADD", uid, netns, namespace, name, self._loopback_config())
            result = json.loads(self._cni("ADD", uid, netns, namespace, name, self._bridge_config()))
            ip = str(result["ips"][0]["address"]).split("/")[0]
        except (NetworkError, KeyError, IndexError, ValueError) as error:
            with contextlib.suppress(NetworkError):
                self._cni("DEL", uid, netns, namespace, name, self._bridge_config())
                _run(["ip", "netns", "delete", netns_name])
            raise NetworkError(f"pod {namespace}/{name}'s network: {error}") from error
        pod = PodNetwork(netns, ip)
        with self._lock:
            self._pods[uid] = pod
        return pod

    def remove_pod(self, uid: str) -> None:
        with self._lock:
            pod = self._pods.pop(uid, None)
        if pod is None:
            return
        try:
            self._cni("DEL", uid, pod.netns, "", "", self._bridge_config())
        finally:
            _run(["ip", "netns", "delete", pod.netns.name])

    def _cni(
        self, command: str, uid: str, netns: Path, namespace: str, name: str, config: dict[str, Any]
    ) -> str:
        plugin = self.cni_bin / str(config["type"])
        env = {
            "PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"),
            "CNI_COMMAND": command,
            "CNI_CONTAINERID": uid,
            "CNI_NETNS": str(netns),
            "CNI_IFNAME": "lo" if config["type"] == "loopback" else "eth0",
            "CNI_PATH": str(self.cni_bin),
            "CNI_ARGS": f"IgnoreUnknown=1;K8S_POD_NAMESPACE={namespace};K8S_POD_NAME={name}" if name else "",
        }
        return _run(self.in_node(str(plugin)), stdin=json.dumps(config), env=env)

    def _loopback_config(self) -> dict[str, Any]:
        return {"cniVersion": CNI_VERSION, "name": "assay-lo", "type": "loopback"}

    def _bridge_config(self) -> dict[str, Any]:
        return {
            "cniVersion": CNI_VERSION,
            "name": "assay-pods",
            "type": "bridge",
            "bridge": BRIDGE,
            "isGateway": True,
            "ipMasq": False,
            "ipam": {
                "type": "host-local",
                "ranges": [[{"subnet": POD_SUBNET, "gateway": NODE_IP}]],
                "routes": [{"dst": "0.0.0.0/0"}],
                "dataDir": str(self.ipam_dir),
            },
        }
