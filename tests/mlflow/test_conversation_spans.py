"""A conversational ticket logged to a real MLflow store: one trace for the ticket, a span per turn under the
agent span (the agent's and the customer's apart, each with what it asked for or revealed and its tokens),
each agent turn's own trajectory nested in its turn, and the conversation's session id on the trace
(MLflow's `mlflow.trace.session`) and its repetition."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer
from assay_runner.io.tracking.publish import log_evaluation
from assay_runner.io.tracking.settings import RunInfo
from mlflow import MlflowClient
from tests.support.conversations import (
    ANSWER,
    ASKING,
    QUESTION,
    ROUTER_SAYS,
    agent_script,
    brain,
    conversation_suite,
    model_customer,
    run_conversation,
    with_turn_steps,
)

pytestmark = pytest.mark.mlflow


def test_one_trace_per_ticket_a_span_per_turn_and_a_session(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    suite = conversation_suite(tmp_path / "suite", played_by="model")
    with ChatServer(agent_script(asks=True, customer=model_customer)) as server:
        code, result = run_conversation(
            suite,
            brain(tmp_path / "brain"),
            tmp_path / "out",
            *("--gateway", server.url, "--repetitions", "2"),
            *("--mlflow", uri, "--experiment", "conversations"),
            mlflow=True,
        )
    assert code == 0, result.reasons
    assert result.mlflow.logged, result.mlflow.error
    cost = result.conversations
    assert cost is not None and cost.turns == 4  # two repetitions of two agent turns
    metrics = MlflowClient(tracking_uri=uri).get_run(result.mlflow.run_id or "").data.metrics
    assert metrics["conversation.turns"] == 4
    assert metrics["conversation.customer.input_tokens"] == cost.customer.input_tokens == 60
    assert metrics["conversation.agent.cost_usd"] == cost.agent.cost_usd
    traces = MlflowClient(tracking_uri=uri).search_traces(
        experiment_ids=[result.mlflow.experiment_id or ""], run_id=result.mlflow.run_id, max_results=10
    )
    assert [t.info.tags["assay.ticket"] for t in traces] == ["ASK-1"]  # one trace for the ticket
    [trace] = traces
    assert trace.info.trace_metadata["mlflow.trace.session"] == f"{result.mlflow.run_id}/ASK-1"
    spans = trace.data.spans
    repetitions = sorted((s for s in spans if s.name.startswith("repetition ")), key=lambda s: s.name)
    assert [s.attributes["assay.session"] for s in repetitions] == [
        f"{result.mlflow.run_id}/ASK-1/{n}" for n in (1, 2)
    ]
    for repetition in repetitions:
        agent = next(s for s in spans if s.name == "agent" and s.parent_id == repetition.span_id)
        turns = sorted(
            (s for s in spans if s.parent_id == agent.span_id), key=lambda s: (s.start_time_ns, s.name)
        )
        assert [s.name for s in turns] == ["turn 0", "customer 1", "turn 1"]
        first, customer, last = turns
        assert first.span_type == "AGENT" and first.inputs["message"] == QUESTION
        assert first.outputs["reply"] == ASKING and first.outputs["asked"] == ["router"]
        assert first.outputs["usage"]["inputTokens"] == 200
        assert customer.outputs["reply"] == ROUTER_SAYS and customer.outputs["revealed"] == ["router"]
        assert customer.inputs["by"] == "judge-m" and customer.outputs["usage"]["inputTokens"] == 30
        assert last.inputs["message"] == ROUTER_SAYS and last.outputs["reply"] == ANSWER
        for span in turns:
            assert agent.start_time_ns <= span.start_time_ns <= span.end_time_ns <= agent.end_time_ns


def test_each_turns_trajectory_is_nested_in_its_own_turn(tmp_path: Path) -> None:
    # The chat agent keeps no trajectory: its real run's result gets one per agent turn, as a CLI's run
    # records them (`ConversationTurn.trajectory`), and is logged to a real store by the runner's writer.
    suite = conversation_suite(tmp_path / "suite")
    with ChatServer(agent_script(asks=True)) as server:
        code, result = run_conversation(
            suite, brain(tmp_path / "brain"), tmp_path / "out", "--gateway", server.url
        )
    assert code == 0, result.reasons
    result = with_turn_steps(result, ["KB-1", "KB-2"])
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    ref = log_evaluation(result, RunInfo(tracking_uri=uri, experiment="turn-steps"), attempts=1)
    assert ref.logged, ref.error
    [trace] = MlflowClient(tracking_uri=uri).search_traces(
        experiment_ids=[ref.experiment_id or ""], run_id=ref.run_id, max_results=10
    )
    spans = trace.data.spans
    agent = next(s for s in spans if s.name == "agent")
    by_name = {s.name: s for s in spans if s.parent_id == agent.span_id}
    assert sorted(by_name) == ["customer 1", "turn 0", "turn 1"]  # no step directly under the agent
    for name, read in (("turn 0", "KB-1"), ("turn 1", "KB-2")):
        turn = by_name[name]
        steps = sorted((s for s in spans if s.parent_id == turn.span_id), key=lambda s: s.name)
        assert [s.name for s in steps] == ["001 model", "002 tool:read"]
        assert steps[1].span_type == "TOOL" and steps[1].outputs["result"] == read
        for step in steps:
            assert turn.start_time_ns <= step.start_time_ns <= step.end_time_ns <= turn.end_time_ns
    assert not [s for s in spans if s.parent_id == by_name["customer 1"].span_id]
