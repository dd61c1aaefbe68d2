"""Decisions a person takes on Assay's resources, with an identity the apiserver itself checks, bound to
what the person saw.

- Approving a Campaign's promotion (`approval: Manual`): annotate the Campaign
  `assay.dev/approved-by=<your user name>@g<generation>:<winner>` (`alice@g1:cited`).
- Overriding one Evaluation's verdict: annotate it `override.assay.dev/verdict=Pass|Blocked`,
  `override.assay.dev/reason=<why>` and `override.assay.dev/by=<your user name>@g<generation>:<the verdict
  you override>` (`alice@g1:Blocked`).

The value names the generation and the winner (or the verdict) it decides on, so a changed spec, winner or
verdict waits for a new decision: an approval of generation 1 never approves generation 2.

Anyone allowed to patch these resources could write any name into an annotation. So a
ValidatingAdmissionPolicy (rendered into the chart from `policy()` below) refuses, at admission, a request
that sets or changes one of these annotations unless (1) the name it records is the authenticated user of
that very request (`request.userInfo.username`), (2) the generation and winner (verdict) it names are the
object's generation and the promotion awaiting approval (the verdict of that generation), and (3) that user
holds the custom RBAC verb `approve` on campaigns (or `override` on evaluations) in the namespace — which the
chart grants to the approvers' groups and users it is configured with (APPROVER_RULES). Removing an
annotation is not checked: the operator spends each one once it is recorded in the status (who, when,
what), and a request nobody recorded decides nothing. The operator checks (2) again when it takes the
annotation (the policy may be absent, the operator may have been down while the spec changed).

The same policy refuses every change to the status of a Campaign or an Evaluation (their `/status`
subresource) by anyone but the operator's ServiceAccount (`OPERATOR_USER`, which the chart replaces with
`system:serviceaccount:<release namespace>:<its ServiceAccount>`): the status holds the decisions —
`approval`, `override`, `verdict`, `promote`, Ready — and only the operator writes them. What gets around
admission anyway (a policy removed, a status written while it was absent) is found by the operator's own
seals (assay_operator.seals) and undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from assay_operator.objects import PolicyRule

APPROVED_BY = "assay.dev/approved-by"
OVERRIDE_VERDICT = "override.assay.dev/verdict"
OVERRIDE_REASON = "override.assay.dev/reason"
OVERRIDE_BY = "override.assay.dev/by"
OVERRIDE_ANNOTATIONS = (OVERRIDE_VERDICT, OVERRIDE_REASON, OVERRIDE_BY)
APPROVE_VERB, OVERRIDE_VERB = "approve", "override"
POLICY_NAME = "assay-approvals"
MAX_REASON = 1024
OPERATOR_USER = "__ASSAY_OPERATOR_USER__"
"""Stands for the operator's user name in the generated policy; the chart's template replaces it."""
STATUS_RESOURCES = ("campaigns/status", "evaluations/status")

_BINDING = re.compile(r"^(?P<user>.+)@g(?P<generation>[0-9]{1,18}):(?P<subject>[^@:\s]+)$")


@dataclass(frozen=True)
class Binding:
    """What an approval or override annotation names: who decides, on which generation, about what (the
    winner approved, or the verdict overridden)."""

    user: str
    generation: int
    subject: str

    def __str__(self) -> str:
        return binding_value(self.user, self.generation, self.subject)


def binding_value(user: str, generation: int, subject: str) -> str:
    """`alice@g1:cited`: the value a person writes (the policy builds the same string in CEL)."""
    return f"{user}@g{generation}:{subject}"


def parse_binding(value: str | None) -> Binding | None:
    """The annotation's value read back; None when it does not have the form `user@g<N>:<subject>`."""
    found = _BINDING.fullmatch((value or "").strip())
    if found is None:
        return None
    return Binding(found["user"], int(found["generation"]), found["subject"])


def binding_problem(value: str, generation: int, subject: str | None, what: str) -> str | None:
    """Why `value` does not decide on `subject` of `generation` (None when it does). `what` names the
    subject for the message: "promotion of" or "verdict"."""
    bound = parse_binding(value)
    if subject is None:
        return f"generation {generation} has no {what} awaiting a decision"
    if bound is None:
        return f"{value!r} does not name what it decides on: write <user>@g{generation}:{subject}"
    if bound.generation != generation:
        return (
            f"{value!r} decides on generation {bound.generation}, not on generation {generation} "
            "(the spec changed since): decide again"
        )
    if bound.subject != subject:
        return f"{value!r} decides on {bound.subject}, but generation {generation}'s {what} is {subject}"
    return None


APPROVER_RULES: list[PolicyRule] = [
    {"apiGroups": ["assay.dev"], "resources": ["campaigns"], "verbs": [APPROVE_VERB]},
    {"apiGroups": ["assay.dev"], "resources": ["evaluations"], "verbs": [OVERRIDE_VERB]},
]
"""What the chart's approver role grants: custom verbs the policy asks the authorizer about (RBAC accepts
any verb), so approving is a permission of its own, separate from editing the resource."""


def _changed(key: str) -> str:
    """CEL: the request sets `key` to a value it did not have (a create with it, or an update changing it)."""
    return (
        f"('{key}' in variables.new) && "
        f"(!('{key}' in variables.old) || variables.old['{key}'] != variables.new['{key}'])"
    )


def _allowed(resource: str, verb: str) -> str:
    """CEL: the requesting user may `verb` this resource in its namespace (RBAC, through the authorizer)."""
    return (
        f"authorizer.group('assay.dev').resource('{resource}').namespace(request.namespace)"
        f".name(request.name).check('{verb}').allowed()"
    )


def _bound(key: str, subject: str) -> str:
    """CEL: the annotation is exactly `<requesting user>@g<this generation>:<subject>`."""
    return (
        f"('{key}' in variables.new) && variables.new['{key}'] == request.userInfo.username + '@g' + "
        f"string(object.metadata.generation) + ':' + {subject}"
    )


def _override_well_formed() -> str:
    verdict, reason = f"variables.new['{OVERRIDE_VERDICT}']", f"variables.new['{OVERRIDE_REASON}']"
    return (
        f"('{OVERRIDE_VERDICT}' in variables.new) && {verdict} in ['Pass', 'Blocked'] && "
        f"('{OVERRIDE_REASON}' in variables.new) && size({reason}.trim()) > 0 && "
        f"size({reason}) <= {MAX_REASON}"
    )


def _status_unchanged() -> str:
    """CEL: a /status request that leaves the status as it was (the apiserver ignores everything else)."""
    return (
        "has(object.status) == has(oldObject.status) && "
        "(!has(object.status) || object.status == oldObject.status)"
    )


def policy(operator_user: str = OPERATOR_USER) -> dict[str, Any]:
    """The ValidatingAdmissionPolicy's spec; `operator_user` is the operator's ServiceAccount's user name."""
    overriding = " || ".join(f"({_changed(key)})" for key in OVERRIDE_ANNOTATIONS)
    return {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["assay.dev"],
                    "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["campaigns", "evaluations", *STATUS_RESOURCES],
                }
            ]
        },
        "variables": [
            {
                "name": "new",
                "expression": "has(object.metadata.annotations) ? object.metadata.annotations : {}",
            },
            {
                "name": "old",
                "expression": "oldObject != null && has(oldObject.metadata.annotations)"
                " ? oldObject.metadata.annotations : {}",
            },
            {
                "name": "approving",
                "expression": f"request.resource.resource == 'campaigns' && ({_changed(APPROVED_BY)})",
            },
            {
                "name": "overriding",
                "expression": f"request.resource.resource == 'evaluations' && ({overriding})",
            },
            {
                # The promotion the operator says awaits approval, for this very generation.
                "name": "awaiting",
                "expression": "request.resource.resource == 'campaigns' && has(object.status) && "
                "has(object.status.approval) && object.status.approval.state == 'AwaitingApproval' && "
                "object.status.approval.generation == object.metadata.generation",
            },
            {
                # This generation has a verdict to override.
                "name": "decided",
                "expression": "request.resource.resource == 'evaluations' && has(object.status) && "
                "has(object.status.verdict) && has(object.status.observedGeneration) && "
                "object.status.observedGeneration == object.metadata.generation",
            },
        ],
        "validations": [
            {
                "expression": f"request.subResource != 'status' || request.userInfo.username == "
                f"'{operator_user}' || ({_status_unchanged()})",
                "messageExpression": "'only the operator writes the status of ' + request.resource.resource"
                " + ' (it holds the decisions: approval, override, verdict, promote, Ready): ' + "
                "request.userInfo.username + ' may not'",
                "reason": "Forbidden",
            },
            {
                "expression": "!variables.approving || variables.awaiting",
                "messageExpression": "'no promotion of generation ' + string(object.metadata.generation) + "
                f"' awaits approval: {APPROVED_BY} approves only a promotion the status shows awaiting'",
                "reason": "Forbidden",
            },
            {
                # Only once something awaits (the check above): the winner is read from the status.
                "expression": "!variables.approving || !variables.awaiting || "
                f"({_bound(APPROVED_BY, 'object.status.approval.winner')})",
                "messageExpression": f"'{APPROVED_BY} must name the user approving, the generation and the "
                "winner awaiting approval: ' + request.userInfo.username + '@g' + "
                "string(object.metadata.generation) + ':' + object.status.approval.winner",
                "reason": "Forbidden",
            },
            {
                "expression": f"!variables.approving || {_allowed('campaigns', APPROVE_VERB)}",
                "messageExpression": f"'user ' + request.userInfo.username + ' may not approve promotions "
                f"(RBAC verb {APPROVE_VERB} on campaigns in ' + request.namespace + ')'",
                "reason": "Forbidden",
            },
            {
                "expression": "!variables.overriding || variables.decided",
                "messageExpression": "'generation ' + string(object.metadata.generation) + "
                "' has no verdict yet: nothing to override'",
                "reason": "Forbidden",
            },
            {
                "expression": "!variables.overriding || !variables.decided || "
                f"({_bound(OVERRIDE_BY, 'object.status.verdict')})",
                "messageExpression": f"'{OVERRIDE_BY} must name the user overriding, the generation and the "
                "verdict overridden: ' + request.userInfo.username + '@g' + "
                "string(object.metadata.generation) + ':' + object.status.verdict",
                "reason": "Forbidden",
            },
            {
                "expression": f"!variables.overriding || ({_override_well_formed()})",
                "message": f"an override names {OVERRIDE_VERDICT} (Pass or Blocked) and a non-empty "
                f"{OVERRIDE_REASON} (at most {MAX_REASON} characters)",
                "reason": "Invalid",
            },
            {
                "expression": f"!variables.overriding || {_allowed('evaluations', OVERRIDE_VERB)}",
                "messageExpression": f"'user ' + request.userInfo.username + ' may not override verdicts "
                f"(RBAC verb {OVERRIDE_VERB} on evaluations in ' + request.namespace + ')'",
                "reason": "Forbidden",
            },
        ],
    }
