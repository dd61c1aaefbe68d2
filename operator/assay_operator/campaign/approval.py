"""A Campaign's manual approval as the reconcile meets it: the `assay.dev/approved-by` annotation spent once
seen (it approved what it names and awaited, or is ignored, saying why), an approval the operator did not
seal undone with a Warning naming its writer, and the Events for an approval given or awaited."""

from __future__ import annotations

from assay_operator import approvals, field_managers, kube
from assay_operator.campaign import api as campaign_api
from assay_operator.campaign import status as campaign_status
from assay_operator.campaign.watched import WatchedCampaign
from assay_operator.evaluation.api import GROUP, VERSION


def _take_approval(
    owner: WatchedCampaign,
    current: campaign_api.CampaignStatus,
    status: campaign_api.CampaignStatus,
    approved_by: str,
) -> None:
    """The annotation is spent once seen: it approved what it names and awaited, or it is ignored, saying
    why (another generation or winner, nothing awaiting)."""
    namespace, name = owner.namespace, owner.name
    bound = approvals.parse_binding(approved_by)
    approval = status.approval
    approved_now = (
        approval is not None
        and bound is not None
        and approval.state == "Approved"
        and approval.approved_by == bound.user[:253]
        and not _was_approved(current, approval)
    )
    if not approved_now:
        awaited = approval.winner if approval is not None and approval.state != "Approved" else None
        why = approvals.binding_problem(approved_by, owner.generation, awaited, "promotion")
        owner.event(
            "Warning",
            "ApprovalIgnored",
            f"{campaign_api.APPROVED_BY}={approved_by}: {why or 'no promotion awaits approval'}; "
            "annotation removed",
        )
    kube.custom().patch_namespaced_custom_object(
        GROUP,
        VERSION,
        namespace,
        campaign_api.PLURAL,
        name,
        {"metadata": {"annotations": {campaign_api.APPROVED_BY: None}}},
    )


def _foreign_approval_undone(owner: WatchedCampaign, approval: campaign_api.ApprovalStatus) -> None:
    writer = field_managers.last_writer(owner.body, "status", "approval")
    owner.event(
        "Warning",
        "DecisionReverted",
        f"status.approval ({approval.state} of {approval.winner}, generation {approval.generation}, by "
        f"{approval.approved_by or 'nobody'}) was not written by the operator (no valid seal); written by "
        f"{writer}: undone",
    )


def _was_approved(current: campaign_api.CampaignStatus, approval: campaign_api.ApprovalStatus) -> bool:
    prior = current.approval
    return (
        prior is not None
        and prior.state == "Approved"
        and (prior.generation, prior.winner) == (approval.generation, approval.winner)
    )


def _approval_events(
    owner: WatchedCampaign, current: campaign_api.CampaignStatus, status: campaign_api.CampaignStatus
) -> None:
    approval = status.approval
    if approval is None:
        return
    if approval.state == "Approved" and not _was_approved(current, approval):
        message = f"promotion of {approval.winner} approved by {approval.approved_by}"
        owner.event("Normal", "Approved", message)
    elif approval.state == campaign_api.AWAITING_APPROVAL and current.approval != approval:
        hint = campaign_status.approval_hint(approval.generation, approval.winner)
        message = f"promotion of {approval.winner} awaits approval: annotate {hint}"
        owner.event("Normal", campaign_api.AWAITING_APPROVAL, message)
