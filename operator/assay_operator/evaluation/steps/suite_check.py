"""A suite from an OCI artifact (`spec.suite.oci`) verified before a run's first Job, when the install
verifies (the chart's imageVerification, ASSAY_IMAGE_VERIFICATION_KEY_FILE): the same key and the same
verifier as the runner image (assay_operator.image_verification: the artifact's manifest hashes to its digest,
a cosign `.sig` signature by the key names that digest, its config and layers hash to their digests), with
the same cache of verified digests. Verified, the run goes on with SuiteVerified True; refused, the Evaluation
ends Blocked with SuiteVerified False naming why and no Job is made; the registry unreadable, the start is
retried (SuiteVerified Unknown, reason SuiteUnreadable).

A condition of its own rather than ImageVerified naming its subject: a user reading `kubectl get` learns
which of the two failed from the type, and an install that runs ConfigMap suites never shows it.

The registry's CA is the operator's (ASSAY_REGISTRY_CA_FILE, the chart's imageVerification.registryCASecret):
the operator reads no Secret of an Evaluation's namespace. suiteRegistry.caSecret is what the runner pods pull
with; when suites come from a registry with another private CA, both CAs go into that one bundle."""

from __future__ import annotations

from typing import NoReturn

import kopf

from assay_operator import conditions, events, metrics
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.steps import image_check
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.image_verification import ImageVerifier, Verdict
from assay_operator.settings import Settings

UNREADABLE_SUITE = "SuiteUnreadable"
"""The reason while the suite's registry cannot be read (the image's is ImageUnreadable)."""


def reference(spec: EvaluationSpec) -> str | None:
    """The artifact to verify, as the registry names it (without `oci://`); None for other suites."""
    oci = spec.suite.oci
    return None if oci is None else oci.removeprefix("oci://")


def decide(spec: EvaluationSpec, checker: ImageVerifier | None) -> conditions.Desired | None:
    """The SuiteVerified condition of this spec's suite, None when there is nothing to verify (images not
    verified, or a suite that is not an OCI artifact)."""
    artifact = reference(spec)
    if checker is None or artifact is None:
        return None
    return condition(checker.verify(artifact))


def condition(verdict: Verdict) -> conditions.Desired:
    if verdict.verified:
        return conditions.Desired(conditions.SUITE_VERIFIED, "True", verdict.reason, verdict.message)
    if not verdict.final:
        return conditions.Desired(conditions.SUITE_VERIFIED, "Unknown", UNREADABLE_SUITE, verdict.message)
    return conditions.Desired(conditions.SUITE_VERIFIED, "False", verdict.reason, verdict.message)


def check(
    evaluation: Watched, generation: int, spec: EvaluationSpec, operator: Settings
) -> list[conditions.Desired] | None:
    """The SuiteVerified condition to merge into the run's status ([] when there is none), or None when the
    suite was refused (the Evaluation is written Blocked here: make no Job)."""
    desired = decide(spec, image_check.verifier(operator))
    if desired is None:
        return []
    if desired.status == "True":
        return [desired]
    if desired.status == "Unknown":
        _retry(evaluation, generation, desired)
    current = evaluation.status
    evaluation.write(
        lambda: reconcile.verification_refused_status(
            current, generation, conditions.SUITE_VERIFIED, desired.reason, desired.message
        )
    )
    events.warning(evaluation.body, desired.reason, desired.message)
    metrics.EVALUATIONS.labels("Blocked", desired.reason).inc()
    return None


def _retry(evaluation: Watched, generation: int, unknown: conditions.Desired) -> NoReturn:
    current = evaluation.status
    evaluation.write(
        lambda: reconcile.with_conditions(
            reconcile.waiting_status(current, generation, unknown.reason, unknown.message, False),
            [unknown],
            generation,
        )
    )
    raise kopf.TemporaryError(unknown.message, delay=15)
