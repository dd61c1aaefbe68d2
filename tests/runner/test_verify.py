"""`assay gate --verify` and `assay compare --verify` against edits that keep result.json consistent: every
total recomputed to match, so only checking the result against what it is bound to catches them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.core.digests import tickets_digest
from assay_runner.core.results import answer_digest
from assay_runner.core.scorecard import assemble
from assay_runner.io.results import read_result
from tests.runner.conftest import AGENT, agent_command

EXTRA_JUDGES = """\
  - name: policy
    type: policy
    weight: 0.2
    threshold: 1.0
    forbidden: [reinstall]
  - name: long_enough
    type: code
    weight: 0.2
    threshold: 1.0
    code: |
      return (1.0, "long") if len(outputs["answer"]) > 40 else (0.0, "too short")
"""


@pytest.fixture
def run_dir(suite: Path, brain: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A split run (answer phase, judge phase) whose T-2 answers tell the customer to reinstall: Blocked."""
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text.replace("gate:", EXTRA_JUDGES + "gate:"))
    script = tmp_path / "agent.sh"
    script.write_text(
        '#!/bin/sh\ncase "$(head -1 prompt.md)" in\n'
        "  *T-2*) printf '## Summary\\nReinstall the app [KB-1].\\n## Steps\\n1. Open Settings > Export.\\n"
        "## Next\\nDone.\\n' > answer.md ;;\n"
        f"  *) exec {agent_command('good')} ;;\nesac\n"
    )
    script.chmod(0o755)
    common = {
        "suite": str(suite),
        "brain": str(brain),
        "mlflow": {"enabled": False},
        "answersDir": str(tmp_path / "answers"),
        # The agent program named too: the sandbox lets a cell read only the programs its command names.
        "agent": {"kind": "command", "model": "m", "command": [str(script), str(AGENT)]},
    }
    config = tmp_path / "run.json"
    config.write_text(json.dumps({**common, "output": {"dir": str(tmp_path / "out")}}))
    assert main(["answer", "--config", str(config), "-q"]) == 0
    assert main(["score", "--config", str(config), "-q"]) == 1
    return tmp_path / "out" / "result.json", config, tmp_path / "answers"


def rewrite(path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    """Edit the result and make every total agree again, as a careful hand would."""
    result = read_result(path)
    result = edit(result)
    card = assemble(result.tickets, result.config, result.repetitions.k, result.mlflow)
    result = result.model_copy(update=card.as_update())
    edited = path.with_name("edited.json")
    edited.write_text(result.to_json(indent=2))
    assert main(["gate", str(edited), "-q"]) == 0  # a plain re-gate takes it: the file is consistent
    return edited


def test_an_answer_swapped_for_a_clean_one_is_not_the_trees(run_dir: tuple[Path, Path, Path]) -> None:
    result_path, config, answers = run_dir
    clean = "## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nReply if unclear.\n"

    def swap(result):  # type: ignore[no-untyped-def]
        tickets = []
        for ticket in result.tickets:
            reps = []
            for rep in ticket.repetitions:
                judges = {**rep.judges, "policy": rep.judges["policy"].model_copy(update={"score": 1.0})}
                swapped = {"answer": clean, "answer_digest": answer_digest(clean), "judges": judges}
                reps.append(rep.model_copy(update=swapped) if ticket.id == "T-2" else rep)
            tickets.append(ticket.model_copy(update={"repetitions": reps}))
        return result.model_copy(update={"tickets": tickets})

    edited = rewrite(result_path, swap)
    out = result_path.parent / "verified"
    command = ["gate", str(edited), "--verify", "--config", str(config), "--out", str(out), "-q"]
    assert main([*command, "--answers", str(answers)]) == 1
    detail = next(r for r in read_result(out / "result.json").rules if r.name == "verified").detail
    assert "T-2 #1: the stored answer or exit code is not the tree's" in detail
    # Without the tree, the swapped answer is judged again and agrees with its edited verdicts; the cell's
    # MAC under the run's evidence key is what tells (before evidence keys, this passed).
    assert main(command) == 1
    detail = next(r for r in read_result(out / "result.json").rules if r.name == "verified").detail
    assert "cell T-2/1: its record in result.json does not verify under the run's evidence key" in detail


def test_failing_tickets_dropped_from_the_selection_are_missed(run_dir: tuple[Path, Path, Path]) -> None:
    result_path, config, _ = run_dir

    def drop(result):  # type: ignore[no-untyped-def]
        kept = [t for t in result.tickets if t.id != "T-2"]
        ids = [t.id for t in kept]
        inputs = result.inputs.model_copy(update={"tickets_digest": tickets_digest(ids)})
        return result.model_copy(update={"tickets": kept, "selection": ids, "inputs": inputs})

    edited = rewrite(result_path, drop)
    out = result_path.parent / "verified"
    assert main(["gate", str(edited), "--verify", "--config", str(config), "--out", str(out), "-q"]) == 1
    rule = next(r for r in read_result(out / "result.json").rules if r.name == "verified")
    assert not rule.passed and "tickets dropped or added" in rule.detail


def test_an_edited_code_judge_score_is_judged_again(run_dir: tuple[Path, Path, Path]) -> None:
    result_path, config, _ = run_dir

    def lift(result):  # type: ignore[no-untyped-def]
        tickets = []
        for ticket in result.tickets:
            reps = []
            for rep in ticket.repetitions:
                edited = rep.judges["long_enough"].model_copy(update={"score": 0.5, "reason": "edited"})
                reps.append(rep.model_copy(update={"judges": {**rep.judges, "long_enough": edited}}))
            tickets.append(ticket.model_copy(update={"repetitions": reps}))
        return result.model_copy(update={"tickets": tickets})

    result = lift(read_result(result_path))
    card = assemble(result.tickets, result.config, result.repetitions.k, result.mlflow)
    edited = result_path.with_name("code.json")
    edited.write_text(result.model_copy(update=card.as_update()).to_json())
    out = result_path.parent / "verified"
    assert main(["gate", str(edited), "--verify", "--config", str(config), "--out", str(out), "-q"]) == 1
    rule = next(r for r in read_result(out / "result.json").rules if r.name == "verified")
    assert not rule.passed and "long_enough: stored 0.5 (edited), re-judged 1.0" in rule.detail


def test_the_untouched_result_verifies(
    run_dir: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    result_path, config, answers = run_dir
    capsys.readouterr()
    # Blocked (T-2 gives forbidden advice), and every check agrees with the stored verdicts.
    assert (
        main(["gate", str(result_path), "--verify", "--config", str(config), "--answers", str(answers)]) == 1
    )
    out = capsys.readouterr().out
    assert "verified" in out and "re-judging disagrees" not in out


def test_compare_refuses_a_candidate_that_does_not_verify(
    run_dir: tuple[Path, Path, Path], suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result_path, _, _ = run_dir

    def drop(result):  # type: ignore[no-untyped-def]
        kept = [t for t in result.tickets if t.id != "T-2"]
        ids = [t.id for t in kept]
        inputs = result.inputs.model_copy(update={"tickets_digest": tickets_digest(ids)})
        return result.model_copy(update={"tickets": kept, "selection": ids, "inputs": inputs})

    edited = rewrite(result_path, drop)
    assert main(["compare", str(edited)]) in (0, 1)  # without --verify it competes
    capsys.readouterr()
    assert main(["compare", str(edited), "--verify", "--suite", str(suite)]) == 2
    assert "does not verify" in capsys.readouterr().err
