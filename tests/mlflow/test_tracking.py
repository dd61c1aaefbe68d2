"""One MLflow run per evaluation, read back from real stores: SQLite, and a real `mlflow server`."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from mlflow import MlflowClient

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


def preview(text: str) -> str:
    return text if len(text) <= 1000 else text[:997] + "..."


def check_logged(uri: str, result: Result, verdict: str) -> None:
    client = MlflowClient(tracking_uri=uri)
    assert result.mlflow.logged and result.mlflow.run_id and result.mlflow.tracking_uri == uri
    run = client.get_run(result.mlflow.run_id)
    assert run.info.status == "FINISHED" and run.info.run_name == result.run_name
    assert run.data.tags["assay.verdict"] == verdict
    assert run.data.tags["assay.rule.score"] == ("pass" if verdict == "Pass" else "fail")
    assert run.data.tags["assay.digest.judges"] == result.inputs.judges_digest
    assert run.data.metrics["score"] == pytest.approx(result.score)
    assert run.data.metrics["judge.quality.raw_mean"] == pytest.approx(result.judges["quality"].raw_mean)
    assert {"pass_rate", "pass_at_k", "pass_hat_k", "cost_usd", "input_tokens", "duration_seconds"} <= set(
        run.data.metrics
    )
    assert run.data.params["agent"] == "replay" and run.data.params["repetitions"] == "1"
    assert run.data.params["judge.quality"].startswith("model weight=0.2 threshold=4")
    artifacts = {a.path for a in client.list_artifacts(result.mlflow.run_id)}
    assert {"result.json", "summary.json", "report.html"} <= artifacts

    traces = client.search_traces(
        experiment_ids=[result.mlflow.experiment_id or ""], run_id=result.mlflow.run_id, max_results=100
    )
    assert len(traces) == len(result.tickets)
    by_ticket = {t.info.tags["assay.ticket"]: t for t in traces}
    for ticket in result.tickets:
        trace = by_ticket[ticket.id]
        spans = {s.name for s in trace.data.spans}
        assert {"agent", *(f"judge:{name}" for name in result.judges)} <= spans
        # What the Traces list shows a reviewer: the question and the agent's answer, not the scores...
        cell = ticket.repetitions[0]
        assert trace.info.request_preview == preview(ticket.question)
        assert trace.info.response_preview == preview(cell.answer or "(empty answer)")
        # ...as chat messages on the root span, next to the cell's score; the other spans as they were.
        root = next(s for s in trace.data.spans if s.parent_id is None)
        assert root.inputs == {
            "messages": [{"role": "user", "content": ticket.question}],
            "ticket": ticket.id,
            "repetition": cell.index,
        }
        assert root.outputs == {
            "messages": [{"role": "assistant", "content": cell.answer or "(empty answer)"}],
            "score": cell.score,
            "passed": cell.passed,
            "error": cell.error,
        }
        agent = next(s for s in trace.data.spans if s.name == "agent")
        assert agent.outputs["answer"] == cell.answer
        assessments = trace.info.assessments
        feedback = {a.name: a for a in assessments if a.feedback is not None}
        applicable = {n for n, v in ticket.repetitions[0].judges.items() if v.applicable}
        assert set(feedback) == applicable  # not-applicable judges get no made-up feedback
        for name in applicable:
            verdict_ = ticket.repetitions[0].judges[name]
            assert feedback[name].feedback.value == pytest.approx(verdict_.score)
            assert feedback[name].rationale == verdict_.reason
            expected_source = "LLM_JUDGE" if name == "quality" else "CODE"
            assert feedback[name].source.source_type == expected_source
        expectations = [a for a in assessments if a.expectation is not None]
        assert len(expectations) == 1 and expectations[0].expectation.value == ticket.key


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
