"""A conversational cell's turns as spans, under its agent span (pure, like `traces.py`):

    agent                AGENT   the whole conversation: the question in, the final answer out
      turn <i>           AGENT   the message the agent was given in, its reply out, what it asked for and
                                 its tokens; under it the turn's own trajectory (a CLI's steps, `steps.py`)
      customer <i>       CHAIN   the customer's reply: what it revealed, its tokens (a model customer's)

The turns are laid end to end from the cell's start by each agent turn's own time (a customer's reply is
instant on this clock: its call is not timed). Each conversation is an MLflow session: the trace carries the
ticket's (`session_id`), each repetition span its own conversation's. A record from before each turn kept
its own trajectory has the cell's (every turn's joined) under its last turn instead (`traces.py`).
"""

from __future__ import annotations

from assay_runner.contract import ConversationRecord, ConversationTurn
from assay_runner.io.tracking.spans import TraceSpans
from assay_runner.io.tracking.steps import add_steps

SESSION = "mlflow.trace.session"
"""The trace metadata key MLflow groups a session's traces by (`TraceMetadataKey.TRACE_SESSION`)."""


def session_id(run_id: str | None, ticket: str, repetition: int | None = None) -> str:
    """A conversation's session: the run's (online: none) ticket, and the repetition when given."""
    base = f"{run_id or 'online'}/{ticket}"
    return base if repetition is None else f"{base}/{repetition}"


def add_turns(
    spans: TraceSpans, parent: str, record: ConversationRecord, start: float, end: float
) -> str | None:
    """One span per turn, in order; returns the last agent turn's span (where a record
    whose turns kept no trajectory of their own has the cell's, `traces.py`)."""
    clock, last = start, None
    message = ""
    for turn in record.turns:
        if turn.speaker == "customer":
            if turn.index > 0:
                spans.add(
                    f"customer {turn.index}",
                    "CHAIN",
                    parent=parent,
                    start=clock,
                    end=clock,
                    inputs={"turn": turn.index, "by": record.customer_model or record.customer},
                    outputs={"reply": turn.text, "revealed": turn.revealed, "usage": _usage(turn)},
                )
            message = turn.text
            continue
        finish = min(end, clock + (turn.wall_seconds or 0.0))
        last = span = spans.add(
            f"turn {turn.index}",
            "AGENT",
            parent=parent,
            start=clock,
            end=finish,
            inputs={"turn": turn.index, "message": message},
            outputs={"reply": turn.text, "asked": turn.asked, "usage": _usage(turn)},
        )
        if turn.trajectory is not None:  # its steps are on the turn's own clock
            add_steps(spans, span, turn.trajectory, clock, finish)
        clock = finish
    return last


def _usage(turn: ConversationTurn) -> dict[str, object] | None:
    return None if turn.usage is None else turn.usage.to_wire()
