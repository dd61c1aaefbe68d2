"""Every loose input refused up front (issue 42): exit 2, a clear error naming what and where, no traceback,
nothing written, every problem of a file listed at once. The crashes happened in a real `assay` process
(after judging, for some), so these run one: real files, real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

NOT_UTF8 = os.fsdecode(b"bad\xff")
SUITE: dict[str, Any] = {
    "name": "loose",
    "judges": [
        {"name": "policy", "type": "policy", "weight": 1, "threshold": 1, "forbidden": ["reinstall"]},
        {"name": "format", "type": "format", "weight": 0, "threshold": 0, "sections": ["Summary"]},
    ],
    "tickets": [{"id": "T-1", "split": "validation", "question": "Sync?", "key": {"kb": ["KB-1"]}}],
}


def assay(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        timeout=300,
    )
    assert "Traceback" not in done.stderr and "could not run" not in done.stderr, done.stderr
    return done.returncode, done.stderr


@pytest.fixture
def root(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "kb" / "KB-1.md").write_text("# KB-1\nClear the cache.\n")
    (suite / "suite.yaml").write_text(yaml.safe_dump(SUITE))
    answers = tmp_path / "answers" / "T-1"
    answers.mkdir(parents=True)
    (answers / "answer.md").write_text("## Summary\nClear the cache (KB-1).")
    (tmp_path / "brain").mkdir()
    (tmp_path / "brain" / "AGENTS.md").write_text("Answer briefly.")
    return tmp_path


def config(root: Path, text: str = "", **fields: Any) -> Path:
    """A RunConfig (replay of the answers, no MLflow); `text` is appended as written (raw YAML)."""
    document: dict[str, Any] = {
        "suite": "suite",
        "agent": {"kind": "replay", "answers": "answers"},
        "mlflow": {"enabled": False},
        "output": {"dir": "out"},
        **fields,
    }
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(document) + text)
    return path


# ---------------------------------------------------------------------------------------- file names


def test_a_kb_file_name_that_is_not_utf8_is_refused_by_validate_split_score_and_run(root: Path) -> None:
    (root / "suite" / "kb" / f"{NOT_UTF8}.md").write_text("# an article\n")
    named = "suite/kb/bad\\xff.md: file name is not UTF-8"
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2 and named in err, err
    code, err = assay("split", "suite", "--public", "public", "--keys", "keys.yaml", cwd=root)
    assert code == 2 and named in err and not (root / "public").exists(), err
    code, err = assay("score", "suite", "--answers", "answers", "--out", "out", "-q", cwd=root)
    assert code == 2 and named in err and not (root / "out").exists(), err
    code, err = assay("run", "--config", str(config(root)), "-q", cwd=root)
    assert code == 2 and named in err and not (root / "out").exists(), err


def test_a_brain_file_name_that_is_not_utf8_is_refused_before_any_agent_runs(root: Path) -> None:
    (root / "brain" / f"{NOT_UTF8}.md").write_text("notes")
    code, err = assay("run", "--config", str(config(root, brain="brain")), "-q", cwd=root)
    assert code == 2 and "brain/bad\\xff.md: file name is not UTF-8" in err, err
    assert not (root / "out").exists()


# ------------------------------------------------------------------------------------- the RunConfig

REFUSED_CONFIGS = [
    pytest.param(
        {"output": {"dir": "out\0x"}}, "output.dir: must not contain a control character", id="nul-out"
    ),
    pytest.param({"runName": "a\0b"}, "runName: must not contain a control character", id="nul-run-name"),
    pytest.param({"runName": "a\nb"}, "runName: must not contain a control character", id="newline-run-name"),
    pytest.param({"runName": "r" * 257}, "runName: String should have at most 256", id="long-run-name"),
    pytest.param(
        {"gateway": "file:///etc/passwd"}, "gateway: must be an http:// or https:// URL", id="file-url"
    ),
    pytest.param({"gateway": "not a url"}, "gateway: must be an http:// or https:// URL", id="not-a-url"),
    pytest.param({"gateway": "http:///v1"}, "gateway: must be an http:// or https:// URL", id="no-host"),
    pytest.param({"gateway": "http://h:99999/v1"}, "gateway: not a URL (Port out of range", id="bad-port"),
    pytest.param({"brain": "brain\0"}, "brain: must not contain a control character", id="nul-brain"),
    pytest.param({"kb": "k" * 5000}, "kb: a path must be at most 4095 bytes", id="long-path"),
    pytest.param({"mlflow": {"enabled": False, "experiment": "a\tb"}}, "mlflow.experiment", id="tab-exp"),
    pytest.param(
        {"agent": {"kind": "command", "model": "m", "command": ["echo", "a\0b"]}},
        "agent.command[1]: must not contain a NUL",
        id="nul-argv",
    ),
    pytest.param(
        {"prices": {"m": {"inputPerMillion": 1e308, "outputPerMillion": 1}}},
        "prices.m.inputPerMillion: Input should be less than or equal to 1000000",
        id="price-1e308",
    ),
    # YAML's `true` equals 1 in Python: a literal's own check would take it (found by the fuzz suite)
    pytest.param({"schemaVersion": True}, "schemaVersion: must be the number 1, not true", id="bool-version"),
]


@pytest.mark.parametrize(("fields", "named"), REFUSED_CONFIGS)
def test_a_run_config_value_that_becomes_a_path_url_or_name_is_refused_before_any_work(
    root: Path, fields: dict[str, Any], named: str
) -> None:
    code, err = assay("run", "--config", str(config(root, **fields)), "-q", cwd=root)
    assert code == 2 and "config.yaml:" in err and named in err, err
    assert not (root / "out").exists()  # refused before any work: judging never started


def test_every_problem_of_a_run_config_is_listed_at_once(root: Path) -> None:
    path = config(root, runName="a\0b", gateway="not a url", output={"dir": "out\0"})
    code, err = assay("run", "--config", str(path), "-q", cwd=root)
    assert code == 2 and all(f in err for f in ("runName:", "gateway:", "output.dir:")), err


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        pytest.param(["--gateway", "file:///etc/passwd"], "--gateway", id="gateway"),
        pytest.param(["--run-name", "a\nb"], "--run-name: must not contain a control", id="run-name"),
        pytest.param(["--mlflow", "--experiment", "e" * 300], "--experiment: String should have", id="exp"),
    ],
)
def test_flags_are_checked_as_a_run_config_is(root: Path, flags: list[str], named: str) -> None:
    code, err = assay("score", "suite", "--answers", "answers", "--out", "out", "-q", *flags, cwd=root)
    assert code == 2 and f"command line: {named}" in err, err
    assert not (root / "out").exists()


def test_the_gateway_from_the_environment_is_checked_too(root: Path) -> None:
    env = {"ASSAY_GATEWAY_URL": "file:///etc/passwd"}
    code, err = assay("run", "--config", str(config(root)), "-q", cwd=root, env=env)
    assert code == 2 and "$ASSAY_GATEWAY_URL: must be an http:// or https:// URL" in err, err
    code, err = assay("score", "suite", "--answers", "answers", "--out", "out", "-q", cwd=root, env=env)
    assert code == 2 and "--gateway (or $ASSAY_GATEWAY_URL)" in err, err


def test_a_gateway_url_with_a_host_is_accepted(root: Path) -> None:
    # Not called (replayed answers, no model judge): accepted and the run goes on to its verdict.
    code, err = assay(
        "run", "--config", str(config(root, gateway="https://gateway.example:8443/v1")), "-q", cwd=root
    )
    assert code == 0, err


# ---------------------------------------------------------------------------------- numbers in YAML

YAML_NUMBERS = [
    pytest.param("1:30", "Input should be a valid integer (got '1:30')", id="sexagesimal"),
    pytest.param("1000000000000000000000000000000", "less than or equal to 1000000", id="ten-to-the-30"),
    pytest.param("017", "Input should be a valid integer (got '017')", id="octal"),
    pytest.param("0x1F", "Input should be a valid integer (got '0x1F')", id="hex"),
    pytest.param("0b101", "Input should be a valid integer (got '0b101')", id="binary"),
    pytest.param("1_000", "Input should be a valid integer (got '1_000')", id="underscores"),
    pytest.param("1:30.5", "Input should be a valid integer (got '1:30.5')", id="sexagesimal-float"),
    pytest.param("0", "greater than or equal to 1", id="zero"),
]


@pytest.mark.parametrize(("written", "message"), YAML_NUMBERS)
def test_max_words_must_be_a_plain_integer_in_bounds(root: Path, written: str, message: str) -> None:
    text = (root / "suite" / "suite.yaml").read_text()
    (root / "suite" / "suite.yaml").write_text(text.replace("sections:", f"maxWords: {written}\n  sections:"))
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2 and "judges[1].maxWords:" in err and message in err, err


def test_a_plain_max_words_is_read_as_written(root: Path) -> None:
    text = (root / "suite" / "suite.yaml").read_text()
    (root / "suite" / "suite.yaml").write_text(text.replace("sections:", "maxWords: 90\n  sections:"))
    assert assay("validate", "suite", cwd=root)[0] == 0


def test_a_sexagesimal_in_a_run_config_is_refused(root: Path) -> None:
    code, err = assay("run", "--config", str(config(root, text="concurrency: 1:30\n")), "-q", cwd=root)
    assert code == 2 and "concurrency: Input should be a valid integer (got '1:30')" in err, err


# -------------------------------------------------------------------------------- the suite at once


def test_a_duplicated_ticket_id_is_listed_with_the_other_errors(root: Path) -> None:
    suite = {
        **SUITE,
        "judges": [*SUITE["judges"], {"name": "words", "type": "format", "weight": 0, "threshold": 2}],
        "tickets": [
            {"id": "T-1", "split": "validation", "question": "Sync?"},
            {"id": "T-1", "split": "validation", "question": "Login?"},
            {"id": "T-1", "split": "nope", "question": "Reset?"},  # invalid itself, its id counted too
        ],
    }
    (root / "suite" / "suite.yaml").write_text(yaml.safe_dump(suite))
    (root / "suite" / "kb" / f"{NOT_UTF8}.md").write_text("# an article\n")
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2, err
    for expected in (
        "judges[2].threshold: threshold 2 is outside",
        "tickets[2].split: Input should be 'training' or 'validation'",
        "tickets[1].id: duplicate ticket id 'T-1'",
        "tickets[2].id: duplicate ticket id 'T-1'",
        "kb/bad\\xff.md: file name is not UTF-8",
    ):
        assert expected in err, err


def test_a_duplicated_ticket_id_in_a_tickets_file_is_listed_with_its_other_errors(root: Path) -> None:
    suite = {key: value for key, value in SUITE.items() if key != "tickets"} | {"ticketsFile": "tickets.yaml"}
    (root / "suite" / "suite.yaml").write_text(yaml.safe_dump(suite))
    tickets = [
        {"id": "T-1", "split": "validation", "question": "Sync?"},
        {"id": "T-1", "split": "validation", "question": "  "},
    ]
    (root / "suite" / "tickets.yaml").write_text(yaml.safe_dump({"tickets": tickets}))
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2 and "tickets[1].question" in err and "tickets[1].id: duplicate ticket id" in err, err


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        pytest.param(
            {"type": "code", "file": "judge\0.py"}, "judges[2].file: must not contain", id="nul-file"
        ),
        pytest.param({"type": "model", "rubric": "r", "model": "m\n"}, "judges[2].model:", id="model-name"),
        pytest.param(
            {"type": "model", "rubric": "r", "scale": [1, 10**9]}, "within [-1000, 1000]", id="scale"
        ),
        pytest.param(
            {"type": "model", "rubric": "r", "maxSpread": float("inf")}, "maxSpread", id="spread-inf"
        ),
        pytest.param({"type": "trajectory", "maxToolCalls": 10**30}, "maxToolCalls", id="tool-calls"),
    ],
)
def test_suite_fields_that_become_paths_names_or_bounds_are_refused(
    root: Path, judge: dict[str, Any], message: str
) -> None:
    suite = {**SUITE, "judges": [*SUITE["judges"], {"name": "extra", "weight": 0, "threshold": 0, **judge}]}
    if judge["type"] == "model":
        suite["judges"][2]["threshold"] = 1
    (root / "suite" / "suite.yaml").write_text(yaml.safe_dump(suite))
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2 and message in err, err


# ------------------------------------------------------------- files that are not files (FIFO, folder)


def test_an_input_that_is_not_a_regular_file_is_refused_not_read(root: Path) -> None:
    # A FIFO would hang the reader (it did: validate and run waited for ever), a folder named like an
    # article crashed, a link to nowhere too; every one is named in one list.
    os.mkfifo(root / "suite" / "kb" / "pipe.md")
    (root / "suite" / "kb" / "folder.md").mkdir()
    (root / "suite" / "kb" / "gone.md").symlink_to(root / "nowhere")
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2, err
    assert "kb/pipe.md: is a named pipe (FIFO), not a file" in err
    assert "kb/folder.md: is a folder, not a file" in err
    assert "kb/gone.md: a link to nowhere" in err


def test_a_run_config_or_suite_yaml_that_is_a_fifo_is_refused(root: Path) -> None:
    os.mkfifo(root / "fifo.yaml")
    code, err = assay("run", "--config", "fifo.yaml", "-q", cwd=root)
    assert code == 2 and "fifo.yaml: is a named pipe (FIFO), not a file" in err, err
    (root / "suite" / "suite.yaml").unlink()
    os.mkfifo(root / "suite" / "suite.yaml")
    code, err = assay("validate", "suite", cwd=root)
    assert code == 2 and "suite.yaml: is a named pipe (FIFO), not a file" in err, err


@pytest.mark.parametrize("brain", ["missing", "a-file", "with-a-fifo"])
def test_a_brain_that_is_not_a_folder_of_files_is_refused_before_any_agent_runs(
    root: Path, brain: str
) -> None:
    # Each of these ran the whole evaluation and blocked every cell instead (the copy into each workspace
    # failed): bad input, said once, before any work.
    if brain == "a-file":
        (root / brain).write_text("not a folder")
    elif brain == "with-a-fifo":
        (root / brain).mkdir()
        os.mkfifo(root / brain / "notes.md")
    code, err = assay("run", "--config", str(config(root, brain=brain)), "-q", cwd=root)
    expected = {
        "missing": "missing: brain folder not found",
        "a-file": "a-file: is not a folder",
        "with-a-fifo": "with-a-fifo/notes.md: is a named pipe (FIFO), not a file",
    }[brain]
    assert code == 2 and expected in err, err
    assert not (root / "out").exists()


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["gate", "fifo"], id="gate"),
        pytest.param(["compare", "fifo"], id="compare"),
        pytest.param(["report", "fifo", "--out", "report.html"], id="report"),
        pytest.param(["judge", "suite", "--question", "Sync?", "--answer", "fifo"], id="judge-answer"),
    ],
)
def test_a_fifo_given_as_a_file_is_refused_not_waited_on(root: Path, command: list[str]) -> None:
    os.mkfifo(root / "fifo")
    code, err = assay(*command, cwd=root)
    assert code == 2 and "fifo: is a named pipe (FIFO), not a file" in err, err


def test_an_evidence_key_that_is_a_fifo_is_refused(root: Path) -> None:
    os.mkfifo(root / "key")
    code, err = assay("run", "--config", str(config(root, evidence={"keyFile": "key"})), "-q", cwd=root)
    assert code == 2 and "evidence.keyFile: the evidence key file is a named pipe (FIFO)" in err, err


def test_an_answer_deadline_past_a_week_and_a_cassettes_file_are_refused(root: Path) -> None:
    code, err = assay("run", "--config", str(config(root, answerDeadlineSeconds=1e300)), "-q", cwd=root)
    assert code == 2 and "answerDeadlineSeconds: Input should be less than or equal to 604800" in err, err
    (root / "cassettes").write_text("not a folder")
    cassettes = {"dir": "cassettes", "mode": "replay"}
    code, err = assay("run", "--config", str(config(root, cassettes=cassettes)), "-q", cwd=root)
    assert code == 2 and "cassettes: cassettes.dir: is not a folder" in err, err
    assert not (root / "out").exists()
