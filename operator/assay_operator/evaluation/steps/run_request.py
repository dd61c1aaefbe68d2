"""One reconcile of an Evaluation's generation (`Request`: the watched Evaluation and kopf's retry) and its
two ends short of a run: a spec that cannot run (Blocked, InvalidSpec, no retry) and a ConfigMap to wait for
(a Reconciling condition that says which, a retry with backoff, and a wake-up when it appears)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import kopf

from assay_operator import conditions, events, metrics
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.build import names
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.steps.wakeups import WAKEUPS
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.startup import settings


@dataclass(frozen=True)
class Request:
    """One reconcile of one Evaluation's generation: the Evaluation as this event shows it, and who asks."""

    evaluation: Watched
    retry: int | None
    """kopf's retry count; None when a ConfigMap's creation woke it."""

    @property
    def body(self) -> Mapping[str, Any]:
        return self.evaluation.body

    @property
    def namespace(self) -> str:
        return self.evaluation.namespace

    @property
    def name(self) -> str:
        return self.evaluation.name

    @property
    def generation(self) -> int:
        return self.evaluation.generation

    @property
    def current(self) -> EvaluationStatus:
        return self.evaluation.status

    @property
    def rerun(self) -> str | None:
        return self.evaluation.rerun

    @property
    def first_run(self) -> bool:
        """The first run of a new Evaluation: no earlier generation or rerun of it can have left Jobs, claims
        or pods behind (a deleted namesake's are not its own: the ownership checks skip them, and the garbage
        collector takes them)."""
        return self.generation == 1 and self.rerun is None

    @property
    def job(self) -> str:
        """The run's judge Job (`status.jobName`)."""
        return names.job_name(self.name, self.generation, self.rerun)

    @property
    def answer_job(self) -> str:
        return names.answer_job_name(self.name, self.generation, self.rerun)

    def write(self, build: Callable[[], EvaluationStatus] | EvaluationStatus) -> None:
        self.evaluation.write(build)


def _invalid(request: Request, message: str) -> NoReturn:
    request.write(lambda: reconcile.invalid_status(request.current, request.generation, message))
    kopf.warn(cast(kopf.Body, request.body), reason="InvalidSpec", message=message[:1024])
    metrics.EVALUATIONS.labels("Blocked", "InvalidSpec").inc()
    raise kopf.PermanentError(message)


def _wait_for(request: Request, kind: str, config_map: str) -> NoReturn:
    reason = f"{kind}NotFound"
    message = (
        f"ConfigMap {config_map!r} ({kind.lower()}) not found in namespace {request.namespace}; "
        "retrying until it exists"
    )
    WAKEUPS.wait(request.namespace, config_map, request.name)
    if request.retry is None:  # woken by another ConfigMap: stalled or not as before
        stalled = conditions.holds(request.current.conditions, conditions.STALLED, request.generation)
    else:
        stalled = request.retry >= settings().stall_after_retries
    request.write(
        lambda: reconcile.waiting_status(request.current, request.generation, reason, message, stalled)
    )
    if request.retry == 0:
        events.warning(request.body, reason, message)
    retry = request.retry or 0
    raise kopf.TemporaryError(message, delay=min(5 * 2**retry, 120))
