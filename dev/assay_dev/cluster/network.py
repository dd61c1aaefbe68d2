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
  each connection spliced by a thread (forward.py). kube-router sees the pods' packets to these addresses,
  so a NetworkPolicy decides which reach them.

Several networked nodes (`Underlay`, node.local_nodes): each node namespace as above, with a pod CIDR of its
own (node i: 10.88.i.0/24, its bridge at 10.88.i.1, the Node's `spec.podCIDR`), joined like machines on one
LAN in a host-gw network: an underlay namespace (`assay-node-<id>-lan`) holds a bridge (the switch), each
node namespace a veth to it (`lan0`, the node's address 10.87.0.1x: its InternalIP and the pods' hostIP),
and each node routes every other node's pod CIDR to that node's address (no encapsulation, as flannel's
host-gw or kube-router's own routing do). The underlay's own address (HOST_IP) is the host machine on that
LAN: where the host's services are exposed, one address for the pods of every node, and the nodes' default
route (OUTSIDE_IP is on its loopback). A packet between pods of two nodes leaves through the sending node's
FORWARD chain and arrives through the receiving node's, so each node's enforcer applies its own pods'
policies to it: egress on one node, ingress on the other.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .forward import Forward, expose_in
from .netns import NetworkError, _run

log = logging.getLogger(__name__)

NODE_IP = "10.88.0.1"
POD_SUBNET = "10.88.0.0/16"
OUTSIDE_IP = "192.0.2.1"
"""TEST-NET-1 (RFC 5737): an address that is no pod's and no node's, standing in for the Internet."""
BRIDGE = "assay0"
HOST_IP = "10.87.0.1"
"""With several networked nodes: the host machine on the nodes' LAN (the underlay), where its services are."""
LAN_PREFIX = "10.87.0"
LAN_BRIDGE = "assay-lan"
NODE_LINK = "lan0"
NETNS_DIR = Path("/run/netns")
CNI_VERSION = "1.0.0"


def locate_plugins() -> Path:
    """The directory of the CNI plugins (bridge, host-local, loopback), built on first use."""
    script = Path(__file__).resolve().parents[3] / "scripts" / "build-go-tools.sh"
    built = subprocess.run(["bash", str(script), "cni-plugins"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise NetworkError(f"{script} cni-plugins failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1]).parent


@dataclass(frozen=True)
class PodNetwork:
    netns: Path
    ip: str


def clean_stale() -> None:
    """Remove the namespaces of nodes whose process died (a SIGKILLed test run): a node's name starts with
    its PID."""
    for entry in NETNS_DIR.glob("assay-node-*") if NETNS_DIR.is_dir() else []:
        match = re.match(r"assay-node-(\d+)-", entry.name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            with contextlib.suppress(NetworkError):
                _run(["ip", "netns", "delete", entry.name])


@dataclass(frozen=True)
class NodeAddressing:
    """One node's place in a network of several: its address on the LAN and its pod CIDR."""

    index: int
    underlay: Underlay

    @property
    def node_ip(self) -> str:
        return f"{LAN_PREFIX}.{11 + self.index}"

    @property
    def pod_cidr(self) -> str:
        return f"10.88.{self.index}.0/24"

    @property
    def gateway(self) -> str:
        return f"10.88.{self.index}.1"


class Underlay:
    """The LAN several node namespaces are joined by (host-gw), with the host machine on it at HOST_IP.
    `start()`, then a NodeNetwork per node (`node(i, ...)`), then `stop()` after the nodes."""

    def __init__(self, work_dir: Path, nodes: int) -> None:
        digest = hashlib.sha256(str(work_dir).encode()).hexdigest()[:6]
        self.name = f"assay-node-{os.getpid()}-{digest}-lan"
        self.netns = NETNS_DIR / self.name
        self.nodes = nodes
        self._forwards: list[Forward] = []

    def start(self) -> Underlay:
        clean_stale()
        _run(["ip", "netns", "add", self.name])
        ip = ["ip", "-n", self.name]
        _run([*ip, "link", "set", "lo", "up"])
        _run([*ip, "link", "add", LAN_BRIDGE, "type", "bridge"])
        _run([*ip, "addr", "add", f"{HOST_IP}/24", "dev", LAN_BRIDGE])
        _run([*ip, "link", "set", LAN_BRIDGE, "up"])
        _run([*ip, "addr", "add", f"{OUTSIDE_IP}/32", "dev", "lo"])
        # The host answers the pods of every node: their CIDRs through the nodes' addresses.
        for index in range(self.nodes):
            node = NodeAddressing(index, self)
            _run([*ip, "route", "add", node.pod_cidr, "via", node.node_ip])
        return self

    def node(self, index: int, work_dir: Path, cni_bin: Path) -> NodeNetwork:
        return NodeNetwork(work_dir, cni_bin, NodeAddressing(index, self))

    def expose(self, port: int, target_port: int, address: str = HOST_IP) -> Forward:
        """Make host port `target_port` reachable at `address`:`port` on the LAN (HOST_IP, OUTSIDE_IP)."""
        forward = expose_in(self.netns, port, target_port, address)
        self._forwards.append(forward)
        return forward

    def stop(self) -> None:
        for forward in self._forwards:
            forward.close()
        self._forwards.clear()
        with contextlib.suppress(NetworkError):
            _run(["ip", "netns", "delete", self.name])


class NodeNetwork:
    """The node namespace, its bridge, and the pods' namespaces. `start()` then `stop()`.

    Alone (`addressing` None): the node's address is the bridge's, NODE_IP, and host services are exposed
    there. One of several (`Underlay.node`): the bridge is the pod CIDR's gateway, the node's address is on
    its link to the LAN, and host services are at the underlay's HOST_IP."""

    def __init__(self, work_dir: Path, cni_bin: Path, addressing: NodeAddressing | None = None) -> None:
        digest = hashlib.sha256(str(work_dir).encode()).hexdigest()[:6]
        self.name = f"assay-node-{os.getpid()}-{digest}"
        self.netns = NETNS_DIR / self.name
        self.cni_bin = cni_bin
        self.ipam_dir = work_dir / "cni-ipam"
        self.addressing = addressing
        self.node_ip = addressing.node_ip if addressing else NODE_IP
        """The Node's InternalIP, its pods' hostIP."""
        self.services_ip = HOST_IP if addressing else NODE_IP
        """Where the pods reach the host's services (the apiserver, a test's gateway)."""
        self.pod_cidr = addressing.pod_cidr if addressing else POD_SUBNET
        self.gateway = addressing.gateway if addressing else NODE_IP
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
        prefix = self.pod_cidr.split("/")[1]
        _run([*ip, "addr", "add", f"{self.gateway}/{prefix}", "dev", BRIDGE])
        _run([*ip, "link", "set", BRIDGE, "up"])
        if self.addressing is None:
            _run([*ip, "addr", "add", f"{OUTSIDE_IP}/32", "dev", "lo"])
        else:
            self._join_underlay(self.addressing)
        # Packets between two pods cross the bridge: iptables (kube-router's rules) must see them too. The
        # setting is the node namespace's own.
        _run(self.in_node("sysctl", "-q", "-w", "net.bridge.bridge-nf-call-iptables=1"))

    def _join_underlay(self, addressing: NodeAddressing) -> None:
        """The node's link to the LAN (its address there), a route to each other node's pod CIDR through
        that node's address, the host as the default route; forwarding on, as on a node."""
        underlay = addressing.underlay
        peer = f"node{addressing.index}-{os.getpid() % 10**6}"[:15]
        ip = ["ip", "-n", self.name]
        _run([*ip, "link", "add", NODE_LINK, "type", "veth", "peer", "name", peer, "netns", underlay.name])
        _run(["ip", "-n", underlay.name, "link", "set", peer, "master", LAN_BRIDGE])
        _run(["ip", "-n", underlay.name, "link", "set", peer, "up"])
        _run([*ip, "addr", "add", f"{addressing.node_ip}/24", "dev", NODE_LINK])
        _run([*ip, "link", "set", NODE_LINK, "up"])
        for index in range(underlay.nodes):
            if index != addressing.index:
                other = NodeAddressing(index, underlay)
                _run([*ip, "route", "add", other.pod_cidr, "via", other.node_ip])
        _run([*ip, "route", "add", "default", "via", HOST_IP])
        _run(self.in_node("sysctl", "-q", "-w", "net.ipv4.ip_forward=1"))

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
        forward = expose_in(self.netns, port, target_port, address)
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
                "ranges": [[{"subnet": self.pod_cidr, "gateway": self.gateway}]],
                "routes": [{"dst": "0.0.0.0/0"}],
                "dataDir": str(self.ipam_dir),
            },
        }
