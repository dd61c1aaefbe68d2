"""Fail-closed: a store that refuses part of an evaluation's logging leaves no run that counts as logged,
the result says why, and `requireMlflow` blocks the verdict. The stores are real and fail for real: a
SQLite database whose trigger refuses one table's rows of the test's experiment, used directly and behind
the real `mlflow server` the MLflow tests share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from mlflow import MlflowClient

pytestmark = pytest.mark.mlflow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
EXPERIMENT = "refusing"


def refuse(database: Path, table: str, experiment: str) -> None:
    """From now on `table` refuses the rows of `experiment` (a trigger: the store's own database fails)."""
    with sqlite3.connect(database) as db:
        db.execute(
            f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} "
            f"WHEN NEW.experiment_id = (SELECT experiment_id FROM experiments WHERE name = '{experiment}') "
            f"BEGIN SELECT RAISE(ABORT, 'the store refuses {table}'); END"
        )


def refusing_database(path: Path, table: str) -> str:
    """A SQLite store with MLflow's tables, whose `table` refuses the test experiment's rows; its URI."""
    uri = f"sqlite:///{path}"
    MlflowClient(tracking_uri=uri).create_experiment(EXPERIMENT)  # MLflow makes its tables first
    refuse(path, table, EXPERIMENT)
    return uri


def run_example(out: Path, uri: str, *extra: str) -> tuple[int, Result]:
    code = main(
        [
            *("run", str(EXAMPLE), "--brain", str(EXAMPLE / "brains" / "v1"), "--agent", "replay"),
            *("--answers", str(EXAMPLE / "answers" / "v1"), "--tickets", "T-001,T-002"),
            *("--judge-model", "example-judge", "--cassettes", str(EXAMPLE / "cassettes")),
            *("--out", str(out), "-q", "--mlflow", uri, "--experiment", EXPERIMENT, *extra),
        ]
    )
    return code, Result.model_validate_json((out / "result.json").read_text())


def check_nothing_counts(uri: str, result: Result) -> None:
    """Not logged, and why; every run an attempt began ended FAILED, none FINISHED."""
    assert not result.mlflow.logged and result.mlflow.run_id is None
    assert (result.mlflow.error or "").startswith("after 3 attempts: logging stopped part-way")
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(EXPERIMENT)
    runs = client.search_runs([experiment.experiment_id])
    assert [run.info.status for run in runs] == ["FAILED"] * 3


def test_refused_spans_block_when_mlflow_is_required(tmp_path: Path) -> None:
    uri = refusing_database(tmp_path / "mlflow.db", "spans")
    code, result = run_example(tmp_path / "out", uri, "--require-mlflow")
    assert code == 1 and result.verdict == "Blocked"
    rule = next(r for r in result.rules if r.name == "mlflow")
    assert not rule.passed and "MLflow logging failed" in rule.detail
    check_nothing_counts(uri, result)
    assert "the store refuses spans" in (result.mlflow.error or "")


def test_refused_feedback_is_recorded_and_the_verdict_stands(tmp_path: Path) -> None:
    uri = refusing_database(tmp_path / "mlflow.db", "assessments")
    code, result = run_example(tmp_path / "out", uri)
    assert code == 0 and result.verdict == "Pass"  # logging is not required: the failure is recorded
    check_nothing_counts(uri, result)  # MLflow words the refusal as a trace that "no longer exists"


def test_a_server_whose_store_refuses_spans_blocks_when_required(
    tmp_path: Path, mlflow_server_with_store: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")  # the runner's own attempts, not urllib3's
    url, database = mlflow_server_with_store
    MlflowClient(tracking_uri=url).create_experiment(EXPERIMENT)
    refuse(database, "spans", EXPERIMENT)  # only this experiment's: the server is shared
    code, result = run_example(tmp_path / "out", url, "--require-mlflow")
    assert code == 1 and result.verdict == "Blocked"
    check_nothing_counts(url, result)
