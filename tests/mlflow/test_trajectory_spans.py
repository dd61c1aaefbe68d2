"""Each cell's trajectory logged to a real MLflow store as spans under the ticket's trace: one per step, of
the step's kind (LLM, TOOL), at the step's time inside the agent span, with the tool's arguments and result.
The trajectories are the real outputs of the three pinned CLIs (tests/data/trajectories), kept with the
example's answers in an answers tree and judged by `assay score`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from assay_runner.agents.trajectory import claude_code, codex, opencode
from assay_runner.cli import main
from assay_runner.contract import Result, ToolCall, Trajectory
from mlflow import MlflowClient

pytestmark = pytest.mark.mlflow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support-desk"
DATA = ROOT / "tests" / "data" / "trajectories"
PARSERS = {"opencode": opencode.parse, "claude-code": claude_code.parse, "codex": codex.parse}
TICKETS = {"T-001": "opencode", "T-002": "claude-code", "T-003": "codex"}


def real_trajectory(agent: str) -> Trajectory:
    data = json.loads((DATA / f"{agent}.json").read_text())
    stdout = data["stdout"]
    found = PARSERS[agent](
        stdout, [round(0.05 * i, 3) for i in range(len(stdout.splitlines()))], data["root"]
    )
    assert found is not None
    return found


def test_each_step_is_a_span_under_the_agent(tmp_path: Path) -> None:
    tree = tmp_path / "answers"
    shutil.copytree(EXAMPLE / "answers" / "v1", tree)
    for ticket, agent in TICKETS.items():
        (tree / ticket / "trajectory.json").write_text(real_trajectory(agent).to_json())
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    code = main(
        [
            *("score", str(EXAMPLE), "--answers", str(tree), "--judge-model", "example-judge"),
            *("--cassettes", str(EXAMPLE / "cassettes"), "--out", str(tmp_path / "out"), "-q"),
            *("--mlflow", uri, "--experiment", "trajectories"),
        ]
    )
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    assert code in (0, 1) and result.mlflow.logged, result.mlflow.error
    traces = MlflowClient(tracking_uri=uri).search_traces(
        experiment_ids=[result.mlflow.experiment_id or ""], run_id=result.mlflow.run_id, max_results=100
    )
    by_ticket = {t.info.tags["assay.ticket"]: t for t in traces}
    for ticket_id, agent in TICKETS.items():
        trajectory = next(t for t in result.tickets if t.id == ticket_id).repetitions[0].trajectory
        assert trajectory is not None and trajectory.agent == agent
        spans = by_ticket[ticket_id].data.spans
        parent = next(s for s in spans if s.name == "agent")
        steps = sorted((s for s in spans if s.parent_id == parent.span_id), key=lambda s: s.name)
        assert [s.name.split(" ", 1)[1] for s in steps] == [
            f"tool:{step.tool}" if isinstance(step, ToolCall) else step.type for step in trajectory.steps
        ]
        for span, step in zip(steps, trajectory.steps, strict=True):
            assert parent.start_time_ns <= span.start_time_ns <= span.end_time_ns <= parent.end_time_ns
            if isinstance(step, ToolCall):
                assert span.span_type == "TOOL"
                assert span.inputs["arguments"] == step.arguments and span.outputs["result"] == step.result
            elif step.type == "model":
                assert span.span_type == "LLM"
        reads = [s for s in steps if s.inputs and s.inputs.get("action") == "read"]
        assert len(reads) == 1 and "ZX-" in reads[0].outputs["result"]
    # A cell with no trajectory (replayed answers) has the agent span alone.
    plain = by_ticket["T-004"].data.spans
    agent_span = next(s for s in plain if s.name == "agent")
    assert not [s for s in plain if s.parent_id == agent_span.span_id]
