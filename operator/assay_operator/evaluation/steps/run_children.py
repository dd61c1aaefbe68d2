"""Creating a run's children — the snapshots, the RunConfig, the answers claim, the answer pods'
NetworkPolicy and the answer Job — adopted by the Evaluation and idempotent: a 409 is adopted when the
Evaluation owns the object, waited out when a deleted namesake does (the collector takes it), and refused
otherwise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import kopf

from assay_operator import kube
from assay_operator.cluster_views import Object
from assay_operator.evaluation.api import KIND
from assay_operator.evaluation.steps.run_request import Request, _invalid
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.objects import ConfigMap, Job, NetworkPolicy, PersistentVolumeClaim


def _refuse_stale(
    read: Callable[..., Any], namespace: str, kind: str, child_name: str, owner: Watched
) -> None:
    """A child name was taken (409). When the holder belongs to a deleted Evaluation of the same name (a
    delete and re-create, common under GitOps) it is garbage the collector has not removed yet: adopting it
    would mount the old run's config, and its Job's verdict would land on this Evaluation. Wait for it."""
    found = kube.if_present(lambda: read(child_name, namespace))
    existing = None if found is None else Object.of(kube.plain(found))  # None: collected, create again
    stale = existing is None or any(
        ref.kind == KIND and ref.name == owner.name and ref.uid != owner.uid
        for ref in existing.metadata.owner_references
    )
    if stale:
        raise kopf.TemporaryError(
            f"{kind} {child_name} of a deleted Evaluation named {owner.name} is still there; "
            "waiting for the garbage collector to remove it",
            delay=2,
        )


Child = ConfigMap | PersistentVolumeClaim | NetworkPolicy | Job
"""A child the operator builds and creates."""


def _create_adopted(request: Request, create: Callable[..., Any], child: Child) -> bool:
    """Serialise the child once, here, adopted by the Evaluation; True when it was created now."""
    body = child.body()
    kopf.adopt(body, owner=cast(kopf.Body, request.body))
    return kube.create(create, request.namespace, body)


def _create(request: Request, create: Callable[..., Any], read: Callable[..., Any], child: Child) -> bool:
    """Create one child, adopted; True when created now. A name taken by another owner's object is refused
    (a stale one: wait for the collector; anyone else's: the spec cannot run)."""
    if _create_adopted(request, create, child):
        return True
    kind, name = child.kind, child.metadata.name
    _refuse_stale(read, request.namespace, kind, name, request.evaluation)
    existing = Object.of(kube.plain(read(name, request.namespace)))
    if not request.evaluation.owns(existing):
        _invalid(request, f"a {kind} named {name} already exists and is not owned by this Evaluation")
    return False


def _apply_policy(request: Request, policy: NetworkPolicy) -> None:
    """The answer pods' NetworkPolicy, one per Evaluation: created, or brought up to this spec's gateway."""
    networking = kube.networking()
    if _create(
        request,
        networking.create_namespaced_network_policy,
        networking.read_namespaced_network_policy,
        policy,
    ):
        return
    networking.patch_namespaced_network_policy(
        policy.metadata.name, request.namespace, {"spec": policy.spec.body()}
    )


def _create_inputs(
    request: Request,
    config_map_objects: list[ConfigMap],
    claim: PersistentVolumeClaim,
    policy: NetworkPolicy | None,
) -> None:
    """The snapshots, the answer phase's RunConfig, the answers claim and the NetworkPolicy, each adopted
    and idempotent — all before the answer Job, so no answer pod starts without its egress rule."""
    core = kube.core()
    for child in config_map_objects:
        if not _create_adopted(request, core.create_namespaced_config_map, child):
            _refuse_stale(
                core.read_namespaced_config_map,
                request.namespace,
                child.kind,
                child.metadata.name,
                request.evaluation,
            )
    if policy is not None:
        _apply_policy(request, policy)
    _create(
        request,
        core.create_namespaced_persistent_volume_claim,
        core.read_namespaced_persistent_volume_claim,
        claim,
    )


def _create_answer_job(request: Request, job: Job) -> bool:
    """True when the answer Job was created now (False: it was there already, from an earlier attempt)."""
    batch = kube.batch()
    return _create(request, batch.create_namespaced_job, batch.read_namespaced_job, job)
