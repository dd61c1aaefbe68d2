"""NetworkPolicy enforced on a networked local node: kube-router's network-policy controller (the real one,
tools/kube-router, built by scripts/build-go-tools.sh), run with nothing else of kube-router
(`--run-firewall=true --run-router=false --run-service-proxy=false --enable-cni=false`) inside the node's
network namespace (network.py), where it writes its iptables chains and ipsets; the host's are untouched.

It watches the apiserver (reached at 127.0.0.1:<port> in the node namespace, forwarded to the host's
loopback), takes the node's pods as those whose hostIP is the Node's InternalIP, and gives each a firewall
chain that runs its packets through the policies selecting it; what none allows is REJECTed (ICMP port
unreachable: the pod's connect() fails with ECONNREFUSED at once, not after a timeout).

`rules_ready` is how the kubelet knows a pod's rules are in place before it starts the pod's containers: the
node's iptables (iptables-save in the node namespace) hold kube-router's jump from the pod's address to the
pod's chain (its comment names the pod), and that chain runs through every NetworkPolicy that selects the
pod (`run through nw policy <name>`), as the kubelet reads the policies from the apiserver.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .controlplane import ControlPlane
from .network import NodeNetwork
from .processes import REPO, ControlPlaneError, _Process

GO_TOOLS = REPO / "scripts" / "build-go-tools.sh"
Obj = dict[str, Any]


def locate() -> Path:
    """kube-router's binary, built on first use."""
    argv = ["bash", str(GO_TOOLS), "kube-router"]
    built = subprocess.run(argv, capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise ControlPlaneError(f"{GO_TOOLS} kube-router failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1])


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A LabelSelector's verdict on `labels` (matchLabels and matchExpressions; empty selects all)."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def selecting(policies: Iterable[Obj], pod: Obj) -> list[str]:
    """The names of the NetworkPolicies (of the pod's namespace) that select `pod`."""
    labels = pod["metadata"].get("labels") or {}
    return [p["metadata"]["name"] for p in policies if selects(p["spec"].get("podSelector") or {}, labels)]


def pod_chain(rules: str, namespace: str, name: str, ip: str) -> str | None:
    """The firewall chain kube-router made for the pod at `ip`, from the node's iptables-save, else None."""
    comment = f'"rule to jump traffic from POD name:{name} namespace: {namespace} to chain '
    for line in rules.splitlines():
        if comment in line and f" -s {ip}/32 " in line:
            jump = re.search(r" -j (KUBE-POD-FW-\S+)", line)
            if jump:
                return jump.group(1)
    return None


def chain_runs(rules: str, chain: str, policy: str) -> bool:
    """Whether the pod's chain runs its packets through the policy's."""
    wanted = f'"run through nw policy {policy}"'
    return any(line.startswith(f"-A {chain} ") and wanted in line for line in rules.splitlines())


class PolicyEnforcer:
    """kube-router's policy controller for one networked node. `start()` then `stop()`."""

    def __init__(self, plane: ControlPlane, network: NodeNetwork, node_name: str) -> None:
        self.plane = plane
        self.network = network
        self.node_name = node_name
        self.process: _Process | None = None

    def start(self, timeout: float = 60) -> PolicyEnforcer:
        binary = locate()
        self.network.expose(self.plane.port, self.plane.port, address="127.0.0.1")
        argv = self.network.in_node(
            str(binary),
            f"--kubeconfig={self.plane.kubeconfig}",
            f"--hostname-override={self.node_name}",
            "--run-firewall=true",
            "--run-router=false",
            "--run-service-proxy=false",
            "--enable-cni=false",
            "--service-cluster-ip-range=10.0.0.0/24",  # the apiserver's (controlplane.py)
            "--service-node-port-range=30000-30001",  # nothing here listens on a NodePort
            "--health-port=0",
            "--metrics-port=0",
            "--iptables-sync-period=5m",
            "-v=1",
        )
        self.process = self.plane._spawn("kube-router", argv)
        process = self.process
        self.plane._wait(process, lambda: "KUBE-ROUTER-FORWARD" in self.iptables(), timeout, "kube-router")
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.plane._processes.remove(self.process)
            self.process = None

    def log_tail(self, lines: int = 40) -> str:
        return "" if self.process is None else self.process.log_tail(lines)

    def iptables(self) -> str:
        """The node namespace's filter table, as iptables-save writes it."""
        argv = self.network.in_node("iptables-save", "-t", "filter")
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout

    def rules_ready(self, pod: Obj, ip: str, policies: Iterable[Obj]) -> bool:
        """Whether kube-router has put the pod's packets through its chain and that chain through every
        policy in `policies` that selects the pod."""
        rules = self.iptables()
        meta = pod["metadata"]
        chain = pod_chain(rules, meta["namespace"], meta["name"], ip)
        return chain is not None and all(chain_runs(rules, chain, name) for name in selecting(policies, pod))
