"""One evaluation into one MLflow store: the run (params, metrics and tags in batches), a trace per ticket
with its feedback, the artifacts and the verdict at the end.

Explicit client calls with the store's URI throughout, never the fluent API or the tracer, whose state is
process-wide (the tracking URI, the active run, an export queue and its threads): the logger leaves
nothing behind in the process, and every failure reaches it as an exception.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from assay_runner.contract import MlflowRef, Result, TicketResult
from assay_runner.io.tracking.run_data import metrics_of, params_of, seconds_of, tags_of
from assay_runner.io.tracking.settings import RunInfo, client_settings
from assay_runner.io.tracking.traces import TraceContext, ticket_trace
from assay_runner.io.tracking.writer import SERVER_CALLS_IN_FLIGHT, TraceWriter


def _is_server(uri: str) -> bool:
    return urlsplit(uri).scheme in ("http", "https")


class MlflowLogger:
    def __init__(self, info: RunInfo) -> None:
        client_settings()
        from mlflow.tracing.client import TracingClient

        from mlflow import MlflowClient

        self.info = info
        self.client = MlflowClient(tracking_uri=info.tracking_uri)
        self.tracing = TracingClient(info.tracking_uri)

    def experiment_id(self) -> str:
        experiment = self.client.get_experiment_by_name(self.info.experiment)
        if experiment is not None:
            return str(experiment.experiment_id)
        return str(self.client.create_experiment(self.info.experiment))

    def start(self, result: Result, experiment_id: str) -> str:
        run = self.client.create_run(
            experiment_id,
            run_name=self.info.run_name or result.run_name,
            start_time=int((seconds_of(result.started_at) or time.time()) * 1000),
        )
        return str(run.info.run_id)

    def log_run(self, run_id: str, result: Result) -> None:
        """Params, metrics and tags in one batch (MLflow splits it where a request would be too large)."""
        from mlflow.entities import Metric, Param, RunTag

        now = int(time.time() * 1000)
        self.client.log_batch(
            run_id,
            metrics=[Metric(key, value, now, 0) for key, value in metrics_of(result).items()],
            params=[Param(key, value) for key, value in params_of(result, self.info.params).items()],
            tags=[RunTag(key, value) for key, value in tags_of(result).items()],
        )

    def log_traces(self, context: TraceContext, tickets: Iterable[TicketResult]) -> int:
        """A trace per ticket, built and written one after another (memory holds one batch of spans)."""
        in_flight = SERVER_CALLS_IN_FLIGHT if _is_server(self.info.tracking_uri) else 1
        with TraceWriter(self.tracing, context.experiment_id, in_flight=in_flight) as writer:
            for ticket in tickets:
                writer.add(ticket_trace(ticket, context))
            writer.flush()
        return writer.traces

    def context(
        self, result: Result, experiment_id: str, run_id: str | None, tags: Mapping[str, str], with_key: bool
    ) -> TraceContext:
        return TraceContext(
            experiment_id=experiment_id,
            run_id=run_id,
            judge_types={judge.name: judge.type for judge in result.config.judges},
            tags=tags,
            with_key=with_key,
            now=time.time(),
        )

    def log(self, result: Result) -> MlflowRef:
        """The run and its traces. A failure part-way ends the run FAILED and says so in the reference;
        the caller decides whether to try again."""
        experiment_id = self.experiment_id()
        run_id = self.start(result, experiment_id)
        ref = MlflowRef(tracking_uri=self.info.tracking_uri, experiment_id=experiment_id, run_id=run_id)
        try:
            self.log_run(run_id, result)
            self.log_traces(self.context(result, experiment_id, run_id, {}, True), result.tickets)
        except Exception as exc:
            self.client.set_terminated(run_id, status="FAILED")
            return ref.model_copy(update={"error": f"logging stopped part-way: {exc!r}"[:500]})
        return ref.model_copy(update={"logged": True})

    def log_online(self, result: Result) -> MlflowRef:
        """Each judged answer of an online result as a trace of its own, with no run and no answer key."""
        experiment_id = self.experiment_id()
        tags = {"assay.mode": "online", "assay.suite": result.suite, "assay.verdict": result.verdict}
        self.log_traces(self.context(result, experiment_id, None, tags, False), result.tickets)
        return MlflowRef(tracking_uri=self.info.tracking_uri, experiment_id=experiment_id, logged=True)

    def log_artifacts(self, run_id: str) -> None:
        for path in self.info.artifacts:
            if path.is_file():
                self.client.log_artifact(run_id, str(path))

    def finish(self, run_id: str, verdict_tags: Mapping[str, str], ok: bool) -> None:
        from mlflow.entities import RunTag

        self.client.log_batch(run_id, tags=[RunTag(key, value) for key, value in verdict_tags.items()])
        self.client.set_terminated(run_id, status="FINISHED" if ok else "FAILED")
