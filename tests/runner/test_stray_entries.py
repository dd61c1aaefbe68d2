"""An entry no cell owns in an answer phase's tree (a link or a folder an agent left at its root or in a
ticket's folder) is the agents' doing, not a typo: every cell is still judged, and the run blocks naming
the shard and the entries. A hand-made tree (no manifest) with a folder for no ticket stays bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay_runner.cli import main
from tests.runner.conftest import agent_command
from tests.runner.test_shards_and_resume import answer, judge


def leave_strays(tree: Path, outside: Path, ticket: str) -> None:
    """A link at the root, a folder for no ticket, a repetition folder for no cell of `ticket`'s."""
    (tree / "evil").symlink_to(outside)
    (tree / "T-99").mkdir()
    (tree / ticket / "9").mkdir()


def test_strays_in_a_shard_block_the_run_and_every_cell_is_still_judged(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    for index in range(2):
        shard = tmp_path / "sharded" / f"shard-{index}"
        answer(suite, brain, shard, agent_command("good"), "--shard", f"{index}/2")
    leave_strays(tmp_path / "sharded" / "shard-1", suite, "T-2")  # shard 1 holds T-2, T-4 and T-6
    result = judge(tmp_path, suite, tmp_path / "sharded", "strays", shard={"count": 2})
    assert result.verdict == "Blocked"
    expected = f"shard 1 holds entries no cell owns: T-2/9/, T-99/, evil (a symbolic link to {suite})"
    errors = {(t.id, r.index): r.error for t in result.tickets for r in t.repetitions}
    blamed = {cell for cell, error in errors.items() if error is not None}
    assert blamed and all(expected in (errors[cell] or "") for cell in blamed), errors
    assert len(blamed) < len(errors)  # shard 0's cells are clean
    # Judged all the same: every judge scored every cell (a blamed cell's own score is 0: it has an error).
    judged = [r.judges for t in result.tickets for r in t.repetitions]
    assert all(verdicts and all(v.score == 1.0 for v in verdicts.values()) for verdicts in judged), judged


def test_strays_in_a_whole_answers_tree_block_the_run(suite: Path, brain: Path, tmp_path: Path) -> None:
    tree = tmp_path / "answers"
    answer(suite, brain, tree, agent_command("good"))
    leave_strays(tree, suite, "T-1")
    result = judge(tmp_path, suite, tree, "strays")
    assert result.verdict == "Blocked"
    errors = [r.error or "" for t in result.tickets for r in t.repetitions]
    assert all("the answers tree holds entries no cell owns: T-1/9/, T-99/, evil" in e for e in errors)


def test_a_hand_made_tree_with_a_folder_for_no_ticket_is_still_bad_input(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "answers"
    answer(suite, brain, tree, agent_command("good"))
    hand_made = tmp_path / "hand-made"
    shutil.copytree(tree, hand_made)
    (hand_made / "answers.json").unlink()
    (hand_made / "T-99").mkdir()
    args = ["score", str(suite), "--answers", str(hand_made), "-k", "2", "--out", str(tmp_path / "out"), "-q"]
    assert main(args) == 2
    assert "T-99: no ticket of the suite has this id (a typo?)" in capsys.readouterr().err
