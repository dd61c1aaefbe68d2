"""`assay run` end to end with real agent processes: isolation, crashes, timeouts, concurrency, outputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result, RunSummary
from tests.runner.conftest import AGENT, agent_command


def run(suite: Path, brain: Path, out: Path, mode: str, *extra: str) -> tuple[int, Result]:
    code = main(
        [
            "run",
            "--no-mlflow",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            "command",
            "--model",
            "m",
            "--command",
            agent_command(mode),
            "--out",
            str(out),
            "-q",
            *extra,
        ]
    )
    return code, Result.model_validate_json((out / "result.json").read_text())


def test_good_agent_passes_with_outputs_and_digests(suite: Path, brain: Path, tmp_path: Path) -> None:
    summary_path = tmp_path / "termination-log"
    code, result = run(suite, brain, tmp_path / "out", "good", "--summary-path", str(summary_path))
    assert code == 0 and result.verdict == "Pass" and result.score == pytest.approx(1.0)
    assert len(result.tickets) == 6 and all(r.exit_code == 0 for t in result.tickets for r in t.repetitions)
    assert result.inputs.brain_digest and result.inputs.brain_digest.startswith("sha256:")
    summary = summary_path.read_bytes()
    assert len(summary) <= 4096 and RunSummary.model_validate_json(summary).verdict == "Pass"


def test_brain_digest_changes_with_the_brain(suite: Path, brain: Path, tmp_path: Path) -> None:
    _, first = run(suite, brain, tmp_path / "a", "good", "--tickets", "T-1")
    (brain / "style.md").write_text("Be very brief.\n")
    _, second = run(suite, brain, tmp_path / "b", "good", "--tickets", "T-1")
    assert first.inputs.brain_digest != second.inputs.brain_digest
    assert first.inputs.suite_digest == second.inputs.suite_digest


def test_crash_is_scored_not_skipped_and_blocks(suite: Path, brain: Path, tmp_path: Path) -> None:
    code, result = run(suite, brain, tmp_path / "out", "crash", "--tickets", "T-1,T-2")
    assert code == 1 and result.verdict == "Blocked"
    cell = result.tickets[0].repetitions[0]
    assert cell.exit_code == 3 and cell.judges["exit_code"].score == 0.0
    assert cell.error == "the agent left no answer (exit code 3)"
    assert not result.judges["exit_code"].passed


def test_timeout_kills_the_agent_and_is_scored(suite: Path, brain: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    os.environ["ASSAY_TEST_PIDS"] = str(pids)  # the agent sees only what the runner passes: not this
    try:
        code, result = run(suite, brain, tmp_path / "out", "hang", "--tickets", "T-1", "--timeout", "1")
    finally:
        del os.environ["ASSAY_TEST_PIDS"]
    assert code == 1
    cell = result.tickets[0].repetitions[0]
    assert cell.exit_code == 124 and "timed out" in cell.judges["exit_code"].reason
    assert not pids.exists()  # the runner's environment did not leak into the agent's


def test_agent_sees_only_its_workspace_and_a_clean_environment(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    os.environ["OPENAI_API_KEY"] = "sk-must-not-leak"
    try:
        _, result = run(
            suite, brain, tmp_path / "out", "env", "--tickets", "T-1", "--gateway", "http://gw/v1"
        )
    finally:
        del os.environ["OPENAI_API_KEY"]
    answer = result.tickets[0].repetitions[0].answer or ""
    env_line, files_line = answer.splitlines()
    names = set(env_line.split()[1:])
    assert "OPENAI_API_KEY" not in names and "ASSAY_TEST_EVENTS" not in names
    assert {"ASSAY_GATEWAY_URL", "ASSAY_MODEL", "HOME", "PATH"} <= names
    files = set(files_line.split()[1:])
    assert files == {
        "AGENTS.md",
        "brain",
        "brain/AGENTS.md",
        "brain/style.md",
        "kb",
        "kb/KB-1.md",
        "prompt.md",
    }


def test_agent_that_modifies_the_brain_is_blocked(suite: Path, brain: Path, tmp_path: Path) -> None:
    code, result = run(suite, brain, tmp_path / "out", "tamper", "--tickets", "T-1")
    assert code == 1
    assert result.tickets[0].repetitions[0].error == "the agent modified its read-only brain/ or kb/ files"
    assert (brain / "AGENTS.md").read_text() == "Answer from the KB.\ncite: KB-1\n"  # the source is untouched


def events(out: Path) -> list[tuple[str, str, str]]:
    """The fake agent's start/end events, from every cell's transcript (its stderr): (kind, ticket, time)."""
    result = Result.model_validate_json((out / "result.json").read_text())
    found = []
    for ticket in result.tickets:
        for cell in ticket.repetitions:
            for line in (cell.transcript or "").splitlines():
                if line.startswith("event "):
                    kind, name, when = line.split()[1:]
                    found.append((kind, name, when))
    return found


def test_concurrency_is_bounded(suite: Path, brain: Path, tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text(f"#!/bin/sh\nexport ASSAY_TEST_EVENTS=stderr\nexec {agent_command('sleep', 0.3)}\n")
    script.chmod(0o755)
    code = main(
        [
            "run",
            "--no-mlflow",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            "command",
            "--model",
            "m",
            "--command",
            f"{script} {AGENT}",  # named: the sandbox lets a cell read only the programs its command names
            "--concurrency",
            "2",
            "-k",
            "2",
            "--out",
            str(tmp_path / "out"),
            "-q",
        ]
    )
    assert code == 0
    running = peak = 0
    lines = sorted((float(t), kind) for kind, _, t in events(tmp_path / "out"))
    for _, kind in lines:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    assert len(lines) == 24 and peak == 2


def test_repetitions_are_queued_repetition_major(suite: Path, brain: Path, tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text(f"#!/bin/sh\nexport ASSAY_TEST_EVENTS=stderr\nexec {agent_command('good')}\n")
    script.chmod(0o755)
    assert (
        main(
            [
                "run",
                "--no-mlflow",
                str(suite),
                "--brain",
                str(brain),
                "--agent",
                "command",
                "--model",
                "m",
                "--command",
                f"{script} {AGENT}",  # named: a cell reads only the programs its command names
                "--concurrency",
                "1",
                "-k",
                "2",
                "--out",
                str(tmp_path / "out"),
                "-q",
            ]
        )
        == 0
    )
    starts = [ticket for kind, ticket, _ in sorted(events(tmp_path / "out"), key=lambda e: float(e[2]))
              if kind == "start"]  # fmt: skip
    assert starts[:6] == [f"T-{i}" for i in range(1, 7)] and starts[6:] == starts[:6]


def test_bad_agent_template_is_bad_input(
    suite: Path, brain: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "run",
            "--no-mlflow",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            "command",
            "--model",
            "m",
            "--command",
            "agent {prompt} {nope}",
            "-q",
        ]
    )
    assert code == 2 and "unknown placeholder(s) {nope}" in capsys.readouterr().err


def test_run_from_a_config_file(suite: Path, brain: Path, tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        f"suite: {suite}\nbrain: {brain}\ntickets: validation\n"
        f"agent: {{kind: command, model: m, command: {json.dumps(agent_command('good').split())}}}\n"
        f"output: {{dir: out, summaryPath: {tmp_path / 'termination-log'}}}\n"
    )
    assert main(["run", "--no-mlflow", "--config", str(config), "-q"]) == 0
    result = Result.model_validate_json(
        (tmp_path / "out" / "result.json").read_text()
    )  # relative to the file
    assert [t.id for t in result.tickets] == ["T-1", "T-3", "T-5"]
    assert RunSummary.model_validate_json((tmp_path / "termination-log").read_bytes()).counts.tickets == 3


def test_config_file_errors_name_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("suite: s\nconcurrency: 0\nagnet: {kind: chat}\n")
    assert main(["run", "--no-mlflow", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "run.yaml:2: concurrency: Input should be greater than or equal to 1" in err
    assert "run.yaml:3: agnet: unknown key" in err


def test_sigterm_stops_cleanly_keeps_finished_cells_and_blocks(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    script = tmp_path / "agent.sh"
    # T-1 and T-2 answer at once; the others hang until the run is stopped.
    script.write_text(
        '#!/bin/sh\ncase "$(head -1 prompt.md)" in\n'
        f"  *T-1*|*T-2*) exec {agent_command('good')} ;;\n  *) exec {agent_command('hang')} ;;\nesac\n"
    )
    script.chmod(0o755)
    log = tmp_path / "stderr.log"
    with log.open("w") as stderr_file:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "assay_runner.cli",
                "run",
                "--no-mlflow",
                str(suite),
                "--brain",
                str(brain),
                "--agent",
                "command",
                "--model",
                "m",
                "--command",
                f"{script} {AGENT}",  # named: a cell reads only the programs its command names
                "--concurrency",
                "6",
                "--out",
                str(out),
            ],
            stdout=subprocess.DEVNULL,
            stderr=stderr_file,
            text=True,
        )
        deadline = time.monotonic() + 60
        # Stop once both quick tickets are judged (the plain progress log says so) and four agents hang.
        while time.monotonic() < deadline:
            text = log.read_text()
            hanging = subprocess.run(
                ["pgrep", "-f", "fake_agent.py hang"], capture_output=True, text=True, check=False
            ).stdout.split()
            if "T-1#1 exit 0" in text and "T-2#1 exit 0" in text and len(hanging) >= 4:
                break
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    assert process.returncode == 1, log.read_text()
    result = Result.model_validate_json((out / "result.json").read_text())
    by_id = {t.id: t for t in result.tickets}
    assert by_id["T-1"].repetitions[0].error is None and by_id["T-1"].score == pytest.approx(1.0)
    assert by_id["T-6"].repetitions[0].error is not None and "incomplete" in by_id["T-6"].repetitions[0].error
    assert result.verdict == "Blocked" and any("incomplete" in reason for reason in result.reasons)
    leftover = subprocess.run(
        ["pgrep", "-f", "fake_agent.py hang"], capture_output=True, text=True, check=False
    )
    assert leftover.stdout.strip() == ""  # every agent process group was killed


def test_an_answer_over_the_limit_is_never_read_in_a_local_run(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """A runaway agent's 200 MB answer.md (sparse: it costs no disk) is the cell's error, not an OOM."""
    big = f"{sys.executable} -c \"open('answer.md','wb').truncate(200 << 20)\""
    code = main(
        ["run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "command", "--model", "m",
         "--command", big, "--tickets", "T-1", "--out", str(tmp_path / "out")]
    )  # fmt: skip
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    cell = result.tickets[0].repetitions[0]
    assert code == 1 and cell.answer is None
    assert "answer.md is 209,715,200 bytes, over the limit of 8,388,608 (limits.maxAnswerBytes)" in (
        cell.error or ""
    )
