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
from assay_runner.contract import ConversationRecord, ConversationTurn, ModelTurn, ToolCall, Trajectory
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
    RecordStep(tmp_path, EvidenceKey.new(), "sha256:inputs").write("T-1", 1, answered)
    cells, _ = read_cells(tmp_path, "s", ["T-1"], 1, ["T-1"], sealed=False)
    assert cells[("T-1", 1)].trajectory == READ_BOTH
    assert cells[("T-1", 1)].answer == ANSWER


def conversation(*agent_turns: tuple[str, Trajectory | None]) -> ConversationRecord:
    """The customer and the agent in turn: each agent turn's text and its own trajectory."""
    turns = [ConversationTurn(index=0, speaker="customer", text="Sync stopped.")]
    for index, (text, trajectory) in enumerate(agent_turns):
        if index:
            turns.append(ConversationTurn(index=index, speaker="customer", text="It did not work."))
        turns.append(ConversationTurn(index=index, speaker="agent", text=text, trajectory=trajectory))
    return ConversationRecord(turns=turns, turn_limit=3, ended="answered")


def run_conversation(
    j: TrajectoryChecks, record: ConversationRecord, whole: Trajectory | None = None
) -> tuple[float | None, str]:
    """`whole`: the cell's trajectory (default: every turn's steps joined, as the loop joins them)."""
    if whole is None:
        whole = traj(*(step for turn in record.turns if turn.trajectory for step in turn.trajectory.steps))
    last = [turn.text for turn in record.turns if turn.speaker == "agent"][-1]
    verdict = j.judge(dataclasses.replace(case(last), trajectory=whole, conversation=record))
    return verdict.score, verdict.reason


def test_reads_spread_over_turns_count_for_the_final_answer() -> None:
    record = conversation(
        ("Which device is it?", traj(ModelTurn(text="asking"), call("read", "kb/KB-1001.md"))),
        (ANSWER, traj(call("read", "kb/KB-1002.md"), call("read", "kb/KB-9.md", ok=False), ModelTurn())),
    )
    score, reason = run_conversation(judge(citedArticlesRead=True, maxFailedToolCalls=1), record)
    assert score == 1.0
    assert reason == (
        "read every article it cites (KB-1001, KB-1002); 1 failed tool call(s) (tool), at most 1"
        " | per turn: turn 0: 1 model turn(s); 1 tool call(s), 0 failed; read KB-1001"
        " | turn 1: 1 model turn(s); 2 tool call(s), 1 failed (tool); read KB-1002"
    )


def test_an_article_read_only_after_the_turn_citing_it_does_not_count() -> None:
    # Turn 0 answers citing KB-1001 unread (a guess); turn 1 reads it and answers again: the whole
    # conversation read it, but not before it was cited.
    record = conversation(
        ("Try Settings > Export [KB-1001].", traj(ModelTurn())),
        ("Export from Settings > Export [KB-1001].", traj(call("read", "kb/KB-1001.md"), ModelTurn())),
    )
    score, reason = run_conversation(judge(citedArticlesRead=True), record)
    assert score == 0.0
    assert reason.startswith("turn 0 cites KB-1001, read only in turn 1 | per turn: turn 0:")
    # Read in the turn that cites it, or before: it counts.
    in_time = conversation(
        ("Try Settings > Export [KB-1001].", traj(call("read", "kb/KB-1001.md"))),
        ("Export from Settings > Export [KB-1001].", traj(ModelTurn())),
    )
    assert run_conversation(judge(citedArticlesRead=True), in_time)[0] == 1.0
    # The whole's own check still decides: an article no turn read fails, whatever the turns say.
    never = conversation(
        ("Which device?", traj()), ("Export [KB-1002].", traj(call("read", "kb/KB-1001.md")))
    )
    assert run_conversation(judge(citedArticlesRead=True), never)[1].startswith(
        "cites KB-1002 without having read it | per turn:"
    )


def test_a_read_the_proxy_alone_saw_is_left_to_the_whole() -> None:
    # `cat kb/*.md` in turn 1: no step names the article, the proxy saw it reach the model: no turn to
    # place it in, so the per-turn rule has nothing to say and the whole's witnessed read decides.
    record = conversation(("Which device?", traj()), (ANSWER, traj(call("shell", tool="exec_command"))))
    whole = traj(call("shell", tool="exec_command")).model_copy(
        update={"articles_read": ["KB-1001", "KB-1002"], "model_calls": 2}
    )
    assert run_conversation(judge(citedArticlesRead=True), record, whole)[0] == 1.0


def test_a_conversation_without_turn_trajectories_is_judged_on_the_whole_alone() -> None:
    # A record from before turns kept their own (or a turn with no steps told): no breakdown, as before.
    record = conversation(("Which device?", None), (ANSWER, None))
    score, reason = run_conversation(judge(citedArticlesRead=True), record, READ_BOTH)
    assert (score, reason) == (1.0, "read every article it cites (KB-1001, KB-1002)")
