"""Decisions a person takes on Assay's resources, with an identity the apiserver itself checks.

- Approving a Campaign's promotion (`approval: Manual`): annotate the Campaign
  `assay.dev/approved-by=<your user name>`.
- Overriding one Evaluation's verdict: annotate it `override.assay.dev/verdict=Pass|Blocked`,
  `override.assay.dev/reason=<why>` and `override.assay.dev/by=<your user name>`.

Anyone allowed to patch these resources could write any name into an annotation. So a
ValidatingAdmissionPolicy (rendered into the chart from `policy()` below) refuses, at admission, a request
that sets or changes one of these annotations unless (1) the name it records is the authenticated user of
that very request (`request.userInfo.username`), and (2) that user holds the custom RBAC verb `approve` on
campaigns (or `override` on evaluations) in the namespace — which the chart grants to the approvers' groups
and users it is configured with (APPROVER_RULES). Removing an annotation is not checked: the operator spends
each one once it is recorded in the status (who, when, what), and a request nobody recorded decides nothing.
"""

from __future__ import annotations

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


def _is_requester(key: str) -> str:
    """CEL: the annotation names the user making this request."""
    return f"('{key}' in variables.new) && variables.new['{key}'] == request.userInfo.username"


def _override_well_formed() -> str:
    verdict, reason = f"variables.new['{OVERRIDE_VERDICT}']", f"variables.new['{OVERRIDE_REASON}']"
    return (
        f"('{OVERRIDE_VERDICT}' in variables.new) && {verdict} in ['Pass', 'Blocked'] && "
        f"('{OVERRIDE_REASON}' in variables.new) && size({reason}.trim()) > 0 && "
        f"size({reason}) <= {MAX_REASON}"
    )


def policy() -> dict[str, Any]:
    """The ValidatingAdmissionPolicy's spec."""
    overriding = " || ".join(f"({_changed(key)})" for key in OVERRIDE_ANNOTATIONS)
    return {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["assay.dev"],
                    "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["campaigns", "evaluations"],
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
        ],
        "validations": [
            {
                "expression": f"!variables.approving || ({_is_requester(APPROVED_BY)})",
                "messageExpression": f"'{APPROVED_BY} must be the name of the user approving: ' + "
                "request.userInfo.username",
                "reason": "Forbidden",
            },
            {
                "expression": f"!variables.approving || {_allowed('campaigns', APPROVE_VERB)}",
                "messageExpression": f"'user ' + request.userInfo.username + ' may not approve promotions "
                f"(RBAC verb {APPROVE_VERB} on campaigns in ' + request.namespace + ')'",
                "reason": "Forbidden",
            },
            {
                "expression": f"!variables.overriding || ({_is_requester(OVERRIDE_BY)})",
                "messageExpression": f"'{OVERRIDE_BY} must be the name of the user overriding: ' + "
                "request.userInfo.username",
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
