"""Evidence authenticated by a key no agent holds (issue 36): the consistent edits that passed while seals,
the manifest and result.json were plain digests — each now ends refused or Blocked with the cell named —
and the honest runs that still verify and resume.

Every attack here edits files as anyone with write access to them could (an agent that outlived its cell,
a user): it recomputes every digest, every total and the verdict with the project's own code. What it
cannot do is compute a MAC under the run's evidence key, which lives outside the run's folders.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.core.evidence import EvidenceKey, Label
from assay_runner.core.results import answer_digest
from assay_runner.core.scorecard import assemble
from assay_runner.io.results import read_result
from tests.runner.conftest import AGENT, agent_command

CLEAN = "## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nReply if unclear.\n"


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    """Answers every ticket well, except T-2, which hangs until its timeout (exit 124) while the marker
    file `slow` exists."""
    script = tmp_path / "agent.sh"
    script.write_text(
        f'#!/bin/sh\ncase "$(head -1 prompt.md)" in\n  *T-2*) [ -e {tmp_path}/slow ] && exec sleep 60 ;;\n'
        f"esac\nexec {agent_command('good')}\n"
    )
    script.chmod(0o755)
    (tmp_path / "slow").touch()
    return script


def run_args(suite: Path, brain: Path, agent: Path, out: Path) -> list[str]:
    """The fake agent's script is named after agent.sh: the sandbox lets a cell read only the programs its
    command names (agent.sh ignores the argument)."""
    return [
        "run", str(suite), "--brain", str(brain), "--agent", "command", "--model", "m",
        "--command", f"{agent} {AGENT}", "--tickets", "T-1,T-2", "--timeout", "2", "--no-mlflow", "-q",
        "--out", str(out),
    ]  # fmt: skip


def split_config(suite: Path, brain: Path, agent: Path, tmp_path: Path, **extra: object) -> Path:
    config = tmp_path / "run.json"
    body = {
        "suite": str(suite),
        "brain": str(brain),
        "tickets": ["T-1", "T-2"],
        "mlflow": {"enabled": False},
        "answersDir": str(tmp_path / "answers"),
        "agent": {"kind": "command", "model": "m", "command": [str(agent), str(AGENT)], "timeoutSeconds": 2},
        "output": {"dir": str(tmp_path / "out")},
        **extra,
    }
    config.write_text(json.dumps(body))
    return config


def launder(path: Path, cell: str = "T-2") -> Path:
    """The laundering edit: the Blocked cell's answer swapped for a clean one, its digest, exit code, error
    and judge verdicts set, and every total and the verdict recomputed with `assemble`."""
    result = read_result(path)
    tickets = []
    for ticket in result.tickets:
        reps = []
        for rep in ticket.repetitions:
            if ticket.id == cell:
                judges = {
                    name: verdict.model_copy(update={"score": 1.0, "applicable": True, "error": None})
                    for name, verdict in rep.judges.items()
                }
                update = {"answer": CLEAN, "answer_digest": answer_digest(CLEAN), "exit_code": 0}
                reps.append(rep.model_copy(update={**update, "error": None, "judges": judges}))
            else:
                reps.append(rep)
        tickets.append(ticket.model_copy(update={"repetitions": reps}))
    result = result.model_copy(update={"tickets": tickets})
    card = assemble(result.tickets, result.config, result.repetitions.k, result.mlflow)
    result = result.model_copy(update=card.as_update())
    assert result.verdict == "Pass"
    path.write_text(result.to_json(indent=2))
    assert main(["gate", str(path), "-q"]) == 0  # consistent in itself: a plain re-gate takes it
    return path


def verified_detail(out: Path) -> str:
    rule = next(r for r in read_result(out / "result.json").rules if r.name == "verified")
    assert not rule.passed
    return rule.detail


def test_an_honest_run_verifies_and_its_key_is_outside_the_run(
    suite: Path, brain: Path, agent: Path, tmp_path: Path, evidence_key_store: Path
) -> None:
    (tmp_path / "slow").unlink()
    out = tmp_path / "out"
    assert main(run_args(suite, brain, agent, out)) == 0
    result = read_result(out / "result.json")
    assert result.evidence is not None and set(result.evidence.cells) == {"T-1/1", "T-2/1"}
    assert main(["gate", str(out / "result.json"), "--verify", "--suite", str(suite), "-q"]) == 0
    # The key: in the user's key store (0700, the key 0600), nowhere in the run's folder.
    key_file = evidence_key_store / result.evidence.key_id
    assert stat.S_IMODE(evidence_key_store.stat().st_mode) == 0o700
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = key_file.read_bytes()
    assert EvidenceKey(secret).key_id == result.evidence.key_id
    for path in out.rglob("*"):
        assert not path.is_file() or secret.hex() not in path.read_text(errors="replace")


def test_a_laundered_blocked_result_does_not_pass_gate_verify(
    suite: Path, brain: Path, agent: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert main(run_args(suite, brain, agent, out)) == 1
    assert read_result(out / "result.json").tickets[1].repetitions[0].exit_code == 124  # timed out
    edited = launder(out / "result.json")
    checked = tmp_path / "checked"
    command = ["gate", str(edited), "--verify", "--suite", str(suite), "--out", str(checked), "-q"]
    assert main(command) == 1
    detail = verified_detail(checked)
    assert "cell T-2/1: its record in result.json does not verify under the run's evidence key" in detail
    assert "T-1/1" not in detail  # the cell left alone still verifies
    # compare --verify: a candidate that does not verify is bad input.
    assert main(["compare", str(edited), "--verify", "--suite", str(suite)]) == 2


def test_run_resume_refuses_a_laundered_result_and_keeps_an_honest_ones_cells(
    suite: Path, brain: Path, agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    assert main(run_args(suite, brain, agent, first)) == 1
    honest = (first / "result.json").read_bytes()
    launder(first / "result.json")  # the timed-out cell made into a clean one
    capsys.readouterr()
    assert main([*run_args(suite, brain, agent, second), "--resume", str(first)]) == 2
    err = capsys.readouterr().err
    assert "cell T-2/1: its record in result.json does not verify" in err and "keeps nothing" in err
    assert not (second / "result.json").exists()
    # The honest result resumes: T-1 is kept as it was, the timed-out T-2 runs again (and now answers).
    (first / "result.json").write_bytes(honest)
    (tmp_path / "slow").unlink()
    assert main([*run_args(suite, brain, agent, second), "--resume", str(first)]) == 0
    before, after = read_result(first / "result.json"), read_result(second / "result.json")
    assert after.tickets[0].repetitions[0].started_at == before.tickets[0].repetitions[0].started_at
    assert after.tickets[1].repetitions[0].exit_code == 0
    assert main(["gate", str(second / "result.json"), "--verify", "--suite", str(suite), "-q"]) == 0


def test_a_result_whose_evidence_is_removed_or_under_another_key_is_unauthenticated(
    suite: Path, brain: Path, agent: Path, tmp_path: Path
) -> None:
    (tmp_path / "slow").unlink()
    out = tmp_path / "out"
    assert main(run_args(suite, brain, agent, out)) == 0
    data = json.loads((out / "result.json").read_text())
    data.pop("evidence")
    stripped = tmp_path / "stripped.json"
    stripped.write_text(json.dumps(data))
    checked = tmp_path / "checked"
    gate = ["gate", "--verify", "--suite", str(suite), "--out", str(checked), "-q"]
    assert main([*gate, str(stripped)]) == 1
    assert "no evidence MAC" in verified_detail(checked) and "unauthenticated" in verified_detail(checked)
    # Another run's key (named explicitly) does not authenticate it either.
    other = tmp_path / "other.key"
    other.write_bytes(os.urandom(32))
    assert main([*gate, str(out / "result.json"), "--evidence-key", str(other)]) == 1
    assert "not under this run's key" in verified_detail(checked)
    # Nor does a store that lost the key.
    result = read_result(out / "result.json")
    assert result.evidence is not None
    store = Path(os.environ["XDG_STATE_HOME"]) / "assay" / "evidence"
    (store / result.evidence.key_id).unlink()
    assert main([*gate, str(out / "result.json")]) == 1
    assert f"no evidence key {result.evidence.key_id} is available" in verified_detail(checked)


def test_a_split_run_verifies_with_its_tree_and_its_named_key(
    suite: Path, brain: Path, agent: Path, tmp_path: Path
) -> None:
    (tmp_path / "slow").unlink()
    key = tmp_path / "evidence.key"
    key.write_bytes(os.urandom(32))
    config = split_config(suite, brain, agent, tmp_path, evidence={"keyFile": str(key)})
    assert main(["answer", "--config", str(config), "-q"]) == 0
    assert main(["score", "--config", str(config), "-q"]) == 0
    result = tmp_path / "out" / "result.json"
    command = [
        "gate",
        str(result),
        "--verify",
        "--config",
        str(config),
        "--answers",
        str(tmp_path / "answers"),
    ]
    assert main([*command, "-q"]) == 0
    assert not list(Path(os.environ["XDG_STATE_HOME"]).rglob("*.key"))  # the named key, not the store's
    # The judge phase under another run's key refuses the tree, every cell named by the reason.
    other = tmp_path / "other.key"
    other.write_bytes(os.urandom(32))
    assert main(["score", "--config", str(config), "--evidence-key", str(other), "-q"]) == 1
    errors = [t.repetitions[0].error or "" for t in read_result(result).tickets]
    assert all("sealed under evidence key" in error and "another run's tree" in error for error in errors)


def test_a_named_key_file_that_is_missing_is_refused_before_any_agent_runs(
    suite: Path, brain: Path, agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "slow").unlink()
    config = split_config(suite, brain, agent, tmp_path, evidence={"keyFile": str(tmp_path / "missing.key")})
    assert main(["answer", "--config", str(config), "-q"]) == 2
    assert "the evidence key file is missing" in capsys.readouterr().err
    assert not list((tmp_path / "answers").glob("*/*/answer.md"))
    short = tmp_path / "short.key"
    short.write_bytes(b"0123456789")
    assert main(["score", "--config", str(config), "--evidence-key", str(short), "-q"]) == 2
    assert "32 to 4096 bytes, not 10" in capsys.readouterr().err


def test_answer_resume_refuses_a_cell_whose_seal_was_recomputed(
    suite: Path, brain: Path, agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = split_config(suite, brain, agent, tmp_path)
    assert main(["answer", "--config", str(config), "-q"]) == 0
    answers = tmp_path / "answers"
    victim = answers / "T-2" / "1"
    assert json.loads((victim / "cell.json").read_text())["exitCode"] == 124
    # The timed-out cell rewritten as a clean one, its seal recomputed as sha256 digests could be.
    (victim / "answer.md").write_text(CLEAN)
    (victim / "exit_code").write_text("0\n")
    (victim / "cell.json").write_text(json.dumps({"exitCode": 0}))
    manifest = json.loads((answers / "answers.json").read_text())
    manifest["cells"]["T-2/1"] = {
        p.name: "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest() for p in victim.iterdir()
    }
    (answers / "answers.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    resume = json.loads(config.read_text()) | {"resume": True}
    config.write_text(json.dumps(resume))
    assert main(["answer", "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert "cell T-2/1: its seal does not verify under this run's evidence key: blocked" in err
    assert "T-1/1" not in err
    # And the judge phase, given the same tree, blocks that cell by name.
    assert main(["score", "--config", str(config), "-q"]) == 1
    t2 = read_result(tmp_path / "out" / "result.json").tickets[1].repetitions[0]
    assert t2.error == "cell T-2/1: its seal does not verify under this run's evidence key: blocked"


def test_answer_resume_keeps_an_honest_trees_cells(
    suite: Path, brain: Path, agent: Path, tmp_path: Path
) -> None:
    config = split_config(suite, brain, agent, tmp_path)
    assert main(["answer", "--config", str(config), "-q"]) == 0
    kept = (tmp_path / "answers" / "T-1" / "1" / "cell.json").read_bytes()
    (tmp_path / "slow").unlink()
    config.write_text(json.dumps(json.loads(config.read_text()) | {"resume": True}))
    assert main(["answer", "--config", str(config), "-q"]) == 0
    assert (tmp_path / "answers" / "T-1" / "1" / "cell.json").read_bytes() == kept  # not answered again
    assert main(["score", "--config", str(config), "-q"]) == 0
    out = tmp_path / "out" / "result.json"
    command = ["gate", str(out), "--verify", "--config", str(config), "--answers", str(tmp_path / "answers")]
    assert main([*command, "-q"]) == 0


CANONICAL: dict[str, object] = {"sort_keys": True, "separators": (",", ":")}


def hand_written_manifest(answers: Path, key_id: str | None) -> None:
    """A manifest written from scratch for a tree written by hand, with every digest as sha256 computes it."""
    cells = {
        f"{cell.parent.name}/{cell.name}": {
            p.name: "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest() for p in cell.iterdir()
        }
        for cell in sorted(answers.glob("*/*"))
    }
    manifest = {
        "suite": "mini",
        "tickets": ["T-1", "T-2"],
        "repetitions": 1,
        "agent": "command",
        "startedAt": "2026-12-05T00:00:00Z",
        "finishedAt": "2026-12-05T00:01:00Z",
        "cells": cells,
        **({"evidenceKeyId": key_id} if key_id is not None else {}),  # as a manifest before evidence keys
        "treeDigest": "sha256:" + hashlib.sha256(json.dumps(cells, **CANONICAL).encode()).hexdigest(),
    }
    (answers / "answers.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("borrowed_key_id", [False, True], ids=["no-key-id", "a-real-runs-key-id"])
def test_a_hand_written_manifest_is_not_judged_as_sealed(
    suite: Path, brain: Path, agent: Path, tmp_path: Path, borrowed_key_id: bool
) -> None:
    config = split_config(suite, brain, agent, tmp_path)
    key_id = None
    if borrowed_key_id:  # the id of a key the store does hold (an earlier, honest run's)
        assert main(["answer", "--config", str(config), "-q"]) == 0
        key_id = json.loads((tmp_path / "answers" / "answers.json").read_text())["evidenceKeyId"]
        for path in sorted((tmp_path / "answers").rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
    for ticket in ("T-1", "T-2"):
        cell = tmp_path / "answers" / ticket / "1"
        cell.mkdir(parents=True)
        (cell / "answer.md").write_text(CLEAN)
        (cell / "cell.json").write_text(json.dumps({"exitCode": 0}))
    hand_written_manifest(tmp_path / "answers", key_id)
    assert main(["score", "--config", str(config), "-q"]) == 1
    errors = {
        t.id: t.repetitions[0].error or "" for t in read_result(tmp_path / "out" / "result.json").tickets
    }
    if borrowed_key_id:
        assert errors == {
            c: f"cell {c}/1: its seal does not verify under this run's evidence key: blocked" for c in errors
        }
    else:
        assert all("sealed without an evidence key" in error for error in errors.values())


def test_a_hand_made_trees_result_is_judged_but_unauthenticated(suite: Path, tmp_path: Path) -> None:
    answers = tmp_path / "mine"
    for ticket in ("T-1", "T-2"):
        (answers / ticket).mkdir(parents=True)
        (answers / ticket / "answer.md").write_text(CLEAN)
    out = tmp_path / "out"
    code = main(
        ["score", str(suite), "--answers", str(answers), "--tickets", "T-1,T-2", "--out", str(out), "-q"]
    )
    assert code == 0  # the user's own answers, judged
    result = Result.model_validate_json((out / "result.json").read_text())
    assert result.evidence is None and any("unauthenticated" in w for w in result.warnings)
    assert main(["gate", str(out / "result.json"), "--verify", "--suite", str(suite), "-q"]) == 1


def test_macs_are_domain_separated_and_the_key_never_printed() -> None:
    key = EvidenceKey.new()
    assert key.mac(Label.CELL_FILE, "a") != key.mac(Label.MANIFEST, "a")
    assert key.mac(Label.CELL_FILE, "ab", "c") != key.mac(Label.CELL_FILE, "a", "bc")
    assert key.verifies(key.mac(Label.RESULT, "x"), Label.RESULT, "x")
    assert not EvidenceKey.new().verifies(key.mac(Label.RESULT, "x"), Label.RESULT, "x")
    assert key.secret.hex() not in repr(key) and key.key_id in repr(key)
    with pytest.raises(ValueError, match="at least 32 bytes"):
        EvidenceKey(b"short")


def test_the_key_store_is_private_even_when_it_existed_open(tmp_path: Path, evidence_key_store: Path) -> None:
    from assay_runner.io.evidence_keys import new_stored_key, stored_key

    evidence_key_store.mkdir(parents=True, mode=0o755)
    evidence_key_store.chmod(0o755)
    key = new_stored_key()
    assert stat.S_IMODE(evidence_key_store.stat().st_mode) == 0o700
    assert stored_key(key.key_id) == key
    assert stored_key("../" + key.key_id) is None and stored_key("0" * 24) is None
    assert sys.platform != "linux" or os.stat(evidence_key_store / key.key_id).st_uid == os.getuid()


def test_answer_pods_making_the_key_at_once_end_with_one(tmp_path: Path) -> None:
    """As the init containers of an Indexed Job's answer pods do on their shared claim: one key, whole."""
    import subprocess

    path = tmp_path / ".evidence" / "key"
    path.parent.mkdir()
    makers = [
        subprocess.Popen(
            [sys.executable, "-m", "assay_runner.cli", "evidence-key", str(path)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    said = [maker.communicate(timeout=120)[1] for maker in makers]
    assert all(maker.returncode == 0 for maker in makers), said
    key = EvidenceKey(path.read_bytes())
    assert len(path.read_bytes()) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert all(f"evidence key {key.key_id}" in line for line in said)
    assert sum("made" in line for line in said) == 1
    assert sorted(p.name for p in path.parent.iterdir()) == ["key"]  # nothing left aside


def test_makers_of_one_pid_at_once_end_with_one_key(tmp_path: Path) -> None:
    """Each answer pod's maker is its container's first process, so every one has pid 1: makers that share a
    pid (threads here) must not share the name of the file they write aside (they did: `File exists`, and
    shard 2 of four was Blocked on the local control plane)."""
    import threading

    from assay_runner.io.evidence_keys import make_key_file

    path = tmp_path / ".evidence" / "key"
    path.parent.mkdir()
    start = threading.Barrier(8)
    made: list[tuple[EvidenceKey, bool] | BaseException] = []

    def make() -> None:
        start.wait()
        try:
            made.append(make_key_file(path))
        except BaseException as exc:  # recorded for the assertion below
            made.append(exc)

    makers = [threading.Thread(target=make) for _ in range(8)]
    for maker in makers:
        maker.start()
    for maker in makers:
        maker.join()
    assert not [m for m in made if isinstance(m, BaseException)], made
    keys = {m[0].key_id for m in made if not isinstance(m, BaseException)}
    assert keys == {EvidenceKey(path.read_bytes()).key_id}
    assert sorted(p.name for p in path.parent.iterdir()) == ["key"]
