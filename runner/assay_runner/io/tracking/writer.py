"""Traces into the store in few round trips, and never silently short.

Per trace, one `start_trace` that carries the trace's tags, its run and all its feedback and expectations:
the store writes them in one transaction (MLflow has no call that writes assessments of several traces at
once, and one `log_feedback` per verdict is a round trip each). Then the spans of many traces go in one
`log_spans` call (one transaction; one OTLP request to a server), up to a size that keeps a request
reasonable. Every call raises when the store refuses: MLflow's own exporter logs a warning and drops the
trace instead, which let a run count as logged with traces missing.

A server does the work of a call in its own process, so a few calls are kept in flight there; a SQLite
store is written from this process, one transaction at a time.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING

from assay_runner.io.tracking.traces import TraceRecord

if TYPE_CHECKING:
    from mlflow.entities import Span, TraceInfo
    from mlflow.tracing.client import TracingClient

MAX_BATCH_BYTES = 4 << 20  # an answer may be megabytes; a request stays a few (one trace may go over alone)
MAX_BATCH_SPANS = 5000
SERVER_CALLS_IN_FLIGHT = 4


class TraceWriter:
    """Use as a context manager: leaving it waits for every call, and raises the first failure."""

    def __init__(self, client: TracingClient, experiment_id: str, *, in_flight: int = 1) -> None:
        self.client = client
        self.experiment_id = experiment_id
        self.traces = 0
        self._spans: list[Span] = []
        self._bytes = 0
        self._started: list[Future[TraceInfo]] = []
        self._pool = ThreadPoolExecutor(in_flight, "assay-mlflow") if in_flight > 1 else None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def add(self, record: TraceRecord) -> None:
        """Create the trace with its assessments; its spans go with the next batch."""
        if self._pool is not None:
            self._started.append(self._pool.submit(self.client.start_trace, record.info))
        else:
            self.client.start_trace(record.info)
        self.traces += 1
        self._spans += record.spans
        self._bytes += record.size
        if self._bytes >= MAX_BATCH_BYTES or len(self._spans) >= MAX_BATCH_SPANS:
            self.flush()

    def flush(self) -> None:
        """Send the batch of spans, once their traces exist: the store then keeps the times and state the
        traces were created with rather than inferring them from the spans."""
        started, self._started = self._started, []
        for future in started:
            future.result()  # raises the call's failure
        if self._spans:
            self.client.log_spans(self.experiment_id, self._spans)
        self._spans, self._bytes = [], 0
