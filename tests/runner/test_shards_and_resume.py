"""Answers in shards give the one-tree verdict by construction, a shard that failed blocks its cells with the
reason, and a resumed phase answers only what is missing or errored — unless its inputs changed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from assay_dev.cluster.wait import wait_until
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.run.seal import UNSEALED
from assay_runner.sandbox import landlock
from tests.runner.conftest import AGENT, agent_command

# T-2 and T-5 fail (no answer) unless the marker file exists: a flaky agent, for resuming.
FLAKY = """\
import os, pathlib, re, sys
ticket = re.search(r"ticket (\\S+)", pathlib.Path("prompt.md").read_text()).group(1)
with open(sys.argv[1], "a") as log:
    log.write(ticket + "\\n")
if ticket in ("T-2", "T-5") and not os.path.exists(sys.argv[2]):
    sys.exit(3)
answer = "## Summary\\nSee [KB-1].\\n## Steps\\n1. Open Settings > Export.\\n## Next\\nOk.\\n"
pathlib.Path("answer.md").write_text(answer)
"""


def judge(tmp_path: Path, suite: Path, answers: Path, name: str, **extra: object) -> Result:
    config = tmp_path / f"{name}.json"
    body = {"suite": str(suite), "answersDir": str(answers), "repetitions": 2, "mlflow": {"enabled": False}}
    config.write_text(json.dumps({**body, "output": {"dir": str(tmp_path / name)}, **extra}))
    main(["score", "--config", str(config), "-q"])
    return Result.model_validate_json((tmp_path / name / "result.json").read_text())


def answer(suite: Path, brain: Path, out: Path, command: str, *extra: str) -> None:
    args = ["answer", str(suite), "--brain", str(brain), "--agent", "command", "--model", "m", "-k", "2"]
    assert main([*args, "--command", command, "--answers-out", str(out), "-q", *extra]) == 0


def test_four_shards_give_the_one_tree_verdict(suite: Path, brain: Path, tmp_path: Path) -> None:
    command = agent_command("good")
    answer(suite, brain, tmp_path / "whole", command)
    for index in range(4):
        answer(suite, brain, tmp_path / "sharded" / f"shard-{index}", command, "--shard", f"{index}/4")
    # Each shard holds its own cells only: 12 cells, round-robin over the repetition-major order.
    counts = [len(list((tmp_path / "sharded" / f"shard-{i}").glob("*/*/cell.json"))) for i in range(4)]
    assert counts == [3, 3, 3, 3]
    one = judge(tmp_path, suite, tmp_path / "whole", "one")
    four = judge(tmp_path, suite, tmp_path / "sharded", "four", shard={"count": 4})
    assert (four.verdict, four.score, four.reasons) == (one.verdict, one.score, one.reasons)
    assert {n: j.mean for n, j in four.judges.items()} == {n: j.mean for n, j in one.judges.items()}
    for field in ("brain_digest", "suite_digest", "judges_digest", "tickets_digest"):
        assert getattr(four.inputs, field) == getattr(one.inputs, field)
    assert four.inputs.answers_digest and one.inputs.answers_digest  # each bound to the trees it read


def test_a_shard_that_failed_blocks_its_cells_with_the_reason(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    for index in (0, 1, 3):
        answer(
            suite,
            brain,
            tmp_path / "sharded" / f"shard-{index}",
            agent_command("good"),
            "--shard",
            f"{index}/4",
        )
    failed = {"count": 4, "failed": {"2": "BackoffLimitExceeded: the pod was killed 3 times"}}
    result = judge(tmp_path, suite, tmp_path / "sharded", "failed", shard=failed)
    errors = [rep.error for t in result.tickets for rep in t.repetitions if rep.error]
    assert result.verdict == "Blocked" and len(errors) == 3
    assert all("answer shard 2 failed: BackoffLimitExceeded" in e for e in errors)
    missing = judge(tmp_path, suite, tmp_path / "sharded", "missing", shard={"count": 4})
    assert (
        sum("wrote no answers tree" in (r.error or "") for t in missing.tickets for r in t.repetitions) == 3
    )


def test_a_shard_tree_in_another_shards_place_is_refused(suite: Path, brain: Path, tmp_path: Path) -> None:
    for index in range(2):
        answer(
            suite,
            brain,
            tmp_path / "sharded" / f"shard-{index}",
            agent_command("good"),
            "--shard",
            f"{index}/2",
        )
    (tmp_path / "sharded" / "shard-0").rename(tmp_path / "sharded" / "swap")
    (tmp_path / "sharded" / "shard-1").rename(tmp_path / "sharded" / "shard-0")
    (tmp_path / "sharded" / "swap").rename(tmp_path / "sharded" / "shard-1")
    result = judge(tmp_path, suite, tmp_path / "sharded", "swapped", shard={"count": 2})
    assert all("made for another run" in (r.error or "") for t in result.tickets for r in t.repetitions)


@pytest.fixture
def flaky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path, Path]:
    # The flaky agent keeps its call log beside the run, where its sandbox would refuse to let it write:
    # these tests are about resuming, so its cells run as on a kernel without Landlock.
    monkeypatch.setenv(landlock.ABI_CAP_ENV, "0")
    agent = tmp_path / "flaky.py"
    agent.write_text(FLAKY)
    log, marker = tmp_path / "calls.log", tmp_path / "fixed"
    return f"{sys.executable} {agent} {log} {marker}", log, marker


def test_a_resumed_answer_phase_answers_only_the_missing_or_errored(
    suite: Path, brain: Path, tmp_path: Path, flaky: tuple[str, Path, Path]
) -> None:
    command, log, marker = flaky
    answers = tmp_path / "answers"
    answer(suite, brain, answers, command)
    assert judge(tmp_path, suite, answers, "first").verdict == "Blocked"
    assert len(log.read_text().split()) == 12
    marker.touch()
    log.write_text("")
    answer(suite, brain, answers, command, "--resume")
    assert sorted(log.read_text().split()) == ["T-2", "T-2", "T-5", "T-5"]  # the four that failed
    resumed = judge(tmp_path, suite, answers, "resumed")
    assert resumed.verdict == "Pass", resumed.reasons


def test_a_resume_on_other_inputs_answers_everything_again(
    suite: Path, brain: Path, tmp_path: Path, flaky: tuple[str, Path, Path]
) -> None:
    command, log, marker = flaky
    answers = tmp_path / "answers"
    answer(suite, brain, answers, command)
    marker.touch()
    log.write_text("")
    (brain / "AGENTS.md").write_text((brain / "AGENTS.md").read_text() + "A new line of the brain.\n")
    answer(suite, brain, answers, command, "--resume")
    assert len(log.read_text().split()) == 12  # another brain: nothing of the earlier attempt is kept
    assert judge(tmp_path, suite, answers, "again").verdict == "Pass"


def test_assay_run_resumes_from_an_earlier_result(
    suite: Path, brain: Path, tmp_path: Path, flaky: tuple[str, Path, Path]
) -> None:
    command, log, marker = flaky
    args = [
        "run",
        str(suite),
        "--brain",
        str(brain),
        "--agent",
        "command",
        "--model",
        "m",
        "--command",
        command,
    ]
    args += ["--no-mlflow", "-q", "-k", "2"]
    assert main([*args, "--out", str(tmp_path / "first")]) == 1
    marker.touch()
    log.write_text("")
    assert main([*args, "--out", str(tmp_path / "second"), "--resume", str(tmp_path / "first")]) == 0
    assert sorted(log.read_text().split()) == ["T-2", "T-2", "T-5", "T-5"]
    (brain / "style.md").write_text("Be brisk.\n")
    assert main([*args, "--out", str(tmp_path / "third"), "--resume", str(tmp_path / "second")]) == 2


def test_the_answer_phase_writes_a_compact_summary_where_its_config_says(
    suite: Path, brain: Path, tmp_path: Path, flaky: tuple[str, Path, Path]
) -> None:
    """On the cluster the operator reads it from each answer pod's termination message (cells done)."""
    from assay_runner.contract import AnswerSummary

    command, _, marker = flaky
    config = {
        "suite": str(suite),
        "brain": str(brain),
        "agent": {"kind": "command", "model": "m", "command": command.split()},
        "repetitions": 2,
        "answersDir": str(tmp_path / "answers"),
        "shard": {"count": 2, "index": 1},
        "resume": True,
        "output": {"summaryPath": str(tmp_path / "termination-log")},
    }
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(config))
    assert main(["answer", "--config", str(path), "-q"]) == 0
    first = AnswerSummary.model_validate_json((tmp_path / "termination-log").read_text())
    # 12 cells, repetition-major; shard 1 of 2 holds every odd position: T-2, T-4, T-6 twice. T-2 fails.
    assert (first.shard, first.cells, first.answered, first.kept, first.total) == ((1, 2), 6, 4, 0, 12)
    assert first.stopped is None
    marker.touch()
    assert main(["answer", "--config", str(path), "-q"]) == 0
    second = AnswerSummary.model_validate_json((tmp_path / "termination-log").read_text())
    assert (second.cells, second.answered, second.kept) == (6, 6, 4)
    assert len((tmp_path / "termination-log").read_bytes()) < 4096


def test_a_sigtermed_answer_phase_exits_143_and_its_resume_answers_only_the_unfinished(
    suite: Path, brain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a deleted or evicted answer pod does: SIGTERM with cells unfinished records them and seals the
    tree, but exits 143, not 0 (the Job retries the index; exit 0 would count it done). The retry resumes:
    the sealed cells are kept, only the cut-off ones are answered again, and the verdict is a calm run's."""
    # The agent logs each call beside the run, where its sandbox would refuse it: it runs as without Landlock.
    monkeypatch.setenv(landlock.ABI_CAP_ENV, "0")
    answers, log, calls, calm = (tmp_path / n for n in ("answers", "stderr.log", "calls.log", "calm"))
    marker = tmp_path / "calm-now"
    script = tmp_path / "agent.sh"
    # T-1 and T-2 answer at once; the others hang until the phase is stopped, or answer once `marker` is.
    script.write_text(
        f"#!/bin/sh\nticket=$(head -1 prompt.md | grep -o 'T-[0-9]*')\necho $ticket >> {calls}\n"
        f"[ -e {marker} ] && exec {agent_command('good')}\n"
        f'case "$ticket" in\n  T-1|T-2) exec {agent_command("good")} ;;\n'
        f"  *) exec {agent_command('hang')} ;;\nesac\n"
    )
    script.chmod(0o755)
    args = ["answer", str(suite), "--brain", str(brain), "--agent", "command", "--model", "m", "-q"]
    args += ["--command", f"{script} {AGENT}", "--concurrency", "4"]
    with log.open("w") as stderr_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "assay_runner.cli", *args, "--answers-out", str(answers)],
            stdout=subprocess.DEVNULL,
            stderr=stderr_file,
        )

        def two_answered_and_others_hanging() -> bool:
            answered = {p.parent.parent.name for p in answers.glob("*/1/answer.md")}
            hanging = subprocess.run(
                ["pgrep", "-f", f"{AGENT} hang"], capture_output=True, text=True, check=False
            ).stdout.split()
            return answered == {"T-1", "T-2"} and len(hanging) >= 2

        wait_until(two_answered_and_others_hanging, timeout=60, what="T-1 and T-2 answered, agents hanging")
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    assert process.returncode == 143, log.read_text()
    assert "SIGTERM stopped the answer phase before every cell finished" in log.read_text()
    manifest = json.loads((answers / "answers.json").read_text())
    assert manifest["stopped"] == "the answer phase was stopped (signal) before every cell finished"
    assert set(manifest["cells"]) == {f"T-{i}/1" for i in range(1, 7)}  # every cell sealed, answered or not

    marker.touch()
    calls.write_text("")
    assert main([*args, "--answers-out", str(answers), "--resume"]) == 0
    assert sorted(calls.read_text().split()) == ["T-3", "T-4", "T-5", "T-6"]  # the cut-off cells only
    assert main([*args, "--answers-out", str(calm)]) == 0
    interrupted = judge(tmp_path, suite, answers, "resumed", repetitions=1)
    uninterrupted = judge(tmp_path, suite, calm, "calm", repetitions=1)
    assert interrupted.verdict == uninterrupted.verdict == "Pass", interrupted.reasons
    assert interrupted.score == uninterrupted.score


ANSWER = "## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nDone.\n"


class Gateway:
    """The chat agent's model on loopback, counting calls by ticket; a call for a ticket in `held` waits
    until the ticket is released (the phase is killed meanwhile, as a lost node kills it)."""

    def __init__(self, held: set[str]) -> None:
        self.held, self.changed = set(held), threading.Condition()
        self.server = ChatServer(self.reply)

    def reply(self, body: dict[str, Any]) -> Reply:
        ticket = self.ticket(body)
        with self.changed:
            self.changed.wait_for(lambda: ticket not in self.held, timeout=120)
        return Reply(content=ANSWER, prompt_tokens=200, completion_tokens=40)

    def release(self, *tickets: str) -> None:
        with self.changed:
            self.held -= set(tickets) or self.held
            self.changed.notify_all()

    @staticmethod
    def ticket(body: dict[str, Any]) -> str:
        question = re.search(r"Export (\d)\?", json.dumps(body["messages"]))
        assert question is not None, body
        return f"T-{question.group(1)}"

    def calls(self) -> list[str]:
        return sorted(self.ticket(body) for body in list(self.server.requests))

    def __enter__(self) -> Gateway:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self.server.__exit__(*exc)


def chat_answer_args(suite: Path, brain: Path, url: str) -> list[str]:
    return [
        "answer",
        str(suite),
        "--brain",
        str(brain),
        "--agent",
        "chat",
        "--model",
        "agent-m",
        "--gateway",
        url,
        "--concurrency",
        "1",
        "-q",
    ]


def interrupted(
    args: list[str], answers: Path, gateway: Gateway, sealed: set[str], asked: str, how: signal.Signals
) -> int:
    """`assay answer` sent `how` once the `sealed` tickets' cells are sealed (their seal records on disk) and
    `asked`'s model call is in flight; returns its exit status."""
    process = subprocess.Popen(
        [sys.executable, "-m", "assay_runner.cli", *args, "--answers-out", str(answers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:

        def sealed_and_asked() -> bool:
            records = {p.name.split(".")[0] for p in (answers / ".sealed").glob("T-*.json")}
            return records == sealed and asked in gateway.calls()

        wait_until(sealed_and_asked, timeout=120, what=f"{sorted(sealed)} sealed and {asked} asked")
    finally:
        os.killpg(process.pid, how)
        _, stderr = process.communicate(timeout=120)
        gateway.release(asked)
    expected = -signal.SIGKILL if how == signal.SIGKILL else 128 + how
    assert process.returncode == expected, stderr.decode()
    return process.returncode


def killed_after_two_sealed(args: list[str], answers: Path, gateway: Gateway) -> None:
    """`assay answer` SIGKILLed (no signal it can handle: the OOM killer, a lost node) once T-1 and T-2 are
    answered and sealed and T-3's model call is in flight."""
    interrupted(args, answers, gateway, {"T-1", "T-2"}, "T-3", signal.SIGKILL)
    manifest = json.loads((answers / "answers.json").read_text())
    assert manifest["cells"] is None and manifest["finishedAt"] is None  # it never sealed its manifest


def test_a_killed_answer_phase_resumes_exactly_the_cells_it_did_not_seal(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """A phase killed outright (no SIGTERM to seal its manifest on) has each sealed cell's seal on disk: its
    retry answers only the cells it did not seal, and the verdict and usage are a calm run's."""
    answers, calm = tmp_path / "answers", tmp_path / "calm"
    with Gateway(held={"T-3"}) as gateway:
        args = chat_answer_args(suite, brain, gateway.server.url)
        killed_after_two_sealed(args, answers, gateway)
        assert gateway.calls() == ["T-1", "T-2", "T-3"]  # T-3's call was in flight when it was killed
        # Judged as it is, the killed tree blocks every cell: the judge takes no seal record for a seal, and
        # the records are no stray entry of an agent's.
        killed = judge(tmp_path, suite, answers, "killed", repetitions=1)
        errors = {r.error for t in killed.tickets for r in t.repetitions}
        assert killed.verdict == "Blocked" and errors == {UNSEALED}, errors
        gateway.server.requests.clear()
        assert main([*args, "--answers-out", str(answers), "--resume"]) == 0
        assert gateway.calls() == ["T-3", "T-4", "T-5", "T-6"], "a sealed cell was answered again"
        assert not (answers / ".sealed").exists()  # the sealed manifest holds every seal now
        gateway.server.requests.clear()
        assert main([*args, "--answers-out", str(calm)]) == 0
        assert gateway.calls() == [f"T-{i}" for i in range(1, 7)]
    manifest = json.loads((answers / "answers.json").read_text())
    assert set(manifest["cells"]) == {f"T-{i}/1" for i in range(1, 7)} and manifest["stopped"] is None
    resumed = judge(tmp_path, suite, answers, "resumed", repetitions=1)
    uninterrupted = judge(tmp_path, suite, calm, "calm", repetitions=1)
    assert resumed.verdict == uninterrupted.verdict == "Pass", resumed.reasons
    assert resumed.score == uninterrupted.score
    assert resumed.usage == uninterrupted.usage and resumed.usage is not None
    assert (resumed.usage.input_tokens, resumed.usage.output_tokens) == (6 * 200, 6 * 40)


def test_a_tampered_seal_record_is_refused_naming_its_cell(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A killed phase's seal record edited (T-1's answer swapped, its seal recomputed as a plain digest, as
    anyone without the run's key can) is refused by the retry, naming the cell; nothing of the tree is kept
    and no model is asked."""
    answers = tmp_path / "answers"
    with Gateway(held={"T-3"}) as gateway:
        args = chat_answer_args(suite, brain, gateway.server.url)
        killed_after_two_sealed(args, answers, gateway)
        (answers / "T-1" / "1" / "answer.md").write_text("## Summary\nForged.\n")
        path = answers / ".sealed" / "T-1.1.json"
        record = json.loads(path.read_text())
        record["files"]["answer.md"] = "sha256:" + hashlib.sha256(b"## Summary\nForged.\n").hexdigest()
        path.write_text(json.dumps(record))
        gateway.server.requests.clear()
        assert main([*args, "--answers-out", str(answers), "--resume"]) == 2
        assert gateway.calls() == []
    error = capsys.readouterr().err
    assert "cell T-1/1: its seal record does not verify under this run's evidence key" in error, error
    assert "T-2/1" not in error  # the untouched record is not blamed


def test_a_resume_killed_in_turn_keeps_what_every_earlier_attempt_sealed(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """SIGTERM (an eviction: the manifest sealed), then the retry SIGKILLed (a lost node): the next retry
    keeps the first attempt's cells (the retry put their seal records back on disk before answering) and the
    second's, and answers only what neither sealed."""
    answers = tmp_path / "answers"
    with Gateway(held={"T-3", "T-4"}) as gateway:
        args = chat_answer_args(suite, brain, gateway.server.url)
        interrupted(args, answers, gateway, {"T-1", "T-2"}, "T-3", signal.SIGTERM)
        manifest = json.loads((answers / "answers.json").read_text())
        assert manifest["stopped"] and len(manifest["cells"]) == 6 and not (answers / ".sealed").exists()
        gateway.server.requests.clear()
        resume = [*args, "--resume"]
        interrupted(resume, answers, gateway, {"T-1", "T-2", "T-3"}, "T-4", signal.SIGKILL)
        assert gateway.calls() == ["T-3", "T-4"]
        gateway.server.requests.clear()
        assert main([*resume, "--answers-out", str(answers)]) == 0
        assert gateway.calls() == ["T-4", "T-5", "T-6"], "a sealed cell was answered again"
    result = judge(tmp_path, suite, answers, "resumed", repetitions=1)
    assert result.verdict == "Pass", result.reasons
