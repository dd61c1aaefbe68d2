"""The runner image verified before a run's first Job, when the install says so (the chart's
imageVerification, ASSAY_IMAGE_VERIFICATION_KEY_FILE): verified, the run goes on with the ImageVerified
condition True; refused, the Evaluation ends Blocked with ImageVerified False naming why and no Job is made;
the registry unreadable, the start is retried (ImageVerified Unknown meanwhile)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import NoReturn

import kopf

from assay_operator import conditions, events, metrics
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.image_verification import ImageVerifier, Verdict
from assay_operator.settings import Settings

_VERIFIERS: dict[tuple[str, str | None], ImageVerifier] = {}
_LOCK = threading.Lock()


def verifier(operator: Settings) -> ImageVerifier | None:
    """The install's verifier (one per key and CA, so its cache of verified digests lasts), or None when
    images are not verified."""
    key_file = operator.image_verification_key_file
    if not key_file:
        return None
    with _LOCK:
        found = _VERIFIERS.get((key_file, operator.registry_ca_file))
        if found is None:
            try:
                pem = Path(key_file).read_bytes()
                found = ImageVerifier(pem, operator.registry_ca_file)
            except (OSError, ValueError) as exc:
                raise kopf.TemporaryError(
                    f"ASSAY_IMAGE_VERIFICATION_KEY_FILE {key_file}: cannot read the public key: {exc}",
                    delay=30,
                ) from None
            _VERIFIERS[(key_file, operator.registry_ca_file)] = found
        return found


def check(evaluation: Watched, generation: int, operator: Settings) -> list[conditions.Desired] | None:
    """The ImageVerified condition to merge into the run's status, [] when images are not verified, or
    None when the image was refused (the Evaluation is written Blocked here: make no Job)."""
    checker = verifier(operator)
    if checker is None:
        return []
    verdict = checker.verify(operator.runner_image)
    if verdict.verified:
        return [conditions.Desired(conditions.IMAGE_VERIFIED, "True", verdict.reason, verdict.message)]
    if not verdict.final:
        _retry(evaluation, generation, verdict)
    current = evaluation.status
    evaluation.write(
        lambda: reconcile.image_refused_status(current, generation, verdict.reason, verdict.message)
    )
    events.warning(evaluation.body, verdict.reason, verdict.message)
    metrics.EVALUATIONS.labels("Blocked", verdict.reason).inc()
    return None


def _retry(evaluation: Watched, generation: int, verdict: Verdict) -> NoReturn:
    current = evaluation.status
    unknown = [conditions.Desired(conditions.IMAGE_VERIFIED, "Unknown", verdict.reason, verdict.message)]
    evaluation.write(
        lambda: reconcile.with_conditions(
            reconcile.waiting_status(current, generation, verdict.reason, verdict.message, False),
            unknown,
            generation,
        )
    )
    raise kopf.TemporaryError(verdict.message, delay=15)
