"""The gateway sidecar as an answer pod runs it, with real processes on this host:

- the sidecar (`assay gateway-sidecar`) is a process of its own, as root — its own container's user here —
  with the token in a file only root can read and its ledger where only root can write;
- the answer phase (`assay answer`) and its agents run as another user (nobody), with the socket's path
  and no token; the judge phase (`assay score`) reads the sidecar's ledger.

A well-behaved agent's calls reach the gateway with the token and the ledger reconciles (Pass). A token
hunter (tests/support/agents/token_hunter.py), searching every environment, command line, memory and file
it can read and calling every socket and listener it finds, finds no token; its calls around its cell's
proxy are refused, recorded, and block the verdict. Spend a ledger counts that no sealed cell accounts for
blocks, naming the cell where it can.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import GATEWAY_LEDGER_ENV, GATEWAY_SOCKET_ENV, POD_UID_ENV, Result
from assay_runner.gateway.metering.attribution import attributed
from assay_runner.gateway.metering.reconcile import AROUND
from assay_runner.gateway.metering.sidecar import CLAIM_PATH
from assay_runner.gateway.metering.sidecar_ledger import LEDGER_FILE, read_ledger
from assay_runner.gateway.sidecar_link import SidecarTransport
from tests.runner.test_sealed_cells import GOOD_AGENT

AGENTS = Path(__file__).resolve().parents[1] / "support" / "agents"
NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3.11"
"""An interpreter any user may run (this checkout's lives under /root); the checkout's packages are added
to it as a site directory."""
SITE = next(Path(sys.prefix, "lib").glob("python3.*/site-packages"))
AS_ASSAY = (
    f"import site; site.addsitedir({str(SITE)!r}); import runpy; "
    "runpy.run_module('assay_runner.cli', run_name='__main__')"
)
ASSAY = [sys.executable, "-m", "assay_runner.cli"]

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists(SYSTEM_PYTHON),
    reason="needs root, setpriv and /usr/bin/python3.11 (the answer phase runs as another user)",
)


@dataclass
class Pod:
    """The places an answer pod has: the answer container's (nobody's), the socket's (shared), the
    sidecar's (root's: its token and its ledger)."""

    answer_side: Path
    socket: Path
    ledger_dir: Path
    token_file: Path
    token: str
    evidence_key: Path
    """The run's evidence key, as the Evaluation's Secret gives it to the answer container's runner (its
    user's) and to the judge."""


@pytest.fixture
def pod(tmp_path: Path, suite: Path, brain: Path) -> Iterator[Pod]:
    # tmp_path (root's, 0700) holds the sidecar's side; the answer side and the socket live where nobody
    # can reach them. A short socket path: sun_path holds 108 bytes.
    answer_side = Path(tempfile.mkdtemp(prefix="assay-pod-"))
    socket_dir = Path(tempfile.mkdtemp(prefix="as-"))
    os.chmod(socket_dir, 0o755)
    shutil.copytree(suite, answer_side / "suite")
    shutil.copytree(brain, answer_side / "brain")
    for name in ("answers", "work"):
        (answer_side / name).mkdir()
    for path in [answer_side, *answer_side.rglob("*")]:
        os.chown(path, NOBODY, NOBODY)
    token = f"gw-{secrets.token_urlsafe(24)}"
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    (secret / "token").write_text(token)
    (secret / "token").chmod(0o600)
    evidence = Path(tempfile.mkdtemp(prefix="assay-evidence-"))
    (evidence / "key").write_bytes(os.urandom(32))
    for path in (evidence, evidence / "key"):
        os.chown(path, NOBODY, NOBODY)
    (evidence / "key").chmod(0o400)
    try:
        yield Pod(
            answer_side,
            socket_dir / "gateway.sock",
            tmp_path / "ledger",
            secret / "token",
            token,
            evidence / "key",
        )
    finally:
        shutil.rmtree(answer_side, ignore_errors=True)
        shutil.rmtree(socket_dir, ignore_errors=True)
        shutil.rmtree(evidence, ignore_errors=True)


@contextlib.contextmanager
def sidecar(pod: Pod, gateway: str | None, pod_uid: str | None = None) -> Iterator[subprocess.Popen[str]]:
    """The sidecar as its own process (root, as its own container's user), stopped as a pod ends: SIGTERM
    (unless the test killed it, as a killed pod's is). `pod_uid`: the pod it belongs to."""
    args = [*ASSAY, "gateway-sidecar", "--socket", str(pod.socket), "--ledger-dir", str(pod.ledger_dir)]
    env = {**os.environ, "ASSAY_GATEWAY_TOKEN_FILE": str(pod.token_file)}
    env.pop("ASSAY_GATEWAY_TOKEN", None)
    if pod_uid is not None:
        env[POD_UID_ENV] = pod_uid
    if gateway is not None:
        args += ["--gateway", gateway]
    process = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode in (0, -signal.SIGKILL), stderr  # SIGKILL: only a test kills it


def answer_as_nobody(
    pod: Pod, agent: list[str], *, tickets: list[str], concurrency: int = 1, resume: bool = False
) -> None:
    """`assay answer --config` as nobody, the answer container's user: the socket's path, no token."""
    args, env = answer_command(pod, agent, tickets=tickets, concurrency=concurrency, resume=resume)
    work = pod.answer_side / "work"
    done = subprocess.run(args, env=env, cwd=work, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-5000:]


def answer_command(
    pod: Pod, agent: list[str], *, tickets: list[str], concurrency: int, resume: bool
) -> tuple[list[str], dict[str, str]]:
    config = {
        "suite": str(pod.answer_side / "suite"),
        "brain": str(pod.answer_side / "brain"),
        "tickets": tickets,
        "concurrency": concurrency,
        "mlflow": {"enabled": False},
        "answersDir": str(pod.answer_side / "answers"),
        "gateway": GATEWAY_URL_SEEN_BY_THE_RUNNER,
        "agent": {"kind": "command", "model": "m", "timeoutSeconds": 120, "command": agent},
        "resume": resume,
        "evidence": {"keyFile": str(pod.evidence_key)},
    }
    path = pod.answer_side / "answer.json"
    path.write_text(json.dumps(config))
    os.chown(path, NOBODY, NOBODY)
    work = pod.answer_side / "work"
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(work),
        "TMPDIR": str(work),
        GATEWAY_SOCKET_ENV: str(pod.socket),
        # This checkout's packages first, as the test process has them (the virtualenv's are the site's).
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}),
    }
    as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return [*as_nobody, SYSTEM_PYTHON, "-c", AS_ASSAY, "answer", "--config", str(path), "-q"], env


def judge(pod: Pod, tmp_path: Path, tickets: list[str]) -> tuple[int, Result]:
    """`assay score --config` as the judge container runs it: the ledger's directory given."""
    config = {
        "suite": str(pod.answer_side / "suite"),
        "brain": str(pod.answer_side / "brain"),
        "tickets": tickets,
        "mlflow": {"enabled": False},
        "answersDir": str(pod.answer_side / "answers"),
        "agent": {"kind": "command", "model": "m", "command": ["unused"]},
        "output": {"dir": str(tmp_path / "out")},
        "evidence": {"keyFile": str(pod.evidence_key)},
    }
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(config))
    env = {**os.environ, GATEWAY_LEDGER_ENV: str(pod.ledger_dir)}
    scored = [*ASSAY, "score", "--config", str(path), "-q"]
    done = subprocess.run(scored, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert (tmp_path / "out" / "result.json").is_file(), done.stderr[-3000:]
    return done.returncode, Result.model_validate_json((tmp_path / "out" / "result.json").read_text())


def errors(result: Result) -> dict[str, str | None]:
    return {f"{t.id}/{r.index}": r.error for t in result.tickets for r in t.repetitions}


GATEWAY_URL_SEEN_BY_THE_RUNNER = "http://gateway.invalid/v1"
"""The runner's gateway URL: only its path counts (the sidecar forwards it to the gateway it was given)."""


def test_agents_reach_the_gateway_only_through_the_sidecar_and_the_ledger_reconciles(
    pod: Pod, tmp_path: Path
) -> None:
    caller = [SYSTEM_PYTHON, str(AGENTS / "caller.py"), "chat", "2", "plain"]
    with ChatServer(lambda _body: Reply("fine"), token=pod.token) as server, sidecar(pod, server.url):
        answer_as_nobody(pod, caller, tickets=["T-1", "T-2"], concurrency=2)
        seen = [h.get("authorization") for h in server.headers]
    assert seen == [f"Bearer {pod.token}"] * 4  # 2 cells x 2 calls, each with the token the sidecar added
    code, result = judge(pod, tmp_path, ["T-1", "T-2"])
    assert code == 0 and result.verdict == "Pass", result.reasons
    assert (result.usage.input_tokens, result.usage.output_tokens) == (400, 80)  # the upstream's count
    ledger = read_ledger(pod.ledger_dir / LEDGER_FILE)
    assert ledger.claimed and ledger.refused.count == 0 and ledger.restarts == 0
    assert {cell: (c.requests, c.input_tokens, c.output_tokens) for cell, c in ledger.cells.items()} == {
        "T-1/1": (2, 200, 40),
        "T-2/1": (2, 200, 40),
    }
    # The agents saw no token, and the answer side holds none.
    answers = "\n".join(p.read_text() for p in (pod.answer_side / "answers").rglob("*") if p.is_file())
    assert "ENV " in answers and pod.token not in answers and "TOKEN" not in answers


def test_a_token_hunter_finds_no_token_and_its_calls_around_the_proxy_block(pod: Pod, tmp_path: Path) -> None:
    # A control the hunter must find, planted in its brain: its search does work.
    control = f"control-{secrets.token_urlsafe(16)}"
    (pod.answer_side / "brain" / "notes.md").write_text(f"remember {control}\n")
    digests = {"token": pod.token, "control": control}
    hunter = [SYSTEM_PYTHON, str(AGENTS / "token_hunter.py"), "20"]
    hunter += [f"{name}={hashlib.sha256(value.encode()).hexdigest()}" for name, value in digests.items()]
    # The gateway needs the token, as a real one does: what the hunter sends it straight (this host's
    # loopback is every process's; a pod's egress is the network policy's business) is refused.
    with ChatServer(lambda _body: Reply("fine"), token=pod.token) as server, sidecar(pod, server.url):
        answer_as_nobody(pod, hunter, tickets=["T-1"])
        upstream, rejected = len(server.requests), server.rejected
    answer = (pod.answer_side / "answers" / "T-1" / "1" / "answer.md").read_text()
    report = dict(line.split(": ", 1) for line in answer.splitlines() if ": " in line)
    report["memory read"] = next(line for line in answer.splitlines() if line.startswith("memory read"))
    assert report["token"] == "not found", answer
    assert report["control"].startswith("found in "), answer  # it searched where a secret would be
    assert str(pod.socket) in report["sockets"], answer  # it found the sidecar's socket...
    direct = [entry for entry in report["direct"].split() if entry.startswith("unix:" + str(pod.socket))]
    assert direct and all(entry.endswith(("->403", "->409")) for entry in direct), direct  # ...which refused
    assert report["honest"] == "200"  # its own cell's proxy served it
    # It read the memory of a process of its own (the control) and found what it held; the runner's, which
    # holds the sidecar's key, it could not read.
    memory = dict(part.split(": ", 1) for part in report["memory read"].split("; ")[:3])
    assert memory["memory control"] == "found" and memory["ancestors' memory"] == "unreadable", answer
    assert upstream == 1  # the honest call only: nothing around the proxy reached the gateway with a token
    port = server.url.split(":")[-1].split("/")[0]
    assert rejected >= 1 and f"tcp:{port}/v1/chat/completions->401" in report["direct"]
    ledger = read_ledger(pod.ledger_dir / LEDGER_FILE)
    assert ledger.refused.count >= len(direct)
    code, result = judge(pod, tmp_path, ["T-1"])
    assert code == 1 and result.verdict == "Blocked"
    error = errors(result)["T-1/1"] or ""
    assert AROUND in error and "without the runner's key" in error, error


@pytest.mark.parametrize(
    ("ledger_cells", "expected"),
    [
        (
            {"T-1/1": (1, 100, 20)},
            {"T-1/1": "counted 100 input and 20 output tokens in 1 call(s) for this cell"},
        ),
        ({"T-9/1": (1, 100, 20)}, {"T-1/1": "'T-9/1', which is no cell of this tree", "T-2/1": "no cell of"}),
        (None, {"T-1/1": "ledger", "T-2/1": "is missing"}),
        ({"T-1/1": (0, 0, 0)}, {}),
    ],
    ids=["more-than-sealed", "no-such-cell", "missing", "nothing-spent"],
)
def test_spend_no_sealed_cell_accounts_for_blocks(
    pod: Pod,
    tmp_path: Path,
    ledger_cells: dict[str, tuple[int, int, int]] | None,
    expected: dict[str, str],
) -> None:
    """A sealed tree whose agents made no model call, and a ledger as the sidecar writes it. The tree here
    comes from an answer phase without a sidecar (no call to count), the ledger from a real sidecar and
    calls made with its key (as only a process holding the runner's key could)."""
    config = {
        "suite": str(pod.answer_side / "suite"),
        "brain": str(pod.answer_side / "brain"),
        "tickets": ["T-1", "T-2"],
        "mlflow": {"enabled": False},
        "answersDir": str(pod.answer_side / "answers"),
        "agent": {"kind": "command", "model": "m", "command": [sys.executable, "-c", GOOD_AGENT]},
        "evidence": {"keyFile": str(pod.evidence_key)},
    }
    (tmp_path / "answer.json").write_text(json.dumps(config))
    assert main(["answer", "--config", str(tmp_path / "answer.json"), "-q"]) == 0
    if ledger_cells is not None:
        with ChatServer(lambda _body: Reply("fine")) as server, sidecar(pod, server.url):
            spend_with_the_key(pod, ledger_cells)
    code, result = judge(pod, tmp_path, ["T-1", "T-2"])
    found = errors(result)
    for cell in ("T-1/1", "T-2/1"):
        if cell in expected:
            assert expected[cell] in (found[cell] or ""), found
        else:
            assert found[cell] is None, found
    assert (code, result.verdict) == ((1, "Blocked") if expected else (0, "Pass"))


def spend_with_the_key(pod: Pod, cells: dict[str, tuple[int, int, int]]) -> None:
    """Claim the sidecar's key, then make each cell's calls through it, named for that cell."""

    async def spend() -> None:
        claim = httpx.AsyncHTTPTransport(uds=str(pod.socket))
        async with httpx.AsyncClient(transport=claim) as http:
            for _ in range(100):
                try:
                    reply = await http.post(f"http://sidecar{CLAIM_PATH}", content=b"{}")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            key = reply.json()["key"]
        async with httpx.AsyncClient(transport=SidecarTransport(pod.socket, key)) as http:
            for cell, (calls, _, _) in cells.items():
                for _ in range(calls):
                    with attributed(cell):
                        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
                        answered = await http.post(
                            f"{GATEWAY_URL_SEEN_BY_THE_RUNNER}/chat/completions", json=body
                        )
                        assert answered.status_code == 200, answered.text

    asyncio.run(spend())


CALL_THEN_WAIT = """
import json, os, time, urllib.request
call = dict(model="m", messages=[dict(role="user", content="hi")])
request = urllib.request.Request(
    os.environ["ASSAY_GATEWAY_URL"].rstrip("/") + "/chat/completions", data=json.dumps(call).encode()
)
request.add_header("Content-Type", "application/json")
request.add_header("Authorization", "Bearer " + os.environ["ASSAY_PROXY_KEY"])  # its cell's credential
urllib.request.urlopen(request, timeout=60).read()
time.sleep(600)  # MARKER: killed with its pod
"""
"""One model call, then waiting to be killed with its pod (no braces: the command's placeholders)."""


def test_a_retried_answer_pods_earlier_spend_is_in_the_runs_usage(pod: Pod, tmp_path: Path) -> None:
    """The first answer pod makes one model call per cell, then its pod is killed (runner and sidecar:
    SIGKILL, no last write). The retried pod answers every cell again (two calls each). What the first pod
    spent is billed all the same: the run's usage is the gateway's own count, not the second pod's."""
    marker = f"killed-with-its-pod-{secrets.token_hex(4)}"
    first_agent = [SYSTEM_PYTHON, "-c", CALL_THEN_WAIT.replace("MARKER", marker)]
    tickets = ["T-1", "T-2"]
    with ChatServer(lambda _body: Reply("fine"), token=pod.token) as server:
        with sidecar(pod, server.url, "pod-a") as first_sidecar:
            args, env = answer_command(pod, first_agent, tickets=tickets, concurrency=2, resume=False)
            runner = subprocess.Popen(
                args, env=env, cwd=pod.answer_side / "work", stderr=subprocess.PIPE, start_new_session=True
            )
            try:
                wait_for(lambda: len(server.requests) == 2 and settled(pod, 2), within=120, runner=runner)
            finally:
                first_sidecar.kill()
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(runner.pid, signal.SIGKILL)
                runner.wait(timeout=30)
                kill_marked(marker)
        with sidecar(pod, server.url, "pod-b"):
            caller = [SYSTEM_PYTHON, str(AGENTS / "caller.py"), "chat", "2", "plain"]
            answer_as_nobody(pod, caller, tickets=tickets, concurrency=2, resume=True)
        billed = len(server.requests)
    assert billed == 2 + 4
    code, result = judge(pod, tmp_path, tickets)
    assert code == 0 and result.verdict == "Pass", result.reasons
    # 100 input and 20 output tokens a call, as the gateway replies: all six calls, not the last four.
    assert (result.usage.input_tokens, result.usage.output_tokens) == (100 * billed, 20 * billed)
    assert any("was retried: 1 earlier attempt(s)" in w for w in result.warnings), result.warnings
    ledger = read_ledger(pod.ledger_dir / LEDGER_FILE)
    assert (ledger.pod, ledger.set_aside) == ("pod-b", ["ledger-pod-a.json"])
    manifest = json.loads((pod.answer_side / "answers" / "answers.json").read_text())
    assert manifest["answeredBy"] == {"T-1/1": "pod-b", "T-2/1": "pod-b"}


def settled(pod: Pod, calls: int) -> bool:
    """Whether the sidecar's ledger holds `calls` settled calls (written before a reply ends)."""
    try:
        ledger = read_ledger(pod.ledger_dir / LEDGER_FILE)
    except Exception:
        return False
    counts = ledger.cells.values()
    return sum(c.requests for c in counts) == calls and not any(c.in_flight for c in counts)


def wait_for(condition: Callable[[], bool], within: float, runner: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if runner.poll() is not None:
            raise AssertionError(
                f"the runner ended ({runner.returncode}): {runner.communicate()[1][-3000:]!r}"
            )
        assert time.monotonic() < deadline, f"not within {within:g} s"
        time.sleep(0.05)


def kill_marked(marker: str) -> None:
    """The killed pod's agents (in sessions of their own, as the runner starts them), by command line."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    os.kill(int(entry.name), signal.SIGKILL)
