"""Logging an evaluation to MLflow: one run, one trace per ticket repetition, each judge's verdict attached.

What a person finds in the run:
- params: suite, ticket selection, agent, model, repetitions, concurrency, gate settings, judge thresholds;
- tags: the verdict, each rule's outcome, the digests of brain, suite and judge configuration;
- metrics: score, each judge's mean (and raw mean), pass rate, pass@k, pass^k, tokens, cost, duration;
- artifacts: result.json, summary.json and the HTML report;
- traces: one per ticket x repetition, linked to the run, with a span for the agent (and under it one span
  per step of the agent's trajectory: LLM spans for model turns, TOOL spans for tool calls with their
  arguments and results, errors as failed spans) and one per judge, each
  judge's verdict as feedback (value, rationale, source CODE or LLM_JUDGE, error when it failed), and the
  answer key as an expectation. What the Traces list shows as a trace's request and response is the
  question and the agent's answer (what a reviewer scans): the root span holds them as one user and one
  assistant chat message, which MLflow reads for that list (and shows as a chat), next to the cell's score;
  the agent and judge spans are unchanged, and the scores a reviewer filters on are the feedback.

Online judging (`assay judge --mlflow`) logs one trace per judged answer the same way, with no run, tagged
`assay.mode: online`: the feedback of the judges that need no answer key, never a release verdict.

Everything is logged after the cells finished, from the result, with explicit trace and span calls (never
the fluent run context, which is process-global). MLflow's tracer exports through the process's tracking
URI, so the logger sets it for its own duration; the runner logs to exactly one store. A store that cannot
be reached is retried a few times, then the result records `mlflow.logged: false` with the error: the
verdict is never lost to a logging failure, and `gate.requireMlflow` can make that failure blocking.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay_runner.contract import (
    AgentError,
    JudgeConfigSummary,
    MlflowRef,
    ModelTurn,
    RepetitionResult,
    Result,
    TicketResult,
    ToolCall,
    Trajectory,
)

if TYPE_CHECKING:
    from mlflow.entities import Assessment

DEFAULT_EXPERIMENT = "assay"
TRACE_QUEUE = 200_000  # a trace per cell: 1000 tickets x 100 repetitions, and room to spare
MODEL_JUDGE_TYPES = {"model"}


def default_tracking_uri() -> str:
    """`MLFLOW_TRACKING_URI` when set, else a SQLite store in the working directory."""
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{Path.cwd() / 'mlflow.db'}"


@dataclass
class RunInfo:
    """What the logger knows beyond the result: how the evaluation was run."""

    tracking_uri: str
    experiment: str = DEFAULT_EXPERIMENT
    run_name: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    artifacts: list[Path] = field(default_factory=list)


TOKEN_FILE_ENV = "MLFLOW_TRACKING_TOKEN_FILE"


def _token_from_file() -> None:
    """MLflow reads its bearer token from `MLFLOW_TRACKING_TOKEN` only; on the cluster the token is a Secret
    mounted as a file (never an environment value in the pod spec), named by `MLFLOW_TRACKING_TOKEN_FILE`."""
    path = os.environ.get(TOKEN_FILE_ENV)
    if path and "MLFLOW_TRACKING_TOKEN" not in os.environ:
        token = Path(path).read_text(encoding="utf-8").strip()
        if token:
            os.environ["MLFLOW_TRACKING_TOKEN"] = token


def _client_settings() -> None:
    _token_from_file()
    # MLflow's HTTP client retries for minutes by default; a runner pod has a deadline to keep.
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "3")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "1")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "20")
    # Traces are exported by a queue of MLflow's, which drops what does not fit (1000 by default, with a
    # warning): a 300-ticket x 5-repetition run lost a third of its traces. Sized for any run Assay makes.
    os.environ.setdefault("MLFLOW_ASYNC_TRACE_LOGGING_MAX_QUEUE_SIZE", str(TRACE_QUEUE))


def _seconds(iso: str | None) -> float | None:
    if not iso:
        return None
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def metrics_of(result: Result) -> dict[str, float]:
    metrics: dict[str, float] = {"score": result.score}
    for name, judge in result.judges.items():
        if judge.mean is not None:
            metrics[f"judge.{name}.mean"] = judge.mean
        if judge.raw_mean is not None:
            metrics[f"judge.{name}.raw_mean"] = judge.raw_mean
    figures = result.repetitions
    metrics.update(
        pass_rate=figures.pass_rate,
        pass_at_k=figures.pass_at_k,
        pass_hat_k=figures.pass_hat_k,
        fully_resolved=float(figures.fully_resolved),
    )
    metrics.update(
        input_tokens=float(result.usage.input_tokens),
        output_tokens=float(result.usage.output_tokens),
        cost_usd=result.usage.cost_usd,
    )
    started, finished = _seconds(result.started_at), _seconds(result.finished_at)
    if started is not None and finished is not None:
        metrics["duration_seconds"] = finished - started
    return metrics


def tags_of(result: Result) -> dict[str, str]:
    tags = {
        "assay.verdict": result.verdict,
        "assay.suite": result.suite,
        "assay.mode": result.mode,
        "assay.digest.suite": result.inputs.suite_digest,
        "assay.digest.judges": result.inputs.judges_digest,
    }
    if result.inputs.brain_digest:
        tags["assay.digest.brain"] = result.inputs.brain_digest
    if result.inputs.tickets_digest:
        tags["assay.digest.tickets"] = result.inputs.tickets_digest
    for rule in result.rules:
        tags[f"assay.rule.{rule.name}"] = "pass" if rule.passed else "fail"
    if result.reasons:
        tags["assay.reasons"] = "; ".join(result.reasons)[:4000]
    return tags


def params_of(result: Result, extra: Mapping[str, str]) -> dict[str, str]:
    gate = result.config.gate
    params = {
        "suite": result.suite,
        "tickets": str(len(result.tickets)),
        "repetitions": str(result.repetitions.k),
        "gate.minScore": str(gate.min_score),
        "gate.ticketFloor": str(gate.ticket_floor),
        "passCriterion": result.config.pass_criterion.kind,
    }
    if gate.min_pass_hat_k is not None:
        params["gate.minPassHatK"] = str(gate.min_pass_hat_k)
    for judge in result.config.judges:
        params[f"judge.{judge.name}"] = (
            f"{judge.type} weight={judge.weight:g} threshold={judge.threshold:g}"
            + (f" floor={judge.floor:g}" if judge.floor is not None else "")
        )
    params.update(extra)
    return {key: value[:6000] for key, value in params.items()}


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


class MlflowLogger:
    def __init__(self, info: RunInfo) -> None:
        _client_settings()
        import mlflow
        from mlflow import MlflowClient

        self.info = info
        self.mlflow = mlflow
        self._judges: list[JudgeConfigSummary] = []
        self.client = MlflowClient(tracking_uri=info.tracking_uri)

    def experiment_id(self) -> str:
        experiment = self.client.get_experiment_by_name(self.info.experiment)
        if experiment is not None:
            return str(experiment.experiment_id)
        return str(self.client.create_experiment(self.info.experiment))

    def start(self, result: Result) -> tuple[str, str]:
        experiment_id = self.experiment_id()
        run = self.client.create_run(
            experiment_id,
            run_name=self.info.run_name or result.run_name,
            start_time=int((_seconds(result.started_at) or time.time()) * 1000),
        )
        return experiment_id, str(run.info.run_id)

    def log_run(self, run_id: str, result: Result) -> None:
        from mlflow.entities import Metric, Param, RunTag

        now = int(time.time() * 1000)
        self.client.log_batch(
            run_id,
            metrics=[Metric(key, value, now, 0) for key, value in metrics_of(result).items()],
            params=[Param(key, value) for key, value in params_of(result, self.info.params).items()],
            tags=[RunTag(key, value) for key, value in tags_of(result).items()],
        )

    def log_traces(self, experiment_id: str, run_id: str, result: Result) -> int:
        """Every cell's trace, its judges' verdicts and the answer key carried with it: each trace is one
        write to the store (exported in the background, waited for once at the end), not one write for
        the trace and one more per verdict — the store's round trips were most of a run's logging time
        (bench/scale_out.py)."""
        count = 0
        for ticket in result.tickets:
            for cell in ticket.repetitions:
                self.log_trace(
                    experiment_id, run_id, ticket, cell, assessments=self.assessments(ticket, cell)
                )
                count += 1
        self.mlflow.flush_trace_async_logging(terminate=False)
        return count

    def log_trace(
        self,
        experiment_id: str,
        run_id: str | None,
        ticket: TicketResult,
        cell: RepetitionResult,
        extra_tags: Mapping[str, str] | None = None,
        assessments: list[Assessment] | None = None,
    ) -> str:
        start = cell.started_at or time.time()
        agent_end = start + (cell.wall_seconds or 0.0)
        end = agent_end + (cell.judge_seconds or 0.0)
        root = self.client.start_trace(
            name=f"{ticket.id}#{cell.index}",
            span_type="CHAIN",
            inputs={
                "messages": _as_chat("user", ticket.question),
                "ticket": ticket.id,
                "repetition": cell.index,
            },
            tags={
                "assay.ticket": ticket.id,
                "assay.repetition": str(cell.index),
                "assay.split": ticket.split,
                **(extra_tags or {}),
            },
            experiment_id=experiment_id,
            run_id=run_id,
            start_time_ns=_ns(start),
        )
        trace_id = root.trace_id
        agent = self.client.start_span(
            "agent",
            trace_id,
            root.span_id,
            span_type="AGENT",
            inputs={"question": ticket.question},
            start_time_ns=_ns(start),
        )
        agent_failed = cell.error is not None or cell.exit_code not in (0, None)
        if cell.trajectory is not None:
            self.log_steps(trace_id, agent.span_id, cell.trajectory, start, agent_end)
        self.client.end_span(
            trace_id,
            agent.span_id,
            outputs={"answer": cell.answer, "exitCode": cell.exit_code, "transcriptTail": cell.transcript},
            status="ERROR" if agent_failed else "OK",
            end_time_ns=_ns(agent_end),
        )
        for name, verdict in cell.judges.items():
            span = self.client.start_span(
                f"judge:{name}",
                trace_id,
                root.span_id,
                span_type="EVALUATOR",
                inputs={"judge": name},
                start_time_ns=_ns(agent_end),
            )
            self.client.end_span(
                trace_id,
                span.span_id,
                outputs=verdict.to_wire(),
                status="ERROR" if verdict.error else "OK",
                end_time_ns=_ns(end),
            )
        if assessments:
            _attach(trace_id, assessments)
        self.client.end_trace(
            trace_id,
            outputs={
                "messages": _as_chat("assistant", _answer_text(cell)),
                "score": cell.score,
                "passed": cell.passed,
                "error": cell.error,
            },
            status="ERROR" if cell.error else "OK",
            end_time_ns=_ns(end),
        )
        return str(trace_id)

    def log_steps(self, trace_id: str, parent: str, trajectory: Trajectory, start: float, end: float) -> None:
        """One child span of the agent's per step, at its time (seconds from the agent's start; a step the
        CLI did not time sits at the previous step's end)."""
        last = start
        for index, step in enumerate(trajectory.steps, 1):
            begin = start + step.start if step.start is not None else last
            finish = max(begin, start + step.end if step.end is not None else begin)
            begin, finish = min(max(begin, start), end), min(max(finish, start), end)
            name, kind, inputs, outputs, ok = _span_of(step)
            span = self.client.start_span(
                f"{index:03d} {name}",
                trace_id,
                parent,
                span_type=kind,
                inputs=inputs,
                attributes={"assay.step": index, "assay.agent": trajectory.agent},
                start_time_ns=_ns(begin),
            )
            self.client.end_span(
                trace_id,
                span.span_id,
                outputs=outputs,
                status="OK" if ok else "ERROR",
                end_time_ns=_ns(finish),
            )
            last = finish

    def log_online(self, result: Result) -> MlflowRef:
        """Each judged answer of an online result as a trace of its own, with no run."""
        self._judges = list(result.config.judges)
        experiment_id = self.experiment_id()
        tags = {"assay.mode": "online", "assay.suite": result.suite, "assay.verdict": result.verdict}
        for ticket in result.tickets:
            for cell in ticket.repetitions:
                # An online answer has no key: its ticket carries an empty one, which is no expectation.
                verdicts = self.assessments(ticket, cell, answer_key=False)
                self.log_trace(experiment_id, None, ticket, cell, tags, assessments=verdicts)
        self.mlflow.flush_trace_async_logging(terminate=False)
        return MlflowRef(tracking_uri=self.info.tracking_uri, experiment_id=experiment_id, logged=True)

    def assessments(
        self, ticket: TicketResult, cell: RepetitionResult, *, answer_key: bool = True
    ) -> list[Assessment]:
        """Each applicable judge's verdict as feedback, and the answer key as an expectation."""
        from mlflow.entities import AssessmentError, AssessmentSource, Expectation, Feedback

        found: list[Assessment] = []
        types = {j.name: j.type for j in self._judges}
        for name, verdict in cell.judges.items():
            if not verdict.applicable:
                continue  # excluded, not scored: no feedback rather than a made-up value
            source = AssessmentSource(
                source_type="LLM_JUDGE" if types.get(name) in MODEL_JUDGE_TYPES else "CODE", source_id=name
            )
            metadata = {"ticket": ticket.id, "repetition": str(cell.index)}
            if verdict.raw is not None:
                metadata["raw"] = f"{verdict.raw:g}"
            if verdict.samples is not None:
                metadata["samples"] = ",".join(f"{s:g}" for s in verdict.samples)
            if verdict.error is not None:
                error = AssessmentError(error_code="JUDGE_ERROR", error_message=verdict.error)
                feedback = Feedback(
                    name=name, error=error, source=source, rationale=verdict.reason, metadata=metadata
                )
            else:
                feedback = Feedback(
                    name=name, value=verdict.score, source=source, rationale=verdict.reason, metadata=metadata
                )
            found.append(feedback)
        if answer_key and ticket.key is not None:
            expectation = Expectation(
                name="answer_key",
                value=ticket.key,
                source=AssessmentSource(source_type="HUMAN", source_id="suite"),
            )
            found.append(expectation)
        return found

    def log_artifacts(self, run_id: str) -> None:
        for path in self.info.artifacts:
            if path.is_file():
                self.client.log_artifact(run_id, str(path))

    def finish(self, run_id: str, verdict_tags: Mapping[str, str], ok: bool) -> None:
        for key, value in verdict_tags.items():
            self.client.set_tag(run_id, key, value)
        self.client.set_terminated(run_id, status="FINISHED" if ok else "FAILED")

    def log(self, result: Result) -> MlflowRef:
        self._judges = list(result.config.judges)
        experiment_id, run_id = self.start(result)
        ref = MlflowRef(tracking_uri=self.info.tracking_uri, experiment_id=experiment_id, run_id=run_id)
        try:
            self.log_run(run_id, result)
            self.log_traces(experiment_id, run_id, result)
        except Exception as exc:
            self.client.set_terminated(run_id, status="FAILED")
            return ref.model_copy(update={"error": f"logging stopped part-way: {exc!r}"[:500]})
        return ref.model_copy(update={"logged": True})


def _attach(trace_id: str, assessments: list[Assessment]) -> None:
    """Put the assessments on the trace before it is exported, so the store writes them with it (as it
    does for a trace exported with assessments) instead of one round trip each after it. MLflow has no
    public call for this: the trace being built lives in its in-memory trace manager (mlflow is pinned,
    and tests/mlflow/test_tracking.py reads the feedback back through the public search API)."""
    from mlflow.tracing.trace_manager import InMemoryTraceManager

    manager = InMemoryTraceManager.get_instance()  # type: ignore[no-untyped-call]
    with manager.get_trace(trace_id) as trace:
        if trace is None:
            raise RuntimeError(f"trace {trace_id} is not being built: its verdicts cannot be attached")
        trace.info.assessments.extend(assessments)


def _span_of(
    step: ModelTurn | ToolCall | AgentError,
) -> tuple[str, str, dict[str, Any], dict[str, Any], bool]:
    """(name, span type, inputs, outputs, ok) of one trajectory step."""
    if isinstance(step, ToolCall):
        inputs = {"arguments": step.arguments, "action": step.action, "paths": step.paths}
        return f"tool:{step.tool}", "TOOL", inputs, {"result": step.result, "ok": step.ok}, step.ok
    if isinstance(step, ModelTurn):
        tokens = {"inputTokens": step.input_tokens, "outputTokens": step.output_tokens}
        return "model", "LLM", {}, {"text": step.text, **tokens}, True
    return "error", "UNKNOWN", {}, {"message": step.message}, False


def _as_chat(role: str, text: str) -> list[dict[str, str]]:
    """One chat message: MLflow shows a trace's request and response from the last user and assistant
    messages of its root span, so this is how the question and the answer become what the list shows."""
    return [{"role": role, "content": text}]


def _answer_text(cell: RepetitionResult) -> str:
    # Never empty: MLflow would show the whole output as JSON instead (the agent span has the exact answer).
    if cell.answer:
        return cell.answer
    return f"(no answer: {cell.error})" if cell.error else "(empty answer)"


@contextmanager
def process_tracking_uri(uri: str) -> Iterator[None]:
    """MLflow's tracer exports to the process-wide tracking URI (and exports it as an environment variable):
    set it for the logging and put back what was there, so nothing leaks into later work in the process."""
    import mlflow

    previous = os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(uri)
    try:
        yield
    finally:
        mlflow.set_tracking_uri(previous)  # type: ignore[arg-type]  # None unsets it, as MLflow's code does


def log_evaluation(result: Result, info: RunInfo, attempts: int = 3) -> MlflowRef:
    """Log the result; on failure retry from scratch (a new run), then give up and say why."""
    error: str = ""
    for attempt in range(attempts):
        try:
            with process_tracking_uri(info.tracking_uri):
                ref = MlflowLogger(info).log(result)
        except Exception as exc:  # the store is unreachable or refuses: retry, then record the failure
            error = f"{type(exc).__name__}: {exc}"[:500]
            time.sleep(min(2.0**attempt, 5.0))
            continue
        if ref.logged:
            return ref
        error = ref.error or "unknown error"
    return MlflowRef(
        tracking_uri=info.tracking_uri, logged=False, error=f"after {attempts} attempts: {error}"
    )


def log_online(result: Result, info: RunInfo, attempts: int = 3) -> MlflowRef:
    """Log an online result's traces; on failure retry, then give up and say why (the verdict stands)."""
    error = ""
    for attempt in range(attempts):
        try:
            with process_tracking_uri(info.tracking_uri):
                return MlflowLogger(info).log_online(result)
        except Exception as exc:  # the store is unreachable or refuses: retry, then record the failure
            error = f"{type(exc).__name__}: {exc}"[:500]
            time.sleep(min(2.0**attempt, 5.0))
    return MlflowRef(
        tracking_uri=info.tracking_uri, logged=False, error=f"after {attempts} attempts: {error}"
    )


def complete_run(result: Result, info: RunInfo) -> None:
    """After the final verdict (which may depend on logging itself): the artifacts and the verdict tags."""
    ref = result.mlflow
    if not ref.logged or ref.run_id is None:
        return
    with process_tracking_uri(info.tracking_uri):
        logger = MlflowLogger(info)
        logger.log_artifacts(ref.run_id)
        logger.finish(ref.run_id, tags_of(result), ok=True)


def summary_params(**values: Any) -> dict[str, str]:
    return {key: str(value) for key, value in values.items() if value is not None}
