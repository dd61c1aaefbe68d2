"""One MLflow run per evaluation, read back from real stores (SQLite, and a real `mlflow server`): its params,
metrics and tags, a trace per ticket, every judge's verdict on every cell."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from mlflow import MlflowClient
from tests.mlflow.readback import EXAMPLE_JUDGE_PARAMS, check_run, check_traces

pytestmark = pytest.mark.mlflow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"


def run_example(brain: str, out: Path, *extra: str) -> tuple[int, Result]:
    code = main(
        [
            "run",
            str(EXAMPLE),
            "--brain",
            str(EXAMPLE / "brains" / brain),
            "--agent",
            "replay",
            "--answers",
            str(EXAMPLE / "answers" / brain),
            "--judge-model",
            "example-judge",
            "--cassettes",
            str(EXAMPLE / "cassettes"),
            "--run-name",
            f"example-{brain}",
            "--out",
            str(out),
            "-q",
            *extra,
        ]
    )
    return code, Result.model_validate_json((out / "result.json").read_text())


RUN_PARAMS = {
    "suite": "support-desk",
    "tickets": "16",
    "repetitions": "1",
    "gate.minScore": "0.9",
    "gate.ticketFloor": "0.7",
    "passCriterion": "allJudgesThreshold",
    **EXAMPLE_JUDGE_PARAMS,
    # How `assay run` ran it.
    "selection": "all",
    "agent": "replay",
    "concurrency": "4",
    "judgeModel": "example-judge",
    "timeoutSeconds": "600.0",
}


def check_logged(uri: str, result: Result, verdict: str) -> None:
    assert result.verdict == verdict
    check_run(uri, result, RUN_PARAMS)
    check_traces(uri, result)


def test_sqlite_store(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    code, result = run_example("v1", tmp_path / "out", "--mlflow", uri)
    assert code == 0
    check_logged(uri, result, "Pass")


def test_mlflow_server_over_http(tmp_path: Path, mlflow_server: str) -> None:
    code, result = run_example(
        "v0", tmp_path / "out", "--mlflow", mlflow_server, "--experiment", "assay-tests"
    )
    assert code == 1
    check_logged(mlflow_server, result, "Blocked")
    experiment = MlflowClient(tracking_uri=mlflow_server).get_experiment(result.mlflow.experiment_id)
    assert experiment.name == "assay-tests"


def test_unreachable_store_keeps_the_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    code, result = run_example("v1", tmp_path / "out", "--mlflow", "http://127.0.0.1:9")
    assert code == 0 and result.verdict == "Pass"
    assert not result.mlflow.logged and "after 3 attempts" in (result.mlflow.error or "")


def test_unreachable_store_blocks_when_required(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    code, result = run_example("v1", tmp_path / "out", "--mlflow", "http://127.0.0.1:9", "--require-mlflow")
    assert code == 1 and result.verdict == "Blocked"
    mlflow_rule = next(r for r in result.rules if r.name == "mlflow")
    assert not mlflow_rule.passed and "MLflow logging failed" in mlflow_rule.detail


def test_score_logs_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "score",
                str(EXAMPLE),
                "--answers",
                str(EXAMPLE / "answers" / "v1"),
                "--judge-model",
                "example-judge",
                "--cassettes",
                str(EXAMPLE / "cassettes"),
                "--out",
                "a",
                "-q",
            ]
        )
        == 0
    )
    assert not (tmp_path / "mlflow.db").exists()
    assert (
        main(
            [
                "score",
                str(EXAMPLE),
                "--answers",
                str(EXAMPLE / "answers" / "v1"),
                "--judge-model",
                "example-judge",
                "--cassettes",
                str(EXAMPLE / "cassettes"),
                "--out",
                "b",
                "-q",
                "--mlflow",
            ]
        )
        == 0
    )
    assert (tmp_path / "mlflow.db").exists()
    result = Result.model_validate_json((tmp_path / "b" / "result.json").read_text())
    assert result.mlflow.logged


TICKETS = ["T-001", "T-002", "T-003", "T-004"]


def two_repetitions(tree: Path) -> None:
    """Repetition 1 the good brain's answers, repetition 2 the weak one's; T-003's second answer is missing
    (a cell error) and T-004's was edited after the model judge's calls were recorded (a judge error)."""
    for ticket in TICKETS:
        for rep, brain in ((1, "v1"), (2, "v0")):
            cell = tree / ticket / str(rep)
            cell.mkdir(parents=True)
            if (ticket, rep) != ("T-003", 2):
                (cell / "answer.md").write_text(
                    (EXAMPLE / "answers" / brain / ticket / "answer.md").read_text()
                )
    edited = tree / "T-004" / "2" / "answer.md"
    edited.write_text(edited.read_text() + "\nEdited after recording.\n")


@pytest.mark.parametrize("store", ["sqlite", "server"])
def test_repetitions_share_their_tickets_trace(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    uri = (
        f"sqlite:///{tmp_path / 'mlflow.db'}"
        if store == "sqlite"
        else request.getfixturevalue("mlflow_server")
    )
    tree = tmp_path / "answers"
    two_repetitions(tree)
    code = main(
        [
            *("run", str(EXAMPLE), "--brain", str(EXAMPLE / "brains" / "v1"), "--agent", "replay"),
            *("--answers", str(tree), "--repetitions", "2", "--tickets", ",".join(TICKETS)),
            *("--judge-model", "example-judge", "--cassettes", str(EXAMPLE / "cassettes")),
            *("--run-name", "two-reps", "--out", str(tmp_path / "out"), "-q", "--mlflow", uri),
            *("--experiment", f"repetitions-{store}"),
        ]
    )
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    assert code == 1 and result.verdict == "Blocked"
    # What the test is about happened: verdicts that differ between repetitions, a cell and a judge error.
    cells = {(t.id, c.index): c for t in result.tickets for c in t.repetitions}
    assert cells[("T-003", 2)].error and not cells[("T-003", 1)].error
    assert cells[("T-004", 2)].judges["quality"].error
    assert cells[("T-001", 1)].score != cells[("T-001", 2)].score
    params = {**RUN_PARAMS, "tickets": "4", "repetitions": "2", "selection": ",".join(TICKETS)}
    check_run(uri, result, params)
    check_traces(uri, result)


def test_latency_limits_and_flaky_tickets_are_logged(tmp_path: Path) -> None:
    """The limits' settings as params and their outcome as tags (their figures as metrics: check_run), and
    the flaky tickets (repetition 1 the good brain's answers, repetition 2 the weak one's) as a tag and a
    metric."""
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLE, suite)
    text = (suite / "suite.yaml").read_text()
    limits = "  maxAnswerSeconds: 600\n  answerSecondsPercentile: {percentile: 95, maxSeconds: 600}\n"
    (suite / "suite.yaml").write_text(text.replace("  ticketFloor: 0.70\n", "  ticketFloor: 0.70\n" + limits))
    tree = tmp_path / "answers"
    two_repetitions(tree)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    main(
        [
            *("run", str(suite), "--brain", str(EXAMPLE / "brains" / "v1"), "--agent", "replay"),
            *("--answers", str(tree), "--repetitions", "2", "--tickets", ",".join(TICKETS)),
            *("--judge-model", "example-judge", "--cassettes", str(EXAMPLE / "cassettes")),
            *("--run-name", "limits", "--out", str(tmp_path / "out"), "-q", "--mlflow", uri),
        ]
    )
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    latency = {r.name: r for r in result.rules if r.name in ("maxAnswerSeconds", "answerSecondsPercentile")}
    assert set(latency) == {"maxAnswerSeconds", "answerSecondsPercentile"}
    # Replayed answers from a hand-made tree carry no agent time: both rules block, saying so.
    assert all(not r.passed and r.value is None for r in latency.values())
    assert all("8 cell(s) without a recorded wall time" in r.detail for r in latency.values())
    assert result.repetitions.flaky  # the two brains disagree on some ticket
    params = {
        **RUN_PARAMS,
        "tickets": "4",
        "repetitions": "2",
        "selection": ",".join(TICKETS),
        "gate.maxAnswerSeconds": "600.0",
        "gate.answerSecondsPercentile": "{'percentile': 95.0, 'maxSeconds': 600.0}",
    }
    check_run(uri, result, params)
    run = MlflowClient(tracking_uri=uri).get_run(result.mlflow.run_id or "")
    assert run.data.tags["assay.rule.maxAnswerSeconds"] == "fail"
    assert run.data.tags["assay.flaky"] == ", ".join(result.repetitions.flaky)
    assert run.data.metrics["flaky_tickets"] == len(result.repetitions.flaky)
