"""Read a logged evaluation back from a real store and compare every value with the result it came from:
the run (params, metrics, tags, artifacts), a trace per ticket, and every judge's verdict on every cell."""

from __future__ import annotations

from typing import Any

import pytest

from assay_runner.contract import JudgeVerdict, RepetitionResult, Result
from assay_runner.core.limits import LIMIT_RULES
from mlflow import MlflowClient

# The support-desk example's judges as `params` shows them (suite.yaml, literally).
EXAMPLE_JUDGE_PARAMS = {
    "judge.kb_citation": "kb_citation weight=0.25 threshold=0.9",
    "judge.must_mention": "must_mention weight=0.25 threshold=0.9",
    "judge.policy": "policy weight=0.15 threshold=1 floor=1",
    "judge.format": "format weight=0.15 threshold=0.8",
    "judge.quality": "model weight=0.2 threshold=4",
    "judge.abstention": "abstention weight=0 threshold=1 floor=1",
    "judge.exit_code": "exit_code weight=0 threshold=1",
    "judge.read_before_citing": "trajectory weight=0 threshold=1 floor=1",
    "judge.tool_use": "trajectory weight=0 threshold=1",
}


def preview(text: str) -> str:
    """How MLflow cuts a request or response for the Traces list."""
    return text if len(text) <= 1000 else text[:997] + "..."


def shown_answer(cell: RepetitionResult) -> str:
    if cell.answer:
        return cell.answer
    return f"(no answer: {cell.error})" if cell.error else "(empty answer)"


def expected_metrics(result: Result) -> dict[str, float]:
    from datetime import datetime

    metrics = {"score": result.score}
    for name, judge in result.judges.items():
        if judge.mean is not None:
            metrics[f"judge.{name}.mean"] = judge.mean
        if judge.raw_mean is not None:
            metrics[f"judge.{name}.raw_mean"] = judge.raw_mean
    figures = result.repetitions
    metrics |= {
        "pass_rate": figures.pass_rate,
        "pass_at_k": figures.pass_at_k,
        "pass_hat_k": figures.pass_hat_k,
        "fully_resolved": float(figures.fully_resolved),
        "flaky_tickets": float(len(figures.flaky)),
        "input_tokens": float(result.usage.input_tokens),
        "output_tokens": float(result.usage.output_tokens),
        "cost_usd": result.usage.cost_usd,
    }
    for rule in result.rules:
        if rule.name in LIMIT_RULES and rule.value is not None:
            metrics[f"rule.{rule.name}"] = rule.value
    assert result.started_at and result.finished_at
    started, finished = (datetime.fromisoformat(t) for t in (result.started_at, result.finished_at))
    metrics["duration_seconds"] = (finished - started).total_seconds()
    return metrics


def check_run(uri: str, result: Result, params: dict[str, str]) -> None:
    """The run: FINISHED, named, with exactly these params, the result's metrics and its verdict's tags."""
    client = MlflowClient(tracking_uri=uri)
    assert result.mlflow.logged and result.mlflow.run_id and result.mlflow.tracking_uri == uri
    run = client.get_run(result.mlflow.run_id)
    assert run.info.status == "FINISHED" and run.info.run_name == result.run_name
    assert run.info.experiment_id == result.mlflow.experiment_id
    assert run.data.params == params
    expected = expected_metrics(result)
    assert set(run.data.metrics) == set(expected)
    for key, value in expected.items():
        assert run.data.metrics[key] == pytest.approx(value), key
    tags = run.data.tags
    assert tags["assay.verdict"] == result.verdict and tags["assay.mode"] == "release"
    assert tags["assay.suite"] == result.suite
    assert tags["assay.digest.suite"] == result.inputs.suite_digest
    assert tags["assay.digest.judges"] == result.inputs.judges_digest
    for rule in result.rules:
        outcome = "pass" if rule.passed else "fail"
        assert tags[f"assay.rule.{rule.name}"] == (f"shadow-{outcome}" if rule.shadow else outcome)
    for name, judge in result.judges.items():
        assert tags.get(f"assay.judge.{name}.shadow") == judge.shadow
    flaky = result.repetitions.flaky
    if flaky:
        assert tags["assay.flaky"].startswith(", ".join(flaky[:50]))
    else:
        assert "assay.flaky" not in tags
    artifacts = {a.path for a in client.list_artifacts(result.mlflow.run_id)}
    assert {"result.json", "summary.json", "report.html"} <= artifacts


def run_traces(uri: str, result: Result) -> list[Any]:
    client = MlflowClient(tracking_uri=uri)
    found: list[Any] = []
    token = None
    while True:
        page = client.search_traces(
            locations=[result.mlflow.experiment_id or ""],
            run_id=result.mlflow.run_id,
            max_results=100,
            page_token=token,
        )
        found += page
        token = page.token
        if not token:
            return found


def check_traces(uri: str, result: Result, *, with_key: bool = True) -> None:
    """A trace per ticket, linked to the run; each repetition's spans; every applicable judge's verdict on
    every cell as one feedback, with its value (or error), rationale, source and repetition; the key."""
    traces = run_traces(uri, result) if result.mlflow.run_id else []
    by_ticket = {t.info.tags["assay.ticket"]: t for t in traces}
    assert len(traces) == len(by_ticket) == len(result.tickets)  # one per ticket, none twice
    assert set(by_ticket) == {t.id for t in result.tickets}
    types = {judge.name: judge.type for judge in result.config.judges}
    for ticket in result.tickets:
        trace = by_ticket[ticket.id]
        check_ticket_trace(trace, ticket.id, ticket.question, ticket.repetitions, types)
        assert trace.info.tags["assay.split"] == ticket.split
        root = next(s for s in trace.data.spans if s.parent_id is None)
        assert root.outputs["score"] == pytest.approx(ticket.score)
        assert root.outputs["passed"] == ticket.passed
        expectations = [a for a in trace.info.assessments if a.expectation is not None]
        if with_key:
            assert len(expectations) == 1 and expectations[0].expectation.value == ticket.key
            assert expectations[0].name == "answer_key"
        else:
            assert not expectations


def check_ticket_trace(
    trace: Any,
    ticket_id: str,
    question: str,
    cells: list[RepetitionResult],
    judge_types: dict[str, str],
) -> None:
    info = trace.info
    assert info.tags["mlflow.traceName"] == ticket_id
    assert info.tags["assay.repetitions"] == str(len(cells))
    assert info.state.value == ("ERROR" if any(c.error for c in cells) else "OK")
    # What the Traces list shows: the question and the (last) answer.
    assert info.request_preview == preview(question)
    assert info.response_preview == preview(shown_answer(cells[-1]))
    spans = trace.data.spans
    (root,) = (s for s in spans if s.parent_id is None)
    assert root.name == ticket_id and root.span_type == "CHAIN"
    assert root.inputs == {
        "messages": [{"role": "user", "content": question}],
        "ticket": ticket_id,
        "repetitions": len(cells),
    }
    assert root.outputs["messages"] == [{"role": "assistant", "content": shown_answer(c)} for c in cells]
    repetitions = {s.name: s for s in spans if s.parent_id == root.span_id}
    assert set(repetitions) == {f"repetition {c.index}" for c in cells}
    expected: dict[tuple[int, str], tuple[JudgeVerdict, str]] = {}
    for cell in cells:
        span = repetitions[f"repetition {cell.index}"]
        assert span.outputs == {"score": cell.score, "passed": cell.passed, "error": cell.error}
        assert root.start_time_ns <= span.start_time_ns <= span.end_time_ns <= root.end_time_ns
        children = {s.name: s for s in spans if s.parent_id == span.span_id}
        assert set(children) == {"agent", "judges"}
        agent, judges = children["agent"], children["judges"]
        assert agent.span_type == "AGENT" and judges.span_type == "EVALUATOR"
        assert agent.inputs == {"question": question}
        assert agent.outputs["answer"] == cell.answer and agent.outputs["exitCode"] == cell.exit_code
        assert judges.outputs == {name: verdict.to_wire() for name, verdict in cell.judges.items()}
        for name, verdict in cell.judges.items():
            if verdict.applicable:
                expected[(cell.index, name)] = (verdict, judges.span_id)
    feedback = [a for a in info.assessments if a.feedback is not None]
    got = {(int(a.metadata["repetition"]), a.name): a for a in feedback}
    assert len(got) == len(feedback)  # one per judge and repetition
    assert set(got) == set(expected)  # not-applicable judges get no made-up feedback
    for key, (verdict, span_id) in expected.items():
        assessment = got[key]
        assert assessment.span_id == span_id  # on its repetition's judges span
        assert assessment.metadata["ticket"] == ticket_id
        assert assessment.rationale == (verdict.reason or None)
        assert assessment.source.source_id == key[1]
        model = judge_types[key[1]] == "model"
        assert assessment.source.source_type == ("LLM_JUDGE" if model else "CODE")
        if verdict.error is not None:
            assert assessment.feedback.value is None
            assert assessment.feedback.error.error_message == verdict.error
        else:
            assert assessment.feedback.error is None
            assert assessment.feedback.value == pytest.approx(verdict.score)
        if verdict.samples is not None:
            assert assessment.metadata["samples"] == ",".join(f"{s:g}" for s in verdict.samples)
