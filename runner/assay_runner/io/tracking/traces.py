"""A trace per ticket: what a reviewer opens in MLflow to see how the agent did on one ticket — every
repetition, and every judge's verdict on each (pure: built from the result, written by `writer.py`).

    <ticket id>        CHAIN      in: the question (a user chat message), the ticket, k
                                  out: each repetition's answer (assistant chat messages), the ticket's
                                  score and whether it passed
      repetition <i>   CHAIN      out: the cell's score, whether it passed, its error
        agent          AGENT      in: the question; out: the answer, exit code, transcript tail;
                                  under it one span per step of the agent's trajectory (`steps.py`)
        judges         EVALUATOR  out: every judge's verdict on the cell; the feedback is attached here

A conversational ticket's agent span holds a span per turn, each agent turn's own trajectory nested in it
(`turns.py`); the trace is the ticket's conversation session, each repetition span names its own.

Feedback: one per applicable judge and repetition (`feedback.py`), on its repetition's judges span and
naming the repetition in its metadata; the answer key as an expectation on the trace. What the Traces list
shows as a trace's request and response is the question and the (last) answer, which MLflow reads from
the root span's chat messages. The judges of a cell run side by side and share one time span, so their
verdicts share one span: a span per judge added a span per verdict with nothing the feedback lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay_runner.contract import RepetitionResult, TicketResult
from assay_runner.io.tracking.feedback import answer_key, cell_feedback
from assay_runner.io.tracking.spans import TraceSpans
from assay_runner.io.tracking.steps import add_steps
from assay_runner.io.tracking.turns import SESSION, add_turns, session_id

if TYPE_CHECKING:
    from mlflow.entities import Assessment, Span, TraceInfo

SOURCE_RUN = "mlflow.sourceRun"  # the trace's run, as MLflow's tracer links it (TraceMetadataKey)
SCHEMA_VERSION = {"mlflow.trace_schema.version": "3"}
TRACE_NAME = "mlflow.traceName"


@dataclass(frozen=True)
class TraceContext:
    """What every trace of one logging shares."""

    experiment_id: str
    run_id: str | None
    """The run the traces belong to (None: online traces, which have no run)."""
    judge_types: Mapping[str, str]
    tags: Mapping[str, str]
    """Tags every trace carries besides its own (online: the mode, the suite, the verdict)."""
    with_key: bool
    """Whether the answer key goes along as an expectation (an online answer has none)."""
    now: float
    """Where a cell with no start time of its own is placed (seconds since the epoch)."""


@dataclass(frozen=True)
class TraceRecord:
    info: TraceInfo
    spans: list[Span]
    size: int
    """Bytes of the spans' contents."""


@dataclass(frozen=True)
class _Times:
    start: float
    agent_end: float
    end: float


def _times(cell: RepetitionResult, now: float) -> _Times:
    start = cell.started_at if cell.started_at is not None else now
    agent_end = start + (cell.wall_seconds or 0.0)
    return _Times(start, agent_end, agent_end + (cell.judge_seconds or 0.0))


def ticket_trace(ticket: TicketResult, context: TraceContext) -> TraceRecord:
    """The ticket's trace: its spans, its feedback and its answer key."""
    from mlflow.entities import TraceInfo, TraceLocation, TraceState

    spans = TraceSpans()
    times = [_times(cell, context.now) for cell in ticket.repetitions]
    start = min((t.start for t in times), default=context.now)
    end = max((t.end for t in times), default=start)
    failed = any(cell.error for cell in ticket.repetitions)
    root = spans.add(
        ticket.id,
        "CHAIN",
        parent=None,
        start=start,
        end=end,
        inputs={
            "messages": [_chat("user", ticket.question)],
            "ticket": ticket.id,
            "repetitions": len(ticket.repetitions),
        },
        outputs={
            "messages": [_chat("assistant", _answer_text(cell)) for cell in ticket.repetitions],
            "score": ticket.score,
            "passed": ticket.passed,
        },
        ok=not failed,
    )
    assessments: list[Assessment] = []
    for cell, cell_times in zip(ticket.repetitions, times, strict=True):
        assessments += _add_cell(spans, root, ticket, cell, cell_times, context)
    if context.with_key and (key := answer_key(ticket.key)) is not None:
        assessments.append(key)
    metadata = dict(SCHEMA_VERSION)
    if context.run_id is not None:
        metadata[SOURCE_RUN] = context.run_id
    if any(cell.conversation is not None for cell in ticket.repetitions):
        metadata[SESSION] = session_id(context.run_id, ticket.id)
    info = TraceInfo(
        trace_id=spans.trace_id,
        trace_location=TraceLocation.from_experiment_id(context.experiment_id),
        request_time=int(start * 1000),
        execution_duration=int((end - start) * 1000),
        state=TraceState.ERROR if failed else TraceState.OK,
        trace_metadata=metadata,
        tags={
            TRACE_NAME: ticket.id,
            "assay.ticket": ticket.id,
            "assay.split": ticket.split,
            "assay.repetitions": str(len(ticket.repetitions)),
            **context.tags,
        },
        assessments=assessments,
    )
    return TraceRecord(info=info, spans=spans.spans, size=spans.size)


def _add_cell(
    spans: TraceSpans,
    root: str,
    ticket: TicketResult,
    cell: RepetitionResult,
    times: _Times,
    context: TraceContext,
) -> list[Assessment]:
    """The repetition's spans under the root; returns its feedback."""
    repetition = spans.add(
        f"repetition {cell.index}",
        "CHAIN",
        parent=root,
        start=times.start,
        end=times.end,
        inputs={"ticket": ticket.id, "repetition": cell.index},
        outputs={"score": cell.score, "passed": cell.passed, "error": cell.error},
        ok=cell.error is None,
        attributes={}
        if cell.conversation is None
        else {"assay.session": session_id(context.run_id, ticket.id, cell.index)},
    )
    agent = spans.add(
        "agent",
        "AGENT",
        parent=repetition,
        start=times.start,
        end=times.agent_end,
        inputs={"question": ticket.question},
        outputs={"answer": cell.answer, "exitCode": cell.exit_code, "transcriptTail": cell.transcript},
        ok=cell.error is None and cell.exit_code in (0, None),
    )
    steps_under: str | None = agent
    if cell.conversation is not None:
        last_turn = add_turns(spans, agent, cell.conversation, times.start, times.agent_end)
        # Each turn's own steps went under its turn; a record without them has the joined under the last.
        per_turn = any(turn.trajectory is not None for turn in cell.conversation.turns)
        steps_under = None if per_turn else last_turn or agent
    if cell.trajectory is not None and steps_under is not None:
        add_steps(spans, steps_under, cell.trajectory, times.start, times.agent_end)
    verdicts: dict[str, Any] = {name: verdict.to_wire() for name, verdict in cell.judges.items()}
    judges = spans.add(
        "judges",
        "EVALUATOR",
        parent=repetition,
        start=times.agent_end,
        end=times.end,
        inputs={"judges": list(cell.judges)},
        outputs=verdicts,
        ok=not any(verdict.error for verdict in cell.judges.values()),
    )
    return list(cell_feedback(ticket.id, cell, context.judge_types, judges))


def _chat(role: str, text: str) -> dict[str, str]:
    """A chat message: MLflow shows a trace's request and response from the last user and assistant
    messages of its root span, so this is how the question and the answer become what the list shows."""
    return {"role": role, "content": text}


def _answer_text(cell: RepetitionResult) -> str:
    # Never empty: MLflow would show the whole output as JSON instead (the agent span has the exact answer).
    if cell.answer:
        return cell.answer
    return f"(no answer: {cell.error})" if cell.error else "(empty answer)"
