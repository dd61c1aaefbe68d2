"""The two phases of a run and the boundary between them: `assay split`, `answer`, `score --config`.

Real agent processes (tests/support/agents), a real chat-completions server on loopback for the tokens.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import Result, RunConfig, RunSummary
from assay_runner.errors import InputError
from assay_runner.run.preparation import prepare
from assay_runner.suite.loader import load_suite
from tests.runner.conftest import agent_command

CANARY = "CANARY-7f3a-notes-only"
ASSAY = [sys.executable, "-m", "assay_runner.cli"]


def with_canary(suite: Path) -> Path:
    text = (suite / "suite.yaml").read_text()
    text = text.replace("key: {kb: [KB-1], mustMention: ['Settings > Export']}}", "KEY", 1)
    text = text.replace(
        "KEY", f"key: {{kb: [KB-1], mustMention: ['Settings > Export'], notes: {CANARY}}}}}", 1
    )
    (suite / "suite.yaml").write_text(text)
    assert CANARY in text
    return suite


def split(suite: Path, tmp_path: Path) -> tuple[Path, Path]:
    public, keys = tmp_path / "public", tmp_path / "key" / "keys.yaml"
    assert main(["split", str(suite), "--public", str(public), "--keys", str(keys)]) == 0
    return public, keys


def read_result(out: Path) -> Result:
    return Result.model_validate_json((out / "result.json").read_text())


def all_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(root.rglob("*")) if p.is_file())


def test_split_keeps_every_key_out_of_the_public_part(suite: Path, tmp_path: Path) -> None:
    whole = load_suite(with_canary(suite))
    public, keys = split(suite, tmp_path)
    assert CANARY not in all_text(public) and "mustMention" not in all_text(public)
    assert CANARY in keys.read_text()
    assert not load_suite(public).has_keys
    rejoined = load_suite(public, keys=keys)
    from assay_runner.core.digests import judges_digest, suite_digest

    assert suite_digest(rejoined) == suite_digest(whole)
    assert judges_digest(rejoined) == judges_digest(whole)


def test_a_split_without_a_key_file_writes_the_key_nowhere(suite: Path, tmp_path: Path) -> None:
    """An answer pod's split: the public part alone, the same as with a key file, and no trace of the key
    anywhere it could write (its working directory and TMPDIR included)."""
    with_canary(suite)
    work, scratch = tmp_path / "work", tmp_path / "scratch"
    work.mkdir(), scratch.mkdir()
    public = work / "public"
    done = subprocess.run(
        [*ASSAY, "split", str(suite), "--public", str(public)],
        cwd=work,
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "answer keys written nowhere" in done.stderr
    assert CANARY not in all_text(work) and "mustMention" not in all_text(work)
    assert not any(scratch.iterdir())
    with_keys, _ = split(suite, tmp_path / "with-keys")
    assert all_text(public) == all_text(with_keys)
    assert not load_suite(public).has_keys


def test_a_key_file_must_cover_exactly_the_tickets(suite: Path, tmp_path: Path) -> None:
    public, keys = split(suite, tmp_path)
    text = keys.read_text()
    keys.write_text(text.replace("  T-2:", "  T-99:"))
    with pytest.raises(InputError) as caught:
        load_suite(public, keys=keys)
    message = str(caught.value)
    assert "keys.T-99" in message and "no ticket with this id" in message
    assert "no answer key for ticket 'T-2'" in message
    with pytest.raises(InputError, match="also has a key in the public part"):
        load_suite(suite, keys=keys.with_name("keys.yaml").parent / "keys.yaml")


def _config(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / f"config-{len(list(tmp_path.glob('config-*')))}.json"
    path.write_text(json.dumps(fields))
    return path


def test_answer_then_score_gives_the_verdict_of_one_run(suite: Path, brain: Path, tmp_path: Path) -> None:
    public, keys = split(suite, tmp_path)
    agent = {"kind": "command", "model": "agent-m", "command": agent_command("good").split()}
    common = {"brain": str(brain), "agent": agent, "mlflow": {"enabled": False}}
    answers = tmp_path / "answers"
    answer = _config(tmp_path, suite=str(public), answersDir=str(answers), **common)
    assert main(["answer", "--config", str(answer), "-q"]) == 0
    assert json.loads((answers / "answers.json").read_text())["finishedAt"] is not None
    judge = _config(
        tmp_path,
        suite=str(public),
        keys=str(keys),
        answersDir=str(answers),
        output={"dir": str(tmp_path / "split-out"), "summaryPath": str(tmp_path / "termination-log")},
        **common,
    )
    assert main(["score", "--config", str(judge), "-q"]) == 0
    two = read_result(tmp_path / "split-out")
    assert (
        main(
            [
                "run",
                str(suite),
                "--brain",
                str(brain),
                "--agent",
                "command",
                "--command",
                agent_command("good"),
                "--model",
                "agent-m",
                "--no-mlflow",
                "--out",
                str(tmp_path / "one"),
                "-q",
            ]
        )
        == 0
    )
    one = read_result(tmp_path / "one")
    assert (two.verdict, two.score, two.selection) == (one.verdict, one.score, one.selection)
    for field in ("brain_digest", "suite_digest", "judges_digest", "tickets_digest"):
        assert getattr(two.inputs, field) == getattr(one.inputs, field) is not None, field
    assert two.inputs.public_digest is not None and two.inputs.key_digest is not None
    summary = RunSummary.model_validate_json((tmp_path / "termination-log").read_text())
    assert summary.inputs == two.inputs
    cell = two.tickets[0].repetitions[0]
    assert cell.wall_seconds is not None and cell.started_at is not None and cell.exit_code == 0


def test_the_answer_phase_refuses_answer_keys(suite: Path, brain: Path, tmp_path: Path) -> None:
    public, keys = split(suite, tmp_path)
    config = _config(tmp_path, suite=str(public), keys=str(keys), answersDir=str(tmp_path / "a"))
    process = subprocess.run(
        [*ASSAY, "answer", "--config", str(config)], check=False, capture_output=True, text=True
    )
    assert process.returncode == 2 and "never takes answer keys" in process.stderr
    assert not (tmp_path / "a").exists()


def test_a_deadline_still_ends_in_a_verdict(suite: Path, brain: Path, tmp_path: Path) -> None:
    public, keys = split(suite, tmp_path)
    answers = tmp_path / "answers"
    code = main(
        [
            "answer",
            str(public),
            "--brain",
            str(brain),
            "--agent",
            "command",
            "--command",
            agent_command("sleep", 30),
            "--model",
            "m",
            "-j",
            "1",
            "--tickets",
            "T-1,T-2",
            "--deadline",
            "1",
            "--answers-out",
            str(answers),
            "-q",
        ]
    )
    assert code == 0
    assert "deadline" in json.loads((answers / "answers.json").read_text())["stopped"]
    assert (
        main(
            [
                "score",
                str(public),
                "--keys",
                str(keys),
                "--answers",
                str(answers),
                "--tickets",
                "T-1,T-2",
                "--out",
                str(tmp_path / "out"),
                "-q",
            ]
        )
        == 1
    )
    result = read_result(tmp_path / "out")
    errors = [c.error for t in result.tickets for c in t.repetitions]
    assert result.verdict == "Blocked" and all(e and "deadline (1 s)" in e for e in errors), errors


def test_the_judge_phase_in_a_job_exits_0_on_blocked_only_with_a_written_summary(
    suite: Path, brain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In a Job only "could not run" may fail the pod (blockedExitCode 0): a Blocked verdict exits 0 and
    # travels in the RunSummary. Without that setting, Blocked is exit 1 as on a terminal; and the setting
    # counts only in the operator's Job (ASSAY_JOB=1), never from a command line.
    public, keys = split(suite, tmp_path)
    agent = {"kind": "command", "model": "agent-m", "command": agent_command("sleep", 30).split()}
    common = {"brain": str(brain), "agent": {**agent, "timeoutSeconds": 1}, "mlflow": {"enabled": False}}
    answers = tmp_path / "answers"
    answer = _config(tmp_path, suite=str(public), answersDir=str(answers), tickets=["T-1"], **common)
    assert main(["answer", "--config", str(answer), "-q"]) == 0
    for in_job, blocked_exit_code, expected in ((True, 0, 0), (True, 1, 1), (False, 0, 1)):
        if in_job:
            monkeypatch.setenv("ASSAY_JOB", "1")
        else:
            monkeypatch.delenv("ASSAY_JOB", raising=False)
        out = tmp_path / f"out-{blocked_exit_code}-{in_job}"
        judge = _config(
            tmp_path,
            suite=str(public),
            keys=str(keys),
            answersDir=str(answers),
            tickets=["T-1"],
            output={
                "dir": str(out),
                "summaryPath": str(tmp_path / f"termination-log-{blocked_exit_code}-{in_job}"),
                "blockedExitCode": blocked_exit_code,
            },
            **common,
        )
        assert main(["score", "--config", str(judge), "-q"]) == expected
        summary = (tmp_path / f"termination-log-{blocked_exit_code}-{in_job}").read_text()
        assert RunSummary.model_validate_json(summary).verdict == "Blocked"


def test_a_killed_answer_phase_still_ends_in_a_verdict(suite: Path, brain: Path, tmp_path: Path) -> None:
    public, keys = split(suite, tmp_path)
    answers = tmp_path / "answers"
    process = subprocess.Popen(
        [
            *ASSAY,
            "answer",
            str(public),
            "--brain",
            str(brain),
            "--agent",
            "command",
            "--command",
            agent_command("sleep", 30),
            "--model",
            "m",
            "--answers-out",
            str(answers),
            "-q",
        ],
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (answers / "answers.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # as an OOM kill or the Job's deadline would
        process.wait()
    assert (
        main(
            [
                "score",
                str(public),
                "--keys",
                str(keys),
                "--answers",
                str(answers),
                "--out",
                str(tmp_path / "out"),
                "-q",
            ]
        )
        == 1
    )
    result = read_result(tmp_path / "out")
    errors = {c.error for t in result.tickets for c in t.repetitions}
    assert result.verdict == "Blocked"
    assert errors == {
        "the answer phase never reached this cell: it did not finish (killed, out of memory or out of time?)"
    }


def test_gate_overrides_and_the_selection_are_in_the_digests(suite: Path) -> None:
    def inputs(**fields: object) -> tuple[str, str | None]:
        config = RunConfig.model_validate({"suite": str(suite), **fields})
        digests = prepare(config).inputs()
        return digests.judges_digest, digests.tickets_digest

    base = inputs()
    assert inputs(gate={"minScore": 0.5})[0] != base[0]
    assert inputs(gate={"ticketFloor": 0.5})[0] != base[0]
    assert inputs(gate={"minPassHatK": 1.0})[0] != base[0]
    assert inputs(gate={"thresholds": {"kb": 0.5}})[0] != base[0]
    assert inputs(gate={"minScore": 0.9})[0] == base[0]  # the suite's own value: the same gate
    assert inputs(tickets="validation")[1] != base[1]
    assert inputs(tickets=["T-1", "T-3", "T-5"]) == inputs(tickets="validation")  # same ids, same digest
    assert inputs(tickets=["T-1"])[1] != inputs(tickets=["T-3"])[1]


MODEL_JUDGE = """\
  - {name: quality, type: model, weight: 0.2, threshold: 4, samples: 1, rubric: "5: correct."}
"""


def _add_model_judge(suite: Path) -> None:
    text = (suite / "suite.yaml").read_text().replace("gate:", MODEL_JUDGE + "gate:")
    (suite / "suite.yaml").write_text(text)


def test_a_judge_on_the_agents_model_is_a_warning_or_an_error(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    _add_model_judge(suite)
    grade = Reply(content=json.dumps({"score": 5, "reason": "fine"}))
    args = [
        "run",
        str(suite),
        "--brain",
        str(brain),
        "--agent",
        "command",
        "--command",
        agent_command("good"),
        "--model",
        "same-m",
        "--judge-model",
        "same-m",
        "--no-mlflow",
        "--tickets",
        "T-1",
        "-q",
    ]
    with ChatServer(lambda body: grade) as server:
        assert main([*args, "--gateway", server.url, "--out", str(tmp_path / "out")]) == 0
    result = read_result(tmp_path / "out")
    assert len(result.warnings) == 1 and "'same-m'" in result.warnings[0]
    assert "not an independent judge" in (tmp_path / "out" / "report.html").read_text()
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text.replace("gate:", "requireDistinctJudgeModel: true\ngate:"))
    process = subprocess.run(
        [*ASSAY, *args, "--out", str(tmp_path / "strict")], check=False, capture_output=True, text=True
    )
    assert process.returncode == 2 and "requireDistinctJudgeModel" in process.stderr
    assert not (tmp_path / "strict").exists()  # refused before any agent ran


def test_tokens_reach_the_gateway_as_bearer_tokens_and_nothing_else(
    suite: Path,
    brain: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    _add_model_judge(suite)
    public, keys = split(suite, tmp_path)
    agent_token, judge_token = "agent-token-3c9d1e", "judge-token-b51f07"
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "gateway").write_text(agent_token + "\n")
    (secrets / "judge").write_text(judge_token + "\n")

    def reply(body: dict[str, object]) -> Reply:
        messages = body["messages"]
        assert isinstance(messages, list)
        if str(messages[0]["content"]).startswith("You grade"):
            return Reply(content=json.dumps({"score": 5, "reason": "fine"}))
        return Reply(
            content="## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nDone.\n"
        )

    with ChatServer(reply) as server:
        answers = tmp_path / "answers"
        common = {
            "brain": str(brain),
            "agent": {"kind": "chat", "model": "agent-m"},
            "judgeModel": "judge-m",
            "gateway": server.url,
            "tickets": ["T-1", "T-2"],
            "mlflow": {"enabled": False},
        }
        # The answer phase holds only the gateway token, the judge phase only the judge token.
        monkeypatch.setenv("ASSAY_GATEWAY_TOKEN_FILE", str(secrets / "gateway"))
        answer = _config(tmp_path, suite=str(public), answersDir=str(answers), **common)
        assert main(["answer", "--config", str(answer)]) == 0
        monkeypatch.delenv("ASSAY_GATEWAY_TOKEN_FILE")
        monkeypatch.setenv("ASSAY_JUDGE_GATEWAY_TOKEN_FILE", str(secrets / "judge"))
        out = tmp_path / "out"
        judge = _config(
            tmp_path,
            suite=str(public),
            keys=str(keys),
            answersDir=str(answers),
            output={"dir": str(out), "summaryPath": str(tmp_path / "termination-log")},
            **common,
        )
        assert main(["score", "--config", str(judge)]) == 0
    seen = [
        (str(body["messages"][0]["content"]).startswith("You grade"), headers.get("authorization"))
        for body, headers in zip(server.requests, server.headers, strict=True)
    ]
    assert {auth for is_judge, auth in seen if not is_judge} == {f"Bearer {agent_token}"}
    assert {auth for is_judge, auth in seen if is_judge} == {f"Bearer {judge_token}"}
    assert len(seen) == 2 + 2  # two answers, one grade each
    captured = capfd.readouterr()
    everywhere = "\n".join(
        [
            all_text(out),
            all_text(answers),
            (tmp_path / "termination-log").read_text(),
            answer.read_text(),
            judge.read_text(),
            captured.out,
            captured.err,
        ]
    )
    assert "See [KB-1]" in everywhere  # the search does look at the outputs
    assert agent_token not in everywhere and judge_token not in everywhere


def test_a_link_planted_in_the_answers_tree_is_refused_not_followed(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """An agent can write into the answers tree; a link there would be resolved where the judge reads it,
    which is where the keys are mounted. The judge phase reads plain files only."""
    with_canary(suite)
    public, keys = split(suite, tmp_path)
    answers = tmp_path / "answers"
    assert main(["answer", str(public), "--brain", str(brain), "--agent", "command", "--command",
                 agent_command("good"), "--model", "m", "--tickets", "T-1,T-2", "--answers-out", str(answers),
                 "-q"]) == 0  # fmt: skip
    planted = answers / "T-1" / "1" / "answer.md"
    planted.unlink()
    planted.symlink_to(keys)  # what a cheating agent would aim at the judge's mount of the key
    (answers / "T-2" / "1").rename(answers / "T-2" / "elsewhere")
    (answers / "T-2" / "1").symlink_to(answers / "T-2" / "elsewhere")
    assert main(["score", str(public), "--keys", str(keys), "--answers", str(answers), "--tickets", "T-1,T-2",
                 "--out", str(tmp_path / "out"), "-q"]) == 1  # fmt: skip
    result = read_result(tmp_path / "out")
    cells = {t.id: t.repetitions[0] for t in result.tickets}
    assert cells["T-1"].answer is None and "refused" in (cells["T-1"].error or "")
    assert cells["T-2"].answer is None and "refused" in (cells["T-2"].error or "")
