"""A status write is never silently lost: transient failures are retried, a refusal becomes a Stalled
status saying why, and a step an event started is retried after a failure, then reported. The apiserver is
replaced by a scripted stand-in here; tests/operator_cluster/test_status_refused.py has the real one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from assay_operator import conditions, kube, status_writer
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import reconcile
from assay_operator.retries import Retries


def refusal(status: int, message: str) -> ApiException:
    error = ApiException(status=status, reason="Unprocessable Entity")
    error.body = f'{{"kind": "Status", "message": "{message}"}}'
    return error


@pytest.fixture
def apiserver(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Scripted answers to status patches, in order: an exception to raise, or True (written) / False (gone);
    the patches sent are appended to `sent`."""
    script: list[Any] = []
    sent: list[dict[str, Any]] = []

    def patch_status(plural: str, namespace: str, name: str, status: dict[str, Any]) -> bool:
        sent.append(status)
        answer = script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return bool(answer)

    monkeypatch.setattr(kube, "patch_status", patch_status)
    monkeypatch.setattr(status_writer, "FIRST_DELAY", 0.0)
    yield [script, sent]


def running() -> EvaluationStatus:
    return reconcile.running_status(EvaluationStatus(), 3, "e-g3", "sha256:b", "t")


def fallback(problem: str) -> EvaluationStatus:
    return reconcile.refused_status(EvaluationStatus(), 3, problem)


def test_transient_failures_are_retried(apiserver: list[Any]) -> None:
    script, sent = apiserver
    script += [refusal(503, "busy"), refusal(409, "conflict"), True]
    written = status_writer.write("evaluations", "ns", "e", running, fallback)
    assert written is not None and written.refused is None and len(sent) == 3


def test_a_refused_status_becomes_stalled_with_the_apiservers_reason(apiserver: list[Any]) -> None:
    script, sent = apiserver
    script += [refusal(422, "status.jobName: Too long: may not be longer than 3"), True]
    warned: list[str] = []
    written = status_writer.write("evaluations", "ns", "e", running, fallback, warned.append)
    assert written is not None and written.refused is not None and "jobName" in written.refused
    stalled = conditions.find(written.status.conditions, conditions.STALLED)
    assert stalled is not None and (stalled.status, stalled.reason) == ("True", "StatusRefused")
    assert "jobName: Too long" in stalled.message and warned and "jobName" in warned[0]
    assert set(sent[1]) == {"observedGeneration", "message", "conditions"}  # only what is certain


def test_a_status_its_own_model_refuses_is_stalled_too(apiserver: list[Any]) -> None:
    script, _ = apiserver
    script += [True]

    def too_many_rules() -> EvaluationStatus:
        status = running()
        status.rules = [{"name": "r", "passed": True, "detail": ""}] * 17  # type: ignore[list-item]
        return status

    written = status_writer.write("evaluations", "ns", "e", too_many_rules, fallback)
    assert written is not None and written.refused is not None and "rules" in written.refused


def test_when_even_the_fallback_is_refused_it_raises(apiserver: list[Any]) -> None:
    script, _ = apiserver
    script += [refusal(422, "no"), refusal(422, "still no")]
    with pytest.raises(status_writer.StatusRefused, match="still no"):
        status_writer.write("evaluations", "ns", "e", running, fallback)


def test_a_gone_object_is_no_error(apiserver: list[Any]) -> None:
    script, _ = apiserver
    script += [False]
    assert status_writer.write("evaluations", "ns", "e", running, fallback) is None


def test_a_failed_step_runs_again_then_is_reported() -> None:
    retries = Retries(attempts=2, first_delay=0.01)
    calls: list[int] = []
    reported = threading.Event()
    last: list[BaseException] = []

    def step() -> None:
        calls.append(1)
        raise RuntimeError(f"attempt {len(calls)}")

    def give_up(error: BaseException) -> None:
        last.append(error)
        reported.set()

    retries.failed("k", step, RuntimeError("first"), give_up)
    assert reported.wait(10)
    assert len(calls) == 2 and str(last[0]) == "attempt 2"


def test_a_step_that_succeeds_on_retry_is_not_reported() -> None:
    retries = Retries(attempts=3, first_delay=0.01)
    done = threading.Event()
    gave_up: list[BaseException] = []
    retries.failed("k", done.set, RuntimeError("first"), gave_up.append)
    assert done.wait(10) and gave_up == []
