"""The local kubelets' choice of node for a pending pod (dev/assay_dev/cluster/scheduler.py): what a node
refuses (cordoned, not Ready, a taint not tolerated, a nodeSelector), and the spread of a pod's siblings."""

from __future__ import annotations

from typing import Any

from assay_dev.cluster.scheduler import binder, choose_node

Obj = dict[str, Any]
SPREAD = {
    "topologyKey": "kubernetes.io/hostname",
    "maxSkew": 1,
    "labelSelector": {"matchLabels": {"job": "a"}},
}


def node(
    name: str, *, ready: str = "True", unschedulable: bool = False, taints: list[Obj] | None = None
) -> Obj:
    return {
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "disk": "ssd" if name == "b" else ""},
        },
        "spec": {"unschedulable": unschedulable, "taints": taints or []},
        "status": {"conditions": [{"type": "Ready", "status": ready}]},
    }


def pod(
    name: str, on: str = "", labels: dict[str, str] | None = None, phase: str = "Running", **spec: Any
) -> Obj:
    return {
        "metadata": {"name": name, "namespace": "ns", "labels": labels or {}},
        "spec": {"nodeName": on, **spec},
        "status": {"phase": phase},
    }


def test_a_single_fitting_node_takes_the_pod_and_none_leaves_it_pending() -> None:
    assert choose_node(pod("p"), [node("a")], []) == "a"
    assert choose_node(pod("p"), [node("a", unschedulable=True)], []) is None
    assert choose_node(pod("p"), [node("a", ready="Unknown")], []) is None
    assert choose_node(pod("p", nodeSelector={"disk": "ssd"}), [node("a"), node("b")], []) == "b"


def test_taints_refuse_pods_that_do_not_tolerate_them() -> None:
    unreachable = {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}
    nodes = [
        node("a", taints=[unreachable]),
        node("b", taints=[{"key": "x", "value": "1", "effect": "NoExecute"}]),
    ]
    assert choose_node(pod("p"), nodes, []) is None
    tolerant = pod("p", tolerations=[{"key": "x", "operator": "Equal", "value": "1"}])
    assert choose_node(tolerant, nodes, []) == "b"
    assert choose_node(pod("p", tolerations=[{"operator": "Exists"}]), nodes, []) == "a"
    # A PreferNoSchedule taint refuses nothing.
    assert choose_node(pod("p"), [node("a", taints=[{"key": "y", "effect": "PreferNoSchedule"}])], []) == "a"


def test_siblings_spread_over_nodes_and_only_live_siblings_count() -> None:
    siblings = [pod("s1", "a", {"job": "a"}), pod("other", "b", {"job": "z"}), pod("o2", "b", {"job": "z"})]
    new = pod("s2", labels={"job": "a"}, topologySpreadConstraints=[SPREAD])
    assert choose_node(new, [node("a"), node("b")], siblings) == "b"
    # The sibling on `a` finished, or is being deleted: `a` is free again, and first by name.
    done = [pod("s1", "a", {"job": "a"}, phase="Failed"), *siblings[1:]]
    assert choose_node(new, [node("a"), node("b")], done) == "a"
    # Without a constraint: the node with the fewest pods.
    assert choose_node(pod("p"), [node("a"), node("b")], siblings) == "a"


def test_one_kubelet_binds_the_first_ready_nodes_cordoned_or_not() -> None:
    assert binder([node("b"), node("a")]) == "a"
    assert binder([node("b"), node("a", unschedulable=True)]) == "a"
    assert binder([node("b"), node("a", ready="Unknown")]) == "b"
    assert binder([node("a", ready="False")]) is None
