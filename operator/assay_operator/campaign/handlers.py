"""kopf handlers for Campaigns: thin glue around the pure `assay_operator.campaign.plan`.

One reconcile function, `reconcile_campaign`, reads the Campaign and its Evaluations, applies the plan
(create the next Evaluations up to maxParallel, replace stale specs, delete removed candidates) and writes
the status — progress, then the decision. It runs when the Campaign's spec changes (create / resume /
update) and whenever one of its Evaluations changes (a verdict frees a slot and may complete the set), so
nothing polls. Reconciles of one Campaign are serialised in this process, and the Evaluations' events are
coalesced (coalesce.py): those that arrive while a reconcile runs ask for one more, not one each.

Children are owned Evaluations, so deleting a Campaign deletes them through the garbage collector; no
finalizers.

Manual approval: a person annotates the Campaign `assay.dev/approved-by=<who>@g<generation>:<winner>`; the
reconcile that sees it records the approval in the status (who, when, which winner and generation, sealed by
the operator) and an Event, then removes the annotation — each annotation approves the promotion it names,
awaiting at that moment, never a later one. An annotation naming another generation or winner, or with
nothing awaiting approval, is removed with a Warning Event saying so. An approval in the status that the
operator did not write (its seal does not verify: assay_operator.seals) wakes the reconcile too, which
undoes it, with a Warning Event naming who wrote it as managedFields record it (approval.py).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import defaultdict
from typing import Any, cast

import kopf
from pydantic import ValidationError

from assay_operator import bounded, kube, metrics
from assay_operator.campaign import api as campaign_api
from assay_operator.campaign import plan as campaign
from assay_operator.campaign import status as campaign_status
from assay_operator.campaign.approval import _approval_events, _foreign_approval_undone, _take_approval
from assay_operator.campaign.children import Child, parse_children
from assay_operator.campaign.watched import WatchedCampaign
from assay_operator.cluster_views import Object
from assay_operator.coalesce import Coalescer
from assay_operator.evaluation import api
from assay_operator.evaluation.api import GROUP, VERSION
from assay_operator.retries import Retries
from assay_operator.startup import RETRY_SECONDS

log = logging.getLogger("assay.operator.campaign")
RETRIES = Retries()
EVENTS = Coalescer()
_locks: defaultdict[tuple[str, str], threading.Lock] = defaultdict(threading.Lock)
_locks_guard = threading.Lock()


def _lock(namespace: str, name: str) -> threading.Lock:
    with _locks_guard:
        return _locks[(namespace, name)]


def _children(owner: WatchedCampaign) -> dict[str, Child]:
    """The Campaign's own Evaluations (owner reference, not just the label: a label proves nothing), each
    parsed once."""
    namespace = owner.namespace
    selector = f"{campaign.LABEL_CAMPAIGN}={campaign.campaign_label(owner.name)}"
    listed = cast(
        dict[str, Any],
        kube.custom().list_namespaced_custom_object(
            GROUP, VERSION, namespace, api.PLURAL, label_selector=selector
        ),
    )
    items = listed.get("items", [])
    return parse_children(item for item in items if Object.of(item).metadata.owned_by(owner.uid))


def _patch_status(owner: WatchedCampaign, status: campaign_api.CampaignStatus) -> bool:
    """Write the status; False when it was not written as built (the Campaign is gone, or the status was
    refused and Stalled with the reason was written instead)."""
    written = owner.write(status)
    if written is None:
        log.info("Campaign %s/%s is gone; status not written", owner.namespace, owner.name)
    return written is not None and written.refused is None


def _cannot_reconcile(namespace: str, name: str, error: BaseException) -> None:
    """A reconcile failed again and again: say so in the status (Stalled), never leave it silent."""
    owner = WatchedCampaign.read(namespace, name)
    if owner is None:
        return
    problem = bounded.text(f"the operator cannot reconcile it: {error}", 400)
    _patch_status(owner, campaign_status.refused_status(owner.status, owner.generation, problem))


def _reconcile_from_event(namespace: str, name: str) -> None:
    """A reconcile an event asked for, coalesced with the others of its Campaign."""
    EVENTS.run((namespace, name), lambda: _reconcile_or_retry(namespace, name))


def _reconcile_or_retry(namespace: str, name: str) -> None:
    """One that fails is retried later (kopf would drop it)."""
    try:
        reconcile_campaign(namespace, name)
    except (kopf.PermanentError, kopf.TemporaryError):
        pass  # reported in the Campaign's status by then; its own handler retries what can be retried
    except Exception as error:  # the apiserver away, a conflict: try again, then report
        RETRIES.failed(
            ("Campaign", namespace, name),
            lambda: reconcile_campaign(namespace, name),
            error,
            lambda last: _cannot_reconcile(namespace, name, last),
        )


def _apply(owner: WatchedCampaign, plan: campaign.Plan) -> str | None:
    """Carry out the plan; returns a problem that stops the campaign (a name taken by someone else)."""
    namespace, name = owner.namespace, owner.name
    delete = kube.custom().delete_namespaced_custom_object
    for evaluation in plan.delete:
        kube.delete_if_present(functools.partial(delete, GROUP, VERSION, namespace, api.PLURAL, evaluation))
    for entry in plan.create:
        body = campaign.evaluation_body(name, entry)
        kopf.adopt(body, owner=cast(kopf.Body, owner.body))
        created = kube.create(
            lambda ns, b: kube.custom().create_namespaced_custom_object(GROUP, VERSION, ns, api.PLURAL, b),
            namespace,
            body,
        )
        if created:
            owner.event("Normal", "EvaluationCreated", f"created Evaluation {entry.evaluation}")
        else:
            # 409: an Evaluation of that name exists and, not being in _children, is not ours.
            return (
                f"an Evaluation named {entry.evaluation} already exists and is not owned by this Campaign: "
                f"rename candidate {entry.candidate.name} or delete that Evaluation"
            )
    for entry in plan.update:
        kube.custom().patch_namespaced_custom_object(
            GROUP,
            VERSION,
            namespace,
            api.PLURAL,
            entry.evaluation,
            [{"op": "replace", "path": "/spec", "value": entry.spec}],
            _content_type="application/json-patch+json",  # replace the whole spec: no stale field survives
        )
        owner.event("Normal", "EvaluationUpdated", f"re-running {entry.evaluation} with the new spec")
    return None


def reconcile_campaign(namespace: str, name: str) -> None:
    with _lock(namespace, name):
        owner = WatchedCampaign.read(namespace, name)
        if owner is None:
            return
        generation, current, stored = owner.generation, owner.status, owner.stored
        try:
            spec = campaign_api.CampaignSpec.model_validate(owner.raw_spec())
            wanted = campaign.entries(name, spec)
        except (ValidationError, ValueError) as exc:
            detail = api.problems(exc) if isinstance(exc, ValidationError) else str(exc)
            message = f"invalid spec: {detail}"
            _patch_status(owner, campaign_status.invalid_status(current, generation, message))
            raise kopf.PermanentError(message) from exc
        existing = _children(owner)
        steps = campaign.plan(wanted, existing, spec.max_parallel)
        problem = _apply(owner, steps)
        if problem is not None:
            _patch_status(owner, campaign_status.conflict_status(current, generation, problem))
            owner.event("Warning", "NameConflict", problem)
            # The other object's deletion wakes nothing of ours: look again later.
            raise kopf.TemporaryError(problem, delay=30)
        approved_by = owner.annotations.get(campaign_api.APPROVED_BY)
        foreign = current.approval is not None and not campaign_status.written_by_operator(
            current.approval, owner.uid
        )
        try:
            changed = steps.create or steps.update or steps.delete
            children = _children(owner) if changed else existing
            status = campaign_status.campaign_status(
                spec, wanted, children, generation, current, approved_by, owner.uid
            )
        except ValidationError as error:  # a bound the status model enforces: Stalled, saying which
            problem = f"the operator built a status its schema refuses: {api.problems(error)}"
            status = campaign_status.refused_status(current, generation, bounded.text(problem, 400))
        if approved_by is not None:
            _take_approval(owner, current, status, approved_by)
        patch = status.to_patch()
        if all(_stored_as(stored.get(k)) == _stored_as(v) for k, v in patch.items()):
            return  # nothing changed: no write, no event
        if not _patch_status(owner, status):
            return
        if foreign and current.approval is not None:
            _foreign_approval_undone(owner, current.approval)
        _approval_events(owner, current, status)
        newly_decided = status.promote is not None and (
            current.promote is None or current.observed_generation != generation
        )
        if newly_decided:
            outcome = "promote" if status.promote else "keep"
            metrics.CAMPAIGNS.labels(outcome).inc()
            owner.event("Normal" if status.promote else "Warning", "Decided", status.message or "")


def _stored_as(value: Any) -> Any:
    """A patch's value as the apiserver stores it: a merge patch's null deletes the key."""
    if isinstance(value, dict):
        return {k: _stored_as(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_stored_as(v) for v in value]
    return value


@kopf.on.event(GROUP, VERSION, campaign_api.PLURAL, annotations={campaign_api.APPROVED_BY: kopf.PRESENT})
def campaign_approved(namespace: str | None, name: str, **_: Any) -> None:
    """A person approved (or tried to): reconcile now, which records it and removes the annotation."""
    assert namespace is not None
    _reconcile_from_event(namespace, name)


def _foreign_decision(body: kopf.Body, **_: Any) -> bool:
    """The status holds an approval the operator did not seal (written around admission)."""
    approval = (body.get("status") or {}).get("approval")
    if not approval:
        return False
    try:
        parsed = campaign_api.ApprovalStatus.model_validate(approval)
    except ValidationError:
        return True
    return not campaign_status.written_by_operator(parsed, str(body["metadata"].get("uid") or ""))


@kopf.on.event(GROUP, VERSION, campaign_api.PLURAL, when=_foreign_decision)
def campaign_decision_changed(namespace: str | None, name: str, **_: Any) -> None:
    """Someone else wrote status.approval: reconcile now, which undoes it and says who wrote it."""
    assert namespace is not None
    _reconcile_from_event(namespace, name)


@kopf.on.create(GROUP, VERSION, campaign_api.PLURAL, backoff=RETRY_SECONDS)
@kopf.on.resume(GROUP, VERSION, campaign_api.PLURAL, backoff=RETRY_SECONDS)
@kopf.on.update(GROUP, VERSION, campaign_api.PLURAL, field="spec", backoff=RETRY_SECONDS)
def ensure_campaign(namespace: str | None, name: str, **_: Any) -> None:
    assert namespace is not None  # Campaigns are namespaced
    reconcile_campaign(namespace, name)


@kopf.on.event(GROUP, VERSION, api.PLURAL, labels={campaign.LABEL_CAMPAIGN: kopf.PRESENT})
def campaign_evaluation_changed(body: kopf.Body, namespace: str | None, **_: Any) -> None:
    assert namespace is not None
    owner = next(
        (r for r in body["metadata"].get("ownerReferences") or [] if r.get("kind") == campaign_api.KIND),
        None,
    )
    if owner is None:
        return
    _reconcile_from_event(namespace, owner["name"])
