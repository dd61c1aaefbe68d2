"""The judge phase authenticates to MLflow with a token read from a file (a mounted Secret on the cluster):
a real `mlflow server` behind a loopback proxy that lets only `Authorization: Bearer <token>` through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay_dev.servers.auth_proxy import AuthProxy
from assay_runner.cli import main
from assay_runner.contract import Result
from mlflow import MlflowClient

pytestmark = pytest.mark.mlflow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
TOKEN = "mlflow-token-5e2b9a71"


def judge_phase(tmp_path: Path, tracking_uri: str) -> tuple[int, Result, Path]:
    """`assay answer` then `assay score --config` on the example (replay agent, cassettes: offline)."""
    answers = tmp_path / "answers"
    common = {
        "suite": str(EXAMPLE),
        "brain": str(EXAMPLE / "brains" / "v1"),
        "agent": {"kind": "replay", "answers": str(EXAMPLE / "answers" / "v1")},
        "judgeModel": "example-judge",
        "cassettes": {"dir": str(EXAMPLE / "cassettes")},
        "tickets": ["T-001", "T-002"],
        "answersDir": str(answers),
    }
    answer_config = tmp_path / "answer.json"
    answer_config.write_text(json.dumps({**common, "mlflow": {"enabled": False}}))
    assert main(["answer", "--config", str(answer_config), "-q"]) == 0
    out = tmp_path / "out"
    judge_config = tmp_path / "judge.json"
    judge_config.write_text(
        json.dumps(
            {
                **common,
                "mlflow": {"trackingUri": tracking_uri, "experiment": "assay-token"},
                "output": {"dir": str(out), "summaryPath": str(tmp_path / "termination-log")},
            }
        )
    )
    code = main(["score", "--config", str(judge_config), "-q"])
    return code, Result.model_validate_json((out / "result.json").read_text()), out


def test_the_token_file_authenticates_the_judge_phase(
    tmp_path: Path, mlflow_server: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_TOKEN", raising=False)  # restored (absent) after the test
    token_file = tmp_path / "secret" / "token"
    token_file.parent.mkdir()
    token_file.write_text(TOKEN + "\n")
    monkeypatch.setenv("MLFLOW_TRACKING_TOKEN_FILE", str(token_file))
    with AuthProxy(mlflow_server, TOKEN) as proxy:
        code, result, out = judge_phase(tmp_path, proxy.url)
    assert code == 0 and result.mlflow.logged, result.mlflow.error
    assert proxy.rejected == 0 and proxy.headers
    assert {h.get("authorization") for h in proxy.headers} == {f"Bearer {TOKEN}"}
    run = MlflowClient(tracking_uri=mlflow_server).get_run(result.mlflow.run_id or "")
    assert run.data.tags["assay.digest.tickets"] == result.inputs.tickets_digest
    logged = json.dumps([run.data.params, run.data.tags])
    captured = capfd.readouterr()
    files = "\n".join(p.read_text(errors="replace") for p in sorted(out.rglob("*")) if p.is_file())
    assert "example-judge" in logged  # the search does look at the params
    for text in (logged, files, (tmp_path / "termination-log").read_text(), captured.out, captured.err):
        assert TOKEN not in text


def test_without_the_token_nothing_is_logged(
    tmp_path: Path, mlflow_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_TOKEN", raising=False)
    monkeypatch.delenv("MLFLOW_TRACKING_TOKEN_FILE", raising=False)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    with AuthProxy(mlflow_server, TOKEN) as proxy:
        code, result, _ = judge_phase(tmp_path, proxy.url)
    assert proxy.rejected > 0 and not result.mlflow.logged
    assert code == 0  # the verdict stands; only `requireMlflow` would block on it
