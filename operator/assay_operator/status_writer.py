"""Writing a custom resource's status so that a failed write is never silent.

A status patch the apiserver refuses used to end as an exception in a kopf event handler, which kopf logs as
"will ignore it": the resource kept its last status (a Campaign read "255/257 ... waiting for the rest" for
ever) and Flux, Argo CD and `kubectl wait` waited for ever. Here a transient failure (a conflict, throttling,
the apiserver briefly away) is retried with backoff; a refusal (the status does not validate) writes a small
fallback status instead — Stalled=True with the apiserver's reason, which kstatus reads as Failed and Argo
CD as Degraded — and logs an error and a Warning Event. Only when even the fallback is refused does the
write raise.

The statuses are built to fit the schema by construction (assay_operator.bounded), so the fallback is the
last line of defence, not the plan.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from kubernetes.client.exceptions import ApiException
from pydantic import ValidationError
from urllib3.exceptions import HTTPError

from assay_operator import bounded, kube, metrics
from assay_operator.schema import ApiModel, problems

log = logging.getLogger("assay.operator.status")
TRANSIENT = frozenset({409, 429, 500, 502, 503, 504})
ATTEMPTS = 4
FIRST_DELAY = 0.5
PROBLEM_LENGTH = 400
REASON = "StatusRefused"

Patched = Literal["written", "gone"]


class StatusRefused(RuntimeError):
    """The apiserver refused a status and its Stalled fallback too."""


def _apiserver_message(error: ApiException) -> str:
    try:
        return str(json.loads(error.body or "{}").get("message") or error.reason)
    except (ValueError, AttributeError):
        return f"{error.status} {error.reason}"


def _patch(plural: str, namespace: str, name: str, patch: dict[str, object]) -> Patched | str:
    """Patch with retries on transient failures: "written", "gone" (404), or the refusal's message."""
    delay = FIRST_DELAY
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return "written" if kube.patch_status(plural, namespace, name, patch) else "gone"
        except ApiException as error:
            if error.status not in TRANSIENT or attempt == ATTEMPTS:
                return bounded.text(f"{error.status}: {_apiserver_message(error)}", PROBLEM_LENGTH)
        except HTTPError as error:  # connection refused or reset, a timeout
            if attempt == ATTEMPTS:
                return bounded.text(f"no answer from the apiserver: {error}", PROBLEM_LENGTH)
        log.info("status of %s %s/%s: attempt %d failed; retrying", plural, namespace, name, attempt)
        time.sleep(delay)
        delay *= 2
    raise AssertionError("unreachable")  # pragma: no cover


M = TypeVar("M", bound=ApiModel)


@dataclass(frozen=True)
class Written(Generic[M]):
    status: M
    """What was written: the status as built, or the Stalled fallback."""
    refused: str | None = None
    """Why the status as built was not written (then `status` is the fallback)."""


def write(
    plural: str,
    namespace: str,
    name: str,
    build: Callable[[], M],
    fallback: Callable[[str], M],
    warn: Callable[[str], None] | None = None,
) -> Written[M] | None:
    """Build the status and write it; returns what was written — the status, or `fallback(problem)`, a
    Stalled status saying why the status could not be built (a bound the model enforces) or was refused —
    or None when the object no longer exists (its children go with it). `warn` posts a Warning Event."""
    try:
        status = build()
        problem = _patch(plural, namespace, name, status.to_patch())
    except ValidationError as error:
        problem = bounded.text(f"the operator built a status its schema refuses: {problems(error)}", 400)
    if problem == "written":
        return Written(status)
    if problem == "gone":
        return None
    metrics.ERRORS.labels("status").inc()
    log.error(
        "status of %s %s/%s not written: %s; writing Stalled (%s) instead",
        plural,
        namespace,
        name,
        problem,
        REASON,
    )
    if warn is not None:
        warn(f"the status could not be written: {problem}")
    replacement = fallback(problem)
    outcome = _patch(plural, namespace, name, replacement.to_patch())
    if outcome == "gone":
        return None
    if outcome != "written":
        raise StatusRefused(
            f"status of {plural} {namespace}/{name} refused ({problem}), and its fallback too ({outcome})"
        )
    return Written(replacement, problem)
