"""The decision on a suite's OCI artifact when the install verifies (assay_operator.evaluation.steps.
suite_check), without a registry: which suites are verified, by what reference, and the SuiteVerified
condition and Blocked status each verdict gives. The verifier reading a real registry (a signed suite
artifact, its empty config) is tests/registry/test_image_signing.py; the cluster's is
tests/operator_cluster/test_suite_verification.py."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator import conditions
from assay_operator import image_verification as iv
from assay_operator.evaluation.api import EvaluationSpec, EvaluationStatus
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.steps import suite_check

DIGEST = "sha256:" + "cd" * 32
REFERENCE = f"registry.example:5000/team/suites/support-desk@{DIGEST}"


def spec(suite: dict[str, Any]) -> EvaluationSpec:
    return EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "b"}},
            "suite": suite,
            "agent": {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}},
        }
    )


class Answers:
    """Stands in for ImageVerifier in these unit tests: one verdict, and the references it was asked."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.asked: list[str] = []

    def verify(self, reference: str) -> iv.Verdict:
        self.asked.append(reference)
        return iv.Verdict(self.reason, f"{reference}: {self.reason}")


def decide(suite: dict[str, Any], verifier: Answers | None) -> conditions.Desired | None:
    return suite_check.decide(spec(suite), verifier)  # type: ignore[arg-type]


def test_only_an_oci_suite_of_a_verifying_install_is_verified() -> None:
    verifier = Answers(iv.VERIFIED)
    assert decide({"oci": REFERENCE}, None) is None
    assert decide({"bundled": "support-desk"}, verifier) is None
    assert decide({"configMap": {"name": "s"}}, verifier) is None
    assert verifier.asked == []
    found = decide({"oci": f"oci://{REFERENCE}"}, verifier)
    assert verifier.asked == [REFERENCE]  # as the registry names it, without oci://
    assert found == conditions.Desired(
        conditions.SUITE_VERIFIED, "True", iv.VERIFIED, f"{REFERENCE}: {iv.VERIFIED}"
    )


@pytest.mark.parametrize("reason", [iv.UNSIGNED, iv.SIGNATURE_INVALID, iv.DIGEST_MISMATCH, iv.NOT_BY_DIGEST])
def test_a_refused_suite_is_false_with_the_verifiers_reason(reason: str) -> None:
    found = decide({"oci": REFERENCE}, Answers(reason))
    assert found is not None
    assert (found.type, found.status, found.reason) == (conditions.SUITE_VERIFIED, "False", reason)
    assert REFERENCE in found.message


def test_an_unreadable_registry_is_unknown_and_named_for_the_suite() -> None:
    found = decide({"oci": REFERENCE}, Answers(iv.UNREADABLE))
    assert found is not None
    assert (found.status, found.reason) == ("Unknown", suite_check.UNREADABLE_SUITE)


def test_a_refused_suite_blocks_with_its_own_condition() -> None:
    status = reconcile.verification_refused_status(
        EvaluationStatus(), 2, conditions.SUITE_VERIFIED, iv.UNSIGNED, f"{REFERENCE}: no cosign signature"
    )
    assert status.verdict == "Blocked"
    assert status.observed_generation == 2
    found = {c.type: c for c in status.conditions or []}
    assert (found[conditions.SUITE_VERIFIED].status, found[conditions.SUITE_VERIFIED].reason) == (
        "False",
        "Unsigned",
    )
    assert conditions.IMAGE_VERIFIED not in found
    assert (found[conditions.STALLED].status, found[conditions.STALLED].reason) == ("True", "Unsigned")
    assert found[conditions.READY].status == "False"
