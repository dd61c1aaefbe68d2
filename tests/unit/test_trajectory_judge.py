"""The trajectory judge: each check on trajectories made to pass or break it, not applicable without one,
fail closed on steps it could not see; and the trajectory kept with the cell (answers tree, replay)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from assay_runner.agents.replay import ReplayAgent
from assay_runner.contract import ModelTurn, ToolCall, Trajectory
from assay_runner.errors import InputError
from assay_runner.io import answers
from assay_runner.judges.trajectory import TrajectoryChecks, articles_read
from assay_runner.suite.models import TrajectoryJudge
from tests.unit.builders import case, ticket

KB = ["KB-1001", "KB-1002", "KB-2001"]
ANSWER = "## Summary\nExport from Settings > Export [KB-1001], see also KB-1002.\n"


def judge(**checks: Any) -> TrajectoryChecks:
    spec = TrajectoryJudge.model_validate(
        {"name": "t", "type": "trajectory", "weight": 0, "threshold": 1, **checks}
    )
    return TrajectoryChecks(spec, KB)


def call(action: str, *paths: str, ok: bool = True, tool: str = "tool") -> ToolCall:
    return ToolCall(tool=tool, action=action, paths=list(paths), ok=ok)  # type: ignore[arg-type]


def traj(*steps: ToolCall | ModelTurn, dropped: int = 0) -> Trajectory:
    return Trajectory(agent="test", steps=list(steps), dropped_steps=dropped)


def run(
    j: TrajectoryChecks, trajectory: Trajectory | None, answer: str = ANSWER
) -> tuple[float | None, str, bool]:
    verdict = j.judge(dataclasses.replace(case(answer), trajectory=trajectory))
    return verdict.score, verdict.reason, verdict.applicable


READ_BOTH = traj(
    call("list", "kb"),
    call("read", "kb/KB-1001.md"),
    call("read", "kb/kb-1002.md"),
    call("write", "answer.md"),
)


def test_no_trajectory_is_not_applicable_never_a_pass() -> None:
    assert run(judge(citedArticlesRead=True), None) == (
        None,
        "this agent kept no trajectory (its transcript tells no steps)",
        False,
    )


def test_every_cited_article_must_have_been_read() -> None:
    assert run(judge(citedArticlesRead=True), READ_BOTH)[0] == 1.0
    only_one = traj(call("read", "kb/KB-1001.md"), call("search", "kb"))
    assert run(judge(citedArticlesRead=True), only_one)[:2] == (0.0, "cites KB-1002 without having read it")
    failed_read = traj(call("read", "kb/KB-1001.md"), call("read", "kb/KB-1002.md", ok=False))
    assert run(judge(citedArticlesRead=True), failed_read)[0] == 0.0
    # A file of that name outside kb/ is not the article.
    elsewhere = traj(call("read", "kb/KB-1001.md"), call("read", "notes/KB-1002.md"))
    assert run(judge(citedArticlesRead=True), elsewhere)[0] == 0.0
    # Citing nothing, nothing needs reading.
    assert run(judge(citedArticlesRead=True), traj(), answer="No article applies.")[0] == 1.0


def test_tools_outside_the_allowed_kinds_fail() -> None:
    allowed = judge(allowedTools=["list", "read", "write"])
    assert run(allowed, READ_BOTH)[:2] == (1.0, "only allowed tools")
    shell = traj(*READ_BOTH.steps, call("shell", tool="exec_command"))
    score, reason, _ = run(allowed, shell)
    assert score == 0.0 and "exec_command (shell)" in reason


def test_tool_call_bounds() -> None:
    assert run(judge(maxToolCalls=4), READ_BOTH)[0] == 1.0
    assert run(judge(maxToolCalls=3), READ_BOTH)[:2] == (0.0, "4 tool call(s), at most 3")
    failing = traj(call("read", "kb/x.md", ok=False), call("read", "kb/y.md", ok=False))
    assert run(judge(maxFailedToolCalls=1), failing)[0] == 0.0
    assert run(judge(maxFailedToolCalls=2), failing)[0] == 1.0


def test_the_score_is_the_share_of_checks_that_hold() -> None:
    two = judge(citedArticlesRead=True, maxToolCalls=1)
    score, reason, _ = run(two, READ_BOTH)
    assert score == 0.5 and reason == "4 tool call(s), at most 1"


def test_steps_not_kept_fail_closed() -> None:
    cut = traj(*READ_BOTH.steps, dropped=3)
    assert run(judge(maxToolCalls=5), cut)[0] == 0.0
    assert run(judge(allowedTools=["list", "read", "write"]), cut)[0] == 0.0
    assert run(judge(citedArticlesRead=True), cut)[0] == 1.0  # what was read was seen


def test_a_judge_without_a_check_is_refused() -> None:
    with pytest.raises(ValidationError, match="give at least one check"):
        judge()
    with pytest.raises(ValidationError):
        judge(allowedTools=["teleport"])


def test_articles_read_by_shell_commands_count() -> None:
    trajectory = traj(
        call("read", "kb/KB-2001.md", tool="command_execution"),
        call("search", "kb/KB-1001.md", tool="command_execution"),
    )
    assert articles_read(trajectory) == {"KB-2001"}


def test_the_trajectory_is_kept_with_the_cell_and_replayed(tmp_path: Path) -> None:
    record = answers.CellRecord(exit_code=0)
    answers.write_cell(tmp_path, "T-1", 1, answer=ANSWER, transcript="t", record=record, trajectory=READ_BOTH)
    cell = answers.read_cell(tmp_path, "T-1", 1, 1)
    assert cell.trajectory == READ_BOTH
    assert "trajectory.json" not in cell.files  # not a file the agent left for code judges
    replayed = asyncio.run(ReplayAgent(tmp_path, 1).run(ticket(), 1, None))  # type: ignore[arg-type]
    assert replayed.trajectory == READ_BOTH
    (tmp_path / "T-1" / "1" / "trajectory.json").write_text('{"agent": "x", "steps": [{"type": "teleport"}]}')
    with pytest.raises(InputError, match="not a trajectory"):
        answers.read_cell(tmp_path, "T-1", 1, 1)


def test_the_record_step_keeps_the_trajectory_for_the_judge_phase(tmp_path: Path) -> None:
    """answer phase -> answers tree -> judge phase: the trajectory crosses with the cell (run.record_step,
    run.recorded), as the answer, transcript and usage do."""
    from assay_runner.core.evidence import EvidenceKey
    from assay_runner.run.cell import Answered
    from assay_runner.run.record_step import RecordStep
    from assay_runner.run.recorded import read_cells

    answered = Answered(answer=ANSWER, exit_code=0, transcript="t", trajectory=READ_BOTH)
    RecordStep(tmp_path, EvidenceKey.new()).write("T-1", 1, answered)
    cells, _ = read_cells(tmp_path, "s", ["T-1"], 1, ["T-1"], sealed=False)
    assert cells[("T-1", 1)].trajectory == READ_BOTH
    assert cells[("T-1", 1)].answer == ANSWER
