"""Online judging (`assay judge --mlflow`): each judged answer becomes an MLflow trace, tagged online, with
the feedback of the judges that need no answer key — read back from real stores, the model judge graded by a
real chat-completions server on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.errors import ExitCode
from mlflow import MlflowClient
from tests.mlflow.readback import check_ticket_trace

pytestmark = pytest.mark.mlflow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
QUESTION = "How do I export all my notes before I cancel?"
GOOD = (
    "## Summary\nYou can export everything first [KB-104].\n\n## Steps\n1. Open Settings > Export.\n"
    "2. Choose Markdown.\n\n## Next\nReply here if the export fails.\n"
)
NO_KEY = {"kb_citation", "must_mention", "abstention"}  # need the answer key: not run online


def grader(grade: int) -> Any:
    def reply(body: dict[str, Any]) -> Reply:
        assert body["messages"][0]["content"].startswith("You grade")  # only the model judge calls
        return Reply(content=json.dumps({"score": grade, "reason": f"graded {grade} on the rubric"}))

    return reply


def judge(tmp_path: Path, answer: str, url: str, store: str, *extra: str) -> tuple[int, Result]:
    answer_file = tmp_path / "answer.md"
    answer_file.write_text(answer)
    out = tmp_path / "out"
    code = main(
        [
            "judge",
            str(EXAMPLE),
            "--question",
            QUESTION,
            "--answer",
            str(answer_file),
            "--judge-model",
            "judge-m",
            "--gateway",
            url,
            "--mlflow",
            store,
            "--experiment",
            "online",
            "--out",
            str(out),
            "-q",
            *extra,
        ]
    )
    return code, Result.model_validate_json((out / "result.json").read_text())


def online_traces(store: str, result: Result) -> list[Any]:
    assert result.mlflow.logged and result.mlflow.experiment_id and result.mlflow.run_id is None
    client = MlflowClient(tracking_uri=store)
    return list(
        client.search_traces(
            locations=[result.mlflow.experiment_id], filter_string="tags.`assay.mode` = 'online'"
        )
    )


def test_an_online_answer_becomes_a_trace_with_feedback(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with ChatServer(grader(5)) as server:
        code, result = judge(tmp_path, GOOD, server.url, store, "--exit-code", "0")
    assert code == ExitCode.ONLINE_PASS and result.mode == "online"  # an online result is never a release
    assert len(server.requests) == 3  # the model judge's three samples, over HTTP
    (trace,) = online_traces(store, result)
    assert trace.info.tags["assay.mode"] == "online" and trace.info.tags["assay.suite"] == "support-desk"
    assert trace.info.request_preview == QUESTION and trace.info.response_preview == GOOD
    feedback = {a.name: a for a in trace.info.assessments if a.feedback is not None}
    assert set(feedback) == {"policy", "format", "quality", "exit_code"}
    assert not NO_KEY & set(feedback)
    assert feedback["quality"].source.source_type == "LLM_JUDGE"
    assert feedback["quality"].feedback.value == pytest.approx(1.0)  # 5 on the 1-5 scale
    assert "graded 5 on the rubric" in feedback["quality"].rationale
    assert feedback["format"].feedback.value == pytest.approx(1.0)
    assert feedback["policy"].feedback.value == pytest.approx(1.0)
    assert feedback["exit_code"].source.source_type == "CODE"
    assert not [a for a in trace.info.assessments if a.expectation is not None]  # no answer key online
    (ticket,) = result.tickets
    types = {judge.name: judge.type for judge in result.config.judges}
    check_ticket_trace(trace, ticket.id, QUESTION, ticket.repetitions, types)
    spans = {s.name: s for s in trace.data.spans}
    assert spans["agent"].outputs["answer"] == GOOD
    assert spans["judges"].outputs["quality"]["samples"] == [5, 5, 5]


def test_forbidden_advice_and_a_crash_show_in_the_feedback(tmp_path: Path, mlflow_server: str) -> None:
    bad = GOOD.replace("Reply here if the export fails.", "If that fails, reinstall the app.")
    with ChatServer(grader(2)) as server:
        code, result = judge(tmp_path, bad, server.url, mlflow_server, "--exit-code", "137")
    assert code == 1
    (trace,) = online_traces(mlflow_server, result)
    feedback = {a.name: a.feedback.value for a in trace.info.assessments if a.feedback is not None}
    assert feedback["policy"] == 0.0 and feedback["exit_code"] == 0.0
    assert feedback["quality"] == pytest.approx(0.25)  # 2 on the 1-5 scale
    assert trace.info.response_preview == bad and trace.info.tags["assay.verdict"] == "Blocked"


def test_an_unreachable_store_keeps_the_judgement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    with ChatServer(grader(5)) as server:
        code, result = judge(tmp_path, GOOD, server.url, "http://127.0.0.1:9")
    assert (
        code == ExitCode.ONLINE_PASS
        and not result.mlflow.logged
        and "after 3 attempts" in (result.mlflow.error or "")
    )
