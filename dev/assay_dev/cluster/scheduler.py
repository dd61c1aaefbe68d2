"""Which node a pending pod goes to, when the local control plane has more than one (kube-scheduler does not
run here). One kubelet binds for all, the first Ready node's by name (`binder`): it handles its watch's
events one at a time and lists the pods after its own last binding, so two pods of one Job created together
are seen apart (two binders could each see the other's pod unbound and choose the same node). When that
node goes NotReady, the next one binds.

What it honours, as kube-scheduler's filters do: a node that is cordoned (`spec.unschedulable`), not Ready,
or tainted NoSchedule/NoExecute with a taint the pod does not tolerate gets no pod; nor does one whose labels
do not match the pod's `nodeSelector`. Among the rest, the pod's `topologySpreadConstraints` on
`kubernetes.io/hostname` choose the node with the fewest pods its label selector matches (with or without
`DoNotSchedule`: the skew is never exceeded while a node is free); without such a constraint, the node with
the fewest pods (kube-scheduler's least-allocated scoring, roughly). Ties go to the first node by name.
Not honoured: node affinity, pod (anti-)affinity, resources, volume topology (the local-path volumes are
on every node: there is one machine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Obj = dict[str, Any]
HOSTNAME = "kubernetes.io/hostname"
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(tolerations: Sequence[Obj], taint: Obj) -> bool:
    for toleration in tolerations:
        if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
            continue
        key, operator = toleration.get("key"), toleration.get("operator", "Equal")
        if operator == "Exists" and (not key or key == taint.get("key")):
            return True
        if (
            operator == "Equal"
            and key == taint.get("key")
            and toleration.get("value", "") == taint.get("value", "")
        ):
            return True
    return False


def ready(node: Obj) -> bool:
    conditions = node.get("status", {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def fits(pod: Obj, node: Obj) -> bool:
    spec = pod["spec"]
    if node.get("spec", {}).get("unschedulable") or not ready(node):
        return False
    tolerations = spec.get("tolerations") or []
    for taint in node.get("spec", {}).get("taints") or []:
        if taint.get("effect") in BLOCKING_EFFECTS and not tolerates(tolerations, taint):
            return False
    labels = node["metadata"].get("labels") or {}
    return all(labels.get(k) == v for k, v in (spec.get("nodeSelector") or {}).items())


def _selects(selector: Obj, pod: Obj) -> bool:
    labels = pod["metadata"].get("labels") or {}
    return all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items())


def _placed(pod: Obj) -> bool:
    """A pod that holds a place on its node: bound, not finished, not being deleted."""
    phase = pod.get("status", {}).get("phase")
    return (
        bool(pod["spec"].get("nodeName"))
        and phase not in ("Succeeded", "Failed")
        and not pod["metadata"].get("deletionTimestamp")
    )


def binder(nodes: Sequence[Obj]) -> str | None:
    """The node whose kubelet binds pending pods: the first Ready one by name (cordoned or not)."""
    names = sorted(str(n["metadata"]["name"]) for n in nodes if ready(n))
    return names[0] if names else None


def choose_node(pod: Obj, nodes: Sequence[Obj], pods: Sequence[Obj]) -> str | None:
    """The node `pod` is bound to, or None when no node fits (it stays Pending)."""
    candidates: list[str] = sorted(str(n["metadata"]["name"]) for n in nodes if fits(pod, n))
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    spread = [
        c
        for c in pod["spec"].get("topologySpreadConstraints") or []
        if c.get("topologyKey") == HOSTNAME and c.get("labelSelector")
    ]
    placed = [p for p in pods if _placed(p)]

    def load(node: str) -> int:
        here = [p for p in placed if p["spec"]["nodeName"] == node]
        if spread:
            namespace = pod["metadata"].get("namespace")
            return sum(
                1
                for p in here
                if p["metadata"].get("namespace") == namespace
                and all(_selects(c["labelSelector"], p) for c in spread)
            )
        return len(here)

    return min(candidates, key=lambda node: (load(node), node))
