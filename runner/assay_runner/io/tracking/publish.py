"""What the runner calls: log a result, retrying a store that fails, and record a failure instead of
raising it. The verdict is never lost to logging; `gate.requireMlflow` makes a failure block it."""

from __future__ import annotations

import time
from collections.abc import Callable

from assay_runner.contract import MlflowRef, Result
from assay_runner.io.tracking.logger import MlflowLogger
from assay_runner.io.tracking.run_data import tags_of
from assay_runner.io.tracking.settings import RunInfo

ATTEMPTS = 3


def _attempts(info: RunInfo, attempt: Callable[[MlflowLogger], MlflowRef], attempts: int) -> MlflowRef:
    """Up to `attempts` tries, each from scratch (a failed run is left FAILED, never half-counted), with a
    pause between them; after the last, a reference that says why nothing was logged."""
    error = "unknown error"
    for number in range(attempts):
        if number:
            time.sleep(min(2.0 ** (number - 1), 5.0))  # 1 s, 2 s, ...: not after the last attempt
            _forget_server_version()
        try:
            ref = attempt(MlflowLogger(info))
        except Exception as exc:  # the store is unreachable or refuses: retry, then record the failure
            error = f"{type(exc).__name__}: {exc}"[:500]
            continue
        if ref.logged:
            return ref
        error = ref.error or error
    return MlflowRef(
        tracking_uri=info.tracking_uri, logged=False, error=f"after {attempts} attempts: {error}"
    )


def _forget_server_version() -> None:
    """MLflow's client asks a server its version (`GET /version`: 3 s, no retry) before it logs spans, once
    per process, and keeps a failure too: one slow or refused answer made every later attempt fail with
    "could not identify MLflow server version". Each attempt after a failure asks again."""
    from mlflow.store.tracking.rest_store import RestStore

    RestStore._get_server_version.cache_clear()


def log_evaluation(result: Result, info: RunInfo, attempts: int = ATTEMPTS) -> MlflowRef:
    """The run, its params, metrics and tags, and a trace per ticket with every verdict."""
    return _attempts(info, lambda logger: logger.log(result), attempts)


def log_online(result: Result, info: RunInfo, attempts: int = ATTEMPTS) -> MlflowRef:
    """An online result's traces (no run)."""
    return _attempts(info, lambda logger: logger.log_online(result), attempts)


def complete_run(result: Result, info: RunInfo) -> None:
    """After the final verdict (which may depend on logging itself): the artifacts and the verdict tags."""
    ref = result.mlflow
    if not ref.logged or ref.run_id is None:
        return
    logger = MlflowLogger(info)
    logger.log_artifacts(ref.run_id)
    logger.finish(ref.run_id, tags_of(result), ok=True)
