"""A server that does not answer MLflow's version lookup once still gets the run. MLflow's client asks a
server its version (`GET /version`, 3 s, no retry) before it logs spans and caches the answer for the
process, a failure too; the runner's attempts ask again (assay_runner.io.tracking.publish). Seen in
`make demo` on a loaded machine: a judge pod's three attempts all failed on the first one's cached lookup.

The server is the real one the MLflow tests share, behind a real HTTP proxy on loopback that answers the
first `GET /version` with 503, as a server or ingress busy for a moment does, and passes everything else."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from mlflow import MlflowClient

pytestmark = pytest.mark.mlflow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
EXPERIMENT = "flaky-version"


class FlakyVersionProxy(ThreadingHTTPServer):
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.versions_refused = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), ProxyHandler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class ProxyHandler(BaseHTTPRequestHandler):
    server: FlakyVersionProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _refuse_version(self) -> bool:
        if self.command != "GET" or urlsplit(self.path).path != "/version":
            return False
        with self.server.lock:
            if self.server.versions_refused:
                return False
            self.server.versions_refused += 1
        return True

    def _relay(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self._refuse_version():
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        upstream = http.client.HTTPConnection(*self.server.upstream, timeout=60)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
            upstream.request(self.command, self.path, body=body or None, headers=headers)
            reply = upstream.getresponse()
            data = reply.read()
        finally:
            upstream.close()
        self.send_response(reply.status, reply.reason)
        for key, value in reply.getheaders():
            if key.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _relay


@pytest.fixture
def flaky_proxy(mlflow_server: str) -> Iterator[FlakyVersionProxy]:
    proxy = FlakyVersionProxy(mlflow_server)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    yield proxy
    proxy.shutdown()
    proxy.server_close()


def test_a_version_lookup_refused_once_does_not_fail_every_attempt(
    tmp_path: Path, flaky_proxy: FlakyVersionProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")  # the runner's own attempts, not urllib3's
    from mlflow.store.tracking.rest_store import RestStore

    RestStore._get_server_version.cache_clear()  # the proxy's address is new; nothing cached for it
    out = tmp_path / "out"
    code = main(
        [
            *("run", str(EXAMPLE), "--brain", str(EXAMPLE / "brains" / "v1"), "--agent", "replay"),
            *("--answers", str(EXAMPLE / "answers" / "v1"), "--tickets", "T-001,T-002"),
            *("--judge-model", "example-judge", "--cassettes", str(EXAMPLE / "cassettes")),
            *("--out", str(out), "-q", "--mlflow", flaky_proxy.url, "--experiment", EXPERIMENT),
            "--require-mlflow",
        ]
    )
    result = Result.model_validate_json((out / "result.json").read_text())
    assert flaky_proxy.versions_refused == 1
    assert code == 0 and result.verdict == "Pass", result.mlflow
    assert result.mlflow.logged and result.mlflow.run_id, result.mlflow
    client = MlflowClient(tracking_uri=flaky_proxy.url)
    experiment = client.get_experiment_by_name(EXPERIMENT)
    runs = client.search_runs([experiment.experiment_id])
    # The first attempt ended FAILED (its spans refused for want of a version), the second logged it all.
    assert sorted(run.info.status for run in runs) == ["FAILED", "FINISHED"], [r.info for r in runs]
    finished = next(run for run in runs if run.info.status == "FINISHED")
    assert finished.info.run_id == result.mlflow.run_id
    traces = client.search_traces(locations=[experiment.experiment_id], run_id=result.mlflow.run_id)
    assert len(traces) == 2 and all(trace.data.spans for trace in traces), traces  # T-001 and T-002
