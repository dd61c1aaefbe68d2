"""MLflow holds every answer key: each ticket's trace carries it as an expectation, the judges' feedback and
the logged result.json and report.html quote it. Behind MLflow's own basic-auth app, set up as
docs/operating.md says (no permission by default, a writer for the runner, readers named by the install),
the judge phase logs with its `username:password` credential file and a named reader reads the key back, while
a cheater with the network open — every route the server has, anonymously, with a guessed credential, or
with an account nobody granted anything — is refused every time and reads no key text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from assay_dev.servers.mlflow_server import Account, MlflowAuth, mlflow_server
from assay_runner.contract import Result
from mlflow import MlflowClient
from tests.mlflow.test_token import EXAMPLE, judge_phase

pytestmark = pytest.mark.mlflow

CLIENT_VARIABLES = ("MLFLOW_TRACKING_TOKEN", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD")
# What an unauthenticated caller may get: liveness, the version, the server's settings and the UI's static
# bundle; no experiment, run, trace or artifact.
PUBLIC = {
    "/health",
    "/version",
    "/static-files/<path:path>",
    "/api/3.0/mlflow/server-info",
    "/ajax-api/3.0/mlflow/server-info",
}
# The routes that serve what holds the key: swept with guessed passwords too (each guess costs the server a
# password hash, so not all four hundred).
KEY_ROUTES = [
    ("GET", "/get-artifact"),
    ("GET", "/api/2.0/mlflow-artifacts/artifacts/<path:artifact_path>"),
    ("GET", "/ajax-api/2.0/mlflow-artifacts/artifacts/<path:artifact_path>"),
    ("GET", "/api/2.0/mlflow/runs/get"),
    ("POST", "/api/2.0/mlflow/runs/search"),
    ("GET", "/api/2.0/mlflow/experiments/search"),
    ("GET", "/api/3.0/mlflow/traces/<trace_id>"),
    ("POST", "/api/3.0/mlflow/traces/search"),
    ("GET", "/ajax-api/3.0/mlflow/traces/<trace_id>/assessments/<assessment_id>"),
]


def answer_key_texts() -> list[str]:
    """The key of the tickets judge_phase scores: facts, forbidden items, notes (examples/support-desk)."""
    tickets = yaml.safe_load((EXAMPLE / "tickets.yaml").read_text())["tickets"]
    texts: list[str] = []
    for ticket in tickets:
        if ticket["id"] in ("T-001", "T-002"):
            key = ticket["key"]
            texts += [*key["mustMention"], *key["forbidden"], key["notes"][:60]]
    assert len(texts) >= 6 and all(texts)
    return texts


def without_credentials(env: pytest.MonkeyPatch) -> None:
    """No MLflow credential in the environment, and after the test the variables as they were before — also
    those the runner sets from its credential file on the way (`delenv` alone records only a set value)."""
    for name in CLIENT_VARIABLES:
        env.setenv(name, "")
        env.delenv(name)


@dataclass(frozen=True)
class Logged:
    url: str
    auth: MlflowAuth
    result: Result
    experiment_id: str
    trace_ids: list[str]
    assessment_ids: list[str]


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    """A judge phase logged as the writer, through its credential file, to an authenticated server."""
    root = tmp_path_factory.mktemp("mlflow-auth")
    auth = MlflowAuth(readers=(Account("release-manager"), Account("auditor")))
    with pytest.MonkeyPatch.context() as env, mlflow_server(root, auth) as url:
        without_credentials(env)
        credential = root / "secret" / "token"
        credential.parent.mkdir()
        credential.write_text(auth.writer.credential + "\n")
        env.setenv("MLFLOW_TRACKING_TOKEN_FILE", str(credential))
        work = root / "run"
        work.mkdir()
        code, result, _ = judge_phase(work, url)
        assert code == 0 and result.mlflow.logged, result.mlflow.error
        for name in ("MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD", "MLFLOW_TRACKING_TOKEN_FILE"):
            env.delenv(name, raising=False)  # what the runner set from the file: the writer's
        reader = auth.readers[0]
        env.setenv("MLFLOW_TRACKING_USERNAME", reader.username)
        env.setenv("MLFLOW_TRACKING_PASSWORD", reader.password)
        traces = MlflowClient(url).search_traces(locations=[result.mlflow.experiment_id or ""])
        env.delenv("MLFLOW_TRACKING_USERNAME")
        env.delenv("MLFLOW_TRACKING_PASSWORD")
        yield Logged(
            url=url,
            auth=auth,
            result=result,
            experiment_id=result.mlflow.experiment_id or "",
            trace_ids=[t.info.trace_id for t in traces],
            assessment_ids=[a.assessment_id for t in traces for a in t.info.assessments if a.assessment_id],
        )


def test_the_writer_logs_and_only_the_named_readers_read_the_key(logged: Logged) -> None:
    result, run_id = logged.result, logged.result.mlflow.run_id or ""
    assert len(logged.trace_ids) == 2  # a trace per ticket, read back by a named reader
    keys = answer_key_texts()
    for reader in logged.auth.readers:
        with httpx.Client(base_url=logged.url, auth=reader.basic, timeout=30) as client:
            run = client.get("/api/2.0/mlflow/runs/get", params={"run_id": run_id})
            assert run.status_code == 200
            assert run.json()["run"]["info"]["run_name"] == result.run_name
            artifact = client.get("/get-artifact", params={"path": "result.json", "run_uuid": run_id})
            assert artifact.status_code == 200
            assert Result.model_validate_json(artifact.content).score == result.score
            trace = client.get(f"/api/3.0/mlflow/traces/{logged.trace_ids[0]}")
            assert trace.status_code == 200
            # The positive control: a reader finds the key, so the cheater's empty hands mean something.
            assert any(key in trace.text for key in keys), trace.text[:500]
    assert len(logged.assessment_ids) >= 2
    stranger = Account("stranger")
    admin = httpx.BasicAuth(logged.auth.admin.username, logged.auth.admin.password)
    made = httpx.post(
        f"{logged.url}/api/2.0/mlflow/users/create",
        json={"username": stranger.username, "password": stranger.password},
        auth=admin,
    )
    assert made.status_code == 200, made.text
    refused = httpx.get(
        f"{logged.url}/api/2.0/mlflow/runs/get", params={"run_id": run_id}, auth=stranger.basic, timeout=30
    )
    assert refused.status_code == 403  # an account the install did not name reads nothing


def every_route() -> list[tuple[str, str]]:
    """(method, path pattern) of every route the tracking server serves: the Flask app's and the FastAPI
    routers' it mounts in front of it (mlflow.server.fastapi_app)."""
    from mlflow.server import app
    from mlflow.server.artifact_router import artifact_router
    from mlflow.server.gateway_api import gateway_router
    from mlflow.server.job_api import job_api_router
    from mlflow.server.otel_api import otel_router
    from mlflow.server.server_info_api import server_info_router

    routes = {(method, rule.rule) for rule in app.url_map.iter_rules() for method in rule.methods or ()}
    for router in (artifact_router, gateway_router, job_api_router, otel_router, server_info_router):
        for route in router.routes:
            path = re.sub(r"\{(\w+)(:path)?\}", r"<\1>", getattr(route, "path", ""))
            routes |= {(method, path) for method in getattr(route, "methods", None) or ()}
    return sorted((m, p) for m, p in routes if m not in ("HEAD", "OPTIONS"))


def concrete(pattern: str, logged: Logged) -> str:
    """A route's path with the logged run's own ids where it takes one: the cheater knows them (they are in
    the Evaluation's status)."""
    run_id = logged.result.mlflow.run_id or ""
    values = {
        "artifact_path": f"{logged.experiment_id}/{run_id}/artifacts/result.json",
        "path": f"{logged.experiment_id}/{run_id}/artifacts/report.html",
        "request_id": logged.trace_ids[0],
        "trace_id": logged.trace_ids[0],
        "assessment_id": logged.assessment_ids[0],
        "experiment_id": logged.experiment_id,
        "run_id": run_id,
    }
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), "1"), pattern)


def bearer(token: str) -> httpx.Auth:
    return httpx.FunctionAuth(lambda request: _with_header(request, f"Bearer {token}"))


def _with_header(request: httpx.Request, value: str) -> httpx.Request:
    request.headers["Authorization"] = value
    return request


def test_the_cheater_finds_no_key_without_a_credential(logged: Logged) -> None:
    run_id = logged.result.mlflow.run_id or ""
    ids: dict[str, Any] = {
        "run_id": run_id,
        "run_uuid": run_id,
        "experiment_id": logged.experiment_id,
        "experiment_ids": [logged.experiment_id],
        "request_id": logged.trace_ids[0],
        "trace_id": logged.trace_ids[0],
        "trace_ids": logged.trace_ids,
        "path": "result.json",
        "max_results": 100,
    }
    query = {k: v if not isinstance(v, list) else v[0] for k, v in ids.items()}
    keys = answer_key_texts()
    routes = every_route()
    assert len(routes) > 300  # the sweep does see the server's API, not a handful of paths
    assert set(KEY_ROUTES) <= set(routes)
    guesses: dict[str, tuple[httpx.Auth | None, list[tuple[str, str]]]] = {
        "anonymous": (None, routes),
        "a guessed bearer token": (bearer("guessed"), routes),
        "a guessed password": (httpx.BasicAuth(logged.auth.writer.username, "password"), KEY_ROUTES),
        "the admin's name, no password": (httpx.BasicAuth(logged.auth.admin.username, ""), KEY_ROUTES),
    }
    answered: list[str] = []
    with httpx.Client(base_url=logged.url, timeout=30) as cheater:
        for who, (auth, swept) in guesses.items():
            for method, pattern in swept:
                if pattern in PUBLIC:
                    continue
                sent = cheater.request(
                    method,
                    concrete(pattern, logged),
                    params=query,
                    json=ids if method in ("POST", "PATCH", "PUT", "DELETE") else None,
                    auth=auth or httpx.USE_CLIENT_DEFAULT,
                )
                if sent.status_code not in (401, 403) or any(key in sent.text for key in keys):
                    answered.append(f"{who}: {method} {pattern} -> {sent.status_code} {sent.text[:120]}")
        for path in PUBLIC:  # the public ones hold no key either
            body = cheater.get(concrete(path.replace("<path:path>", "index.html"), logged), params=query).text
            assert not any(key in body for key in keys), path
    assert not answered, "\n".join(answered)


def test_the_mlflow_client_without_a_credential_gets_nothing(
    logged: Logged, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The same through MLflow's own client: the calls a reader of the UI or a script would make."""
    without_credentials(monkeypatch)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    client = MlflowClient(logged.url)
    run_id = logged.result.mlflow.run_id or ""
    calls = {
        "search experiments": client.search_experiments,
        "search runs": lambda: client.search_runs([logged.experiment_id]),
        "get the run": lambda: client.get_run(run_id),
        "list artifacts": lambda: client.list_artifacts(run_id),
        "download result.json": lambda: client.download_artifacts(run_id, "result.json", str(tmp_path)),
        "search traces": lambda: client.search_traces(locations=[logged.experiment_id]),
        "get a trace": lambda: client.get_trace(logged.trace_ids[0]),
    }
    for what, call in calls.items():
        with pytest.raises(Exception) as refused:
            call()
        assert re.search(r"\b40[13]\b|not authenticated|Permission denied", str(refused.value)), (
            what,
            str(refused.value)[:300],
        )
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]
