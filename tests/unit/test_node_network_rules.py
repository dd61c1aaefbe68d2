"""The networked local node's pure parts (dev/assay_dev/cluster/policy.py, oci.py): which policies select a
pod, how the kubelet reads kube-router's rules for it from iptables-save, and the pod's network namespace in
runc's spec. The live behaviour is tests/operator_cluster/test_network_boundary.py's."""

from __future__ import annotations

from assay_dev.cluster import oci
from assay_dev.cluster.policy import chain_runs, pod_chain, selecting, selects
from assay_dev.cluster.security import Security

# What iptables-save prints for kube-router v2.1.0's rules of one pod (pod.go, its comments verbatim).
RULES = """*filter
:KUBE-POD-FW-QWERTY1234567890 - [0:0]
-A KUBE-ROUTER-FORWARD -s 10.88.0.7/32 -m comment --comment "rule to jump traffic from POD name:probe-g1-answer-0-abc namespace: ns1 to chain KUBE-POD-FW-QWERTY1234567890" -j KUBE-POD-FW-QWERTY1234567890
-A KUBE-ROUTER-FORWARD -d 10.88.0.7/32 -m comment --comment "rule to jump traffic destined to POD name:probe-g1-answer-0-abc namespace: ns1 to chain KUBE-POD-FW-QWERTY1234567890" -j KUBE-POD-FW-QWERTY1234567890
-A KUBE-POD-FW-QWERTY1234567890 -m comment --comment "run through nw policy probe-answer-egress" -j KUBE-NWPLCY-ABCDEF
-A KUBE-POD-FW-QWERTY1234567890 -m comment --comment "rule to REJECT traffic destined for POD name:probe-g1-answer-0-abc namespace: ns1" -m mark ! --mark 0x10000/0x10000 -j REJECT --reject-with icmp-port-unreachable
COMMIT
"""  # noqa: E501


def policy(name: str, selector: dict[str, object]) -> dict[str, object]:
    return {"metadata": {"name": name}, "spec": {"podSelector": selector}}


def test_a_selector_matches_labels_and_expressions_and_an_empty_one_matches_all() -> None:
    labels = {"app": "answer", "tier": "a"}
    assert selects({}, labels)
    assert selects({"matchLabels": {"app": "answer"}}, labels)
    assert not selects({"matchLabels": {"app": "judge"}}, labels)
    assert selects({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]}, labels)
    assert not selects({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a"]}]}, labels)
    assert not selects({"matchExpressions": [{"key": "gone", "operator": "Exists"}]}, labels)
    assert selects({"matchExpressions": [{"key": "gone", "operator": "DoesNotExist"}]}, labels)


def test_the_policies_selecting_a_pod_are_named() -> None:
    pod = {"metadata": {"labels": {"app": "answer"}}}
    policies = [
        policy("all", {}),
        policy("answers", {"matchLabels": {"app": "answer"}}),
        policy("x", {"matchLabels": {"app": "x"}}),
    ]
    assert selecting(policies, pod) == ["all", "answers"]


def test_the_pods_chain_is_found_by_its_name_namespace_and_address() -> None:
    assert pod_chain(RULES, "ns1", "probe-g1-answer-0-abc", "10.88.0.7") == "KUBE-POD-FW-QWERTY1234567890"
    assert pod_chain(RULES, "ns1", "probe-g1-answer-0-abc", "10.88.0.70") is None  # another address
    assert pod_chain(RULES, "ns2", "probe-g1-answer-0-abc", "10.88.0.7") is None  # another namespace
    assert pod_chain(RULES, "ns1", "probe-g1-answer-0", "10.88.0.7") is None  # another pod


def test_the_chain_must_run_through_each_selecting_policy() -> None:
    chain = "KUBE-POD-FW-QWERTY1234567890"
    assert chain_runs(RULES, chain, "probe-answer-egress")
    assert not chain_runs(RULES, chain, "probe-answer")  # a prefix of it is another policy
    assert not chain_runs(RULES, "KUBE-POD-FW-OTHER", "probe-answer-egress")


def spec_of(namespace_paths: dict[str, str]) -> dict[str, object]:
    process = oci.Process(["/bin/true"], {}, "/", 0, 0)
    security = Security(capabilities=(), no_new_privileges=True, read_only_root=True, seccomp="")
    container = oci.ContainerSpec(process, "/rootfs", security, "/c", {}, namespace_paths=namespace_paths)
    return oci.runtime_spec(container)


def test_a_pod_joins_its_network_namespace_only_on_a_networked_node() -> None:
    host = spec_of({"ipc": "/proc/1/ns/ipc"})
    assert "network" not in [n["type"] for n in host["linux"]["namespaces"]]  # type: ignore[index]
    networked = spec_of({"ipc": "/proc/1/ns/ipc", "network": "/run/netns/assay-node-1-pod-x"})
    assert {"type": "network", "path": "/run/netns/assay-node-1-pod-x"} in networked["linux"]["namespaces"]  # type: ignore[index]
