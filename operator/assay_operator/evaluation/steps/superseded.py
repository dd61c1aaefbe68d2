"""Clearing the way for a new run: this Evaluation's Jobs of earlier generations and runs and the claims of
earlier generations are deleted, and a rerun waits until the earlier run's pods on its claim have stopped."""

from __future__ import annotations

import functools

import kopf

from assay_operator import kube
from assay_operator.cluster_views import Object, Pod
from assay_operator.evaluation.build import names
from assay_operator.evaluation.steps.run_request import Request


def _delete_superseded(request: Request) -> None:
    """Delete this Evaluation's other Jobs (earlier generations, and earlier runs of this one: a rerun) and
    the answers claims of earlier generations (a rerun resumes on its generation's)."""
    owner = request.evaluation
    selector = f"{names.LABEL_EVALUATION}={names.evaluation_label(request.name)}"
    keep = {request.job, request.answer_job}
    jobs = kube.read_plain(kube.batch().list_namespaced_job, request.namespace, label_selector=selector)
    for item in jobs.get("items") or []:
        job = Object.of(item)
        # Only this Evaluation's own Jobs: a label value is not proof of ownership.
        if owner.owns(job) and job.metadata.name not in keep:
            # Background: without a propagation policy a deleted Job leaves its pods behind.
            delete = kube.batch().delete_namespaced_job
            kube.delete_if_present(
                functools.partial(
                    delete, job.metadata.name, request.namespace, propagation_policy="Background"
                )
            )
    core = kube.core()
    claims = kube.read_plain(
        core.list_namespaced_persistent_volume_claim, request.namespace, label_selector=selector
    )
    for found in claims.get("items") or []:
        claim = Object.of(found)
        generation = claim.metadata.labels.get(names.LABEL_GENERATION)
        if owner.owns(claim) and generation != str(request.generation):
            delete_claim = core.delete_namespaced_persistent_volume_claim
            kube.delete_if_present(functools.partial(delete_claim, claim.metadata.name, request.namespace))


def _wait_for_earlier_runs(request: Request) -> None:
    """A rerun answers on its generation's claim, where an earlier run's pods may still be stopping (their
    Job was just deleted): its pods start only once those are gone, so two attempts never write one shard."""
    selector = (
        f"{names.LABEL_EVALUATION}={names.evaluation_label(request.name)},"
        f"{names.LABEL_GENERATION}={request.generation}"
    )
    mine = {request.job, request.answer_job}
    listed = kube.read_plain(kube.core().list_namespaced_pod, request.namespace, label_selector=selector)
    running = [
        pod.metadata.name
        for pod in (Pod.of(item) for item in listed.get("items") or [])
        if pod.metadata.labels.get("job-name") not in mine and pod.status.phase not in ("Succeeded", "Failed")
    ]
    if running:
        raise kopf.TemporaryError(
            f"waiting for the earlier run's pods ({', '.join(sorted(running)[:5])}) to stop before answering "
            "again on the same volume",
            delay=2,
        )
