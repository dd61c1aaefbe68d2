"""Writing an Evaluation's status: built by reconcile.py, written through assay_operator.status_writer, so
a status the apiserver refuses becomes a Stalled condition saying why instead of an error kopf ignores. The
one path every status write takes, so the one place the decision it states is sealed (read/verdict_seal.py),
in the same patch."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from assay_operator import events, status_writer
from assay_operator.evaluation.api import PLURAL, EvaluationStatus
from assay_operator.evaluation.read import reconcile, verdict_seal

log = logging.getLogger("assay.operator")


def write_status(
    namespace: str,
    name: str,
    build: Callable[[], EvaluationStatus] | EvaluationStatus,
    current: EvaluationStatus,
    generation: int,
    uid: str,
    obj: Mapping[str, Any] | None = None,
) -> EvaluationStatus | None:
    """Write the status `build` gives; returns it once written. None when the Evaluation is gone, or when
    the status could not be written and Stalled with the reason was written instead (`obj`, the Evaluation,
    then receives a Warning Event). `current` is the status as read, `uid` the Evaluation's: what the seal
    of the decision it leaves stored is computed over."""
    builder = build if callable(build) else (lambda: build)
    written = status_writer.write(
        PLURAL,
        namespace,
        name,
        lambda: verdict_seal.sealed(builder(), current, uid),
        lambda problem: verdict_seal.sealed(
            reconcile.refused_status(current, generation, problem), current, uid
        ),
        None if obj is None else (lambda message: events.warning(obj, status_writer.REASON, message)),
    )
    if written is None:
        log.info("Evaluation %s/%s is gone; status not written", namespace, name)
        return None
    return written.status if written.refused is None else None
