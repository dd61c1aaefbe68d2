"""A ticket's MLflow trace built in memory (the tree, times, feedback and key), and the writer's batches
against a recording client: every trace created before its spans are sent, failures raised, never dropped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from assay_runner.contract import (
    JudgeVerdict,
    ModelTurn,
    RepetitionResult,
    TicketResult,
    ToolCall,
    Trajectory,
)
from assay_runner.io.tracking import writer as writer_module
from assay_runner.io.tracking.traces import TraceContext, TraceRecord, ticket_trace
from assay_runner.io.tracking.writer import TraceWriter
from tests.unit.builders import na, v

T0 = 1_800_000_000.0


def cell(index: int, **fields: Any) -> RepetitionResult:
    defaults: dict[str, Any] = {
        "index": index,
        "score": 1.0,
        "passed": True,
        "exit_code": 0,
        "answer": f"answer {index}",
        "started_at": T0 + 10 * index,
        "wall_seconds": 4.0,
        "judge_seconds": 1.0,
        "judges": {"policy": v(1.0), "quality": v(0.75), "abstention": na()},
    }
    return RepetitionResult.model_validate({**defaults, **fields})


def ticket(*cells: RepetitionResult) -> TicketResult:
    return TicketResult(
        id="T-1",
        split="validation",
        score=0.5,
        passed=False,
        question="How do I export?",
        key={"kb": ["KB-1"]},
        repetitions=list(cells),
    )


CONTEXT = TraceContext(
    experiment_id="7",
    run_id="run-1",
    judge_types={"policy": "policy", "quality": "model", "abstention": "abstention"},
    tags={},
    with_key=True,
    now=T0,
)


def test_a_ticket_is_one_trace_with_a_span_per_repetition() -> None:
    steps = Trajectory(
        agent="opencode",
        steps=[ModelTurn(text="plan", start=0.5, end=1.0), ToolCall(tool="read", action="read", start=9.0)],
    )
    failed = cell(
        2, score=0.0, passed=False, error="agent crashed", judges={"policy": JudgeVerdict(error="x")}
    )
    record = ticket_trace(ticket(cell(1, trajectory=steps), failed), CONTEXT)
    spans = {s.name: s for s in record.spans}
    root = spans["T-1"]
    assert root.parent_id is None and root.inputs["repetitions"] == 2
    assert root.outputs == {
        "messages": [
            {"role": "assistant", "content": "answer 1"},
            {"role": "assistant", "content": "answer 2"},
        ],
        "score": 0.5,
        "passed": False,
    }
    first, second = spans["repetition 1"], spans["repetition 2"]
    assert first.parent_id == second.parent_id == root.span_id
    assert second.status.status_code == "ERROR" and second.outputs["error"] == "agent crashed"
    # Repetition 1: agent 4 s from its start, judges the next second; steps inside the agent's span, a step
    # past its end clamped to it.
    agent = next(s for s in record.spans if s.name == "agent" and s.parent_id == first.span_id)
    judges = next(s for s in record.spans if s.name == "judges" and s.parent_id == first.span_id)
    assert (agent.start_time_ns, agent.end_time_ns) == (int((T0 + 10) * 1e9), int((T0 + 14) * 1e9))
    assert (judges.start_time_ns, judges.end_time_ns) == (int((T0 + 14) * 1e9), int((T0 + 15) * 1e9))
    model, tool = sorted((s for s in record.spans if s.parent_id == agent.span_id), key=lambda s: s.name)
    assert (model.name, model.span_type) == ("001 model", "LLM") and tool.span_type == "TOOL"
    assert tool.start_time_ns == tool.end_time_ns == agent.end_time_ns
    assert judges.outputs["quality"] == {
        **JudgeVerdict(score=0.75, reason="r").to_wire(),
    }
    info = record.info
    assert info.trace_id == root.trace_id and info.state.value == "ERROR"
    assert info.trace_metadata["mlflow.sourceRun"] == "run-1"
    assert info.tags["assay.repetitions"] == "2" and info.tags["mlflow.traceName"] == "T-1"
    assert info.request_time == int((T0 + 10) * 1000) and info.execution_duration == 15_000


def test_each_applicable_verdict_is_feedback_on_its_repetitions_judges_span() -> None:
    failed = cell(2, judges={"policy": JudgeVerdict(error="policy crashed"), "abstention": na()})
    record = ticket_trace(ticket(cell(1), failed), CONTEXT)
    judges_span = {s.parent_id: s.span_id for s in record.spans if s.name == "judges"}
    repetition_span = {s.name: s.span_id for s in record.spans if s.name.startswith("repetition")}
    feedback = {
        (a.metadata["repetition"], a.name): a for a in record.info.assessments if a.name != "answer_key"
    }
    assert set(feedback) == {("1", "policy"), ("1", "quality"), ("2", "policy")}  # no made-up n/a value
    for (rep, _), assessment in feedback.items():
        assert assessment.span_id == judges_span[repetition_span[f"repetition {rep}"]]
    assert feedback[("1", "quality")].source.source_type == "LLM_JUDGE"
    assert feedback[("1", "quality")].value == 0.75
    assert feedback[("2", "policy")].feedback.error.error_message == "policy crashed"
    (key,) = (a for a in record.info.assessments if a.name == "answer_key")
    assert key.expectation.value == {"kb": ["KB-1"]}


def test_an_online_trace_has_no_run_and_no_key() -> None:
    online = TraceContext(
        experiment_id="7", run_id=None, judge_types={}, tags={"assay.mode": "online"}, with_key=False, now=T0
    )
    record = ticket_trace(ticket(cell(1, started_at=None)), online)
    assert "mlflow.sourceRun" not in record.info.trace_metadata
    assert record.info.tags["assay.mode"] == "online"
    assert not [a for a in record.info.assessments if a.name == "answer_key"]
    assert record.info.request_time == int(T0 * 1000)  # no start time of its own: placed at `now`


@dataclass
class RecordingClient:
    """A stand-in for MLflow's TracingClient: what was called, in order; `refuse` names a trace to fail."""

    calls: list[tuple[str, Any]] = field(default_factory=list)
    refuse: str | None = None

    def start_trace(self, info: Any) -> Any:
        if info.trace_id == self.refuse:
            raise RuntimeError(f"store refused {info.trace_id}")
        self.calls.append(("trace", info.trace_id))
        return info

    def log_spans(self, location: str, spans: list[Any]) -> list[Any]:
        self.calls.append(("spans", sorted({s.trace_id for s in spans})))
        return spans


def records(count: int) -> list[TraceRecord]:
    return [ticket_trace(ticket(cell(1)).model_copy(update={"id": f"T-{i}"}), CONTEXT) for i in range(count)]


@pytest.mark.parametrize("in_flight", [1, 4])
def test_spans_go_in_batches_after_their_traces(in_flight: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer_module, "MAX_BATCH_SPANS", 8)  # 4 spans a trace: two traces a batch
    client = RecordingClient()
    made = records(5)
    with TraceWriter(client, "7", in_flight=in_flight) as writer:  # type: ignore[arg-type]
        for record in made:
            writer.add(record)
        writer.flush()
    ids = [r.info.trace_id for r in made]
    batches = [sorted(ids[0:2]), sorted(ids[2:4]), sorted(ids[4:5])]
    assert [c for c in client.calls if c[0] == "spans"] == [("spans", b) for b in batches]
    for kind, what in client.calls:
        if kind == "spans":  # every trace of a batch was created before the batch was sent
            created = [c[1] for c in client.calls[: client.calls.index((kind, what))] if c[0] == "trace"]
            assert set(what) <= set(created)
    assert writer.traces == 5


def test_a_batch_is_also_capped_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    made = records(3)
    monkeypatch.setattr(writer_module, "MAX_BATCH_BYTES", made[0].size)  # every trace fills a batch
    client = RecordingClient()
    with TraceWriter(client, "7") as writer:  # type: ignore[arg-type]
        for record in made:
            writer.add(record)
        writer.flush()
    assert [c[1] for c in client.calls if c[0] == "spans"] == [[r.info.trace_id] for r in made]


@pytest.mark.parametrize("in_flight", [1, 4])
def test_a_refused_trace_raises_and_its_batch_is_not_sent(in_flight: int) -> None:
    made = records(3)
    client = RecordingClient(refuse=made[1].info.trace_id)
    writer = TraceWriter(client, "7", in_flight=in_flight)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="store refused"), writer:
        for record in made:
            writer.add(record)
        writer.flush()
    assert not [c for c in client.calls if c[0] == "spans"]
