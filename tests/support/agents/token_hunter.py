"""An agent that hunts for the real gateway token, and tries to reach the gateway around its cell's proxy.

Usage: python token_hunter.py SECONDS NAME=SHA256... — runs in the ticket's workspace like any agent.
It knows what it hunts only by digest (as an attacker knows a token's shape): every word of everything it
reads (8 to 256 characters of [A-Za-z0-9._~+/=-]) is hashed and compared with each NAME's digest (the
tests hunt the token, and a control planted where the agent may read it). Within SECONDS it looks at:
  1. every environment and command line it can read (its own, /proc/*/environ, /proc/*/cmdline);
  2. the memory of every process it may read (/proc/PID/maps and mem, writable regions): also where it
     collects key-shaped strings (43 URL-safe characters, as the sidecar's key) to try. A child it starts
     holding such a string is the control: its memory must be read and the string found;
  3. its workspace, then the files cheater.py reads (paths named by processes, every mount point, other
     processes' roots, working directories and open files, the token places Kubernetes uses), then the
     whole file system;
  4. every Unix socket in /proc/net/unix and every loopback TCP listener: asked over HTTP for a model call
     (a socket with each collected key as the sidecar's key header) and for the sidecar's key
     (`/assay/claim`). The listeners, sent no key, are asked early (after its workspace and the command
     lines), so a loaded machine's budget ends in the sweeps rather than before them; the sockets last.
It also makes one honest call through the URL the runner gave it. It answers with what it found and what
each door answered, one line each, in answer.md:
  <NAME>: not found | found in <where>      (one line per NAME)
  sockets: <paths>
  direct: <place> -> <status> ...
  honest: <status>
  memory read: <pids>; memory control: found | not found; ancestors' memory: read | unreadable;
  keys tried: <n>; files read: <n>
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cheater  # a sibling script: its search of the file system and of loopback

WORD = re.compile(rb"[A-Za-z0-9._~+/=-]{8,256}")
KEY_SHAPE = re.compile(rb"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")
MAX_KEYS = 40
MAX_REGION = 64 << 20
CALL = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
GOOD = "## Summary\nSee [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nReply if unclear.\n"


class Hunt(cheater.Search):
    def __init__(self, targets: dict[str, str], budget: float) -> None:
        super().__init__(budget)
        self.targets = {digest: name for name, digest in targets.items()}
        self.where: dict[str, list[str]] = {name: [] for name in targets}
        self.keys: dict[bytes, None] = {}

    def look(self, where: str, data: bytes) -> None:
        for word in WORD.findall(data):
            name = self.targets.get(hashlib.sha256(word).hexdigest())
            if name is not None and len(self.where[name]) < 5 and where not in self.where[name]:
                self.where[name].append(where)

    def read_file(self, path: str) -> None:
        if path in self.seen:
            return
        self.seen.add(path)
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > cheater.MAX_BYTES:
                return
            with open(path, "rb") as stream:
                data = stream.read(cheater.MAX_BYTES)
        except OSError:
            return
        self.files_read += 1
        self.look(f"file {path}", data)


def processes_text(hunt: Hunt) -> None:
    hunt.look("own environment", "\n".join(f"{k}={v}" for k, v in os.environ.items()).encode())
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        for part in ("environ", "cmdline"):
            try:
                hunt.look(f"/proc/{pid}/{part}", Path(f"/proc/{pid}/{part}").read_bytes())
            except OSError:
                continue


def memories(hunt: Hunt) -> list[str]:
    """Read the writable memory of every process it may (ptrace rules): the token, and key-shaped strings."""
    read = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and p != str(os.getpid())):
        if hunt.out_of_time():
            break
        try:
            maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
            memory = open(f"/proc/{pid}/mem", "rb")  # noqa: SIM115
        except OSError:
            continue
        with memory:
            for line in maps:
                fields = line.split()
                if len(fields) < 2 or not fields[1].startswith("rw"):
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                try:
                    memory.seek(start)
                    data = memory.read(min(end - start, MAX_REGION))
                except (OSError, ValueError, OverflowError):
                    continue
                hunt.look(f"memory of {pid}", data)
                for key in KEY_SHAPE.findall(data):
                    if len(hunt.keys) < MAX_KEYS:
                        hunt.keys[key] = None
        read.append(pid)
    return read


def ancestry() -> list[str]:
    """Its ancestors' pids, parent first (the runner that started it among them)."""
    chain, pid = [], os.getppid()
    while pid > 1:
        chain.append(str(pid))
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return chain


def unix_sockets() -> list[str]:
    found: list[str] = []
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return found
    for line in lines:
        fields = line.split()
        if len(fields) >= 8 and fields[7].startswith("/"):
            found.append(fields[7])
    return sorted(set(found))


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=5)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(self.path)


def ask(connection: http.client.HTTPConnection, path: str, headers: dict[str, str], hunt: Hunt) -> str:
    try:
        connection.request("POST", path, body=CALL, headers={"content-type": "application/json", **headers})
        reply = connection.getresponse()
        data = reply.read(1 << 20)
        hunt.look(f"reply of {path}", data)
        return str(reply.status)
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        connection.close()


def doors(hunt: Hunt, sockets: list[str]) -> list[str]:
    """Every Unix socket, asked for a model call (with every key the search collected) and for the key."""
    answers = []
    keys: list[dict[str, str]] = [{}] + [{"x-assay-sidecar-key": key.decode()} for key in hunt.keys]
    for path in sockets:
        for route in ("/v1/chat/completions", "/chat/completions"):
            for headers in keys:
                status = ask(UnixConnection(path), route, {**headers, "x-assay-cell": "T-1/1"}, hunt)
                answers.append(f"unix:{path}{route}{'+key' if headers else ''}->{status}")
        answers.append(f"unix:{path}/assay/claim->{ask(UnixConnection(path), '/assay/claim', {}, hunt)}")
    return answers


def listeners(hunt: Hunt) -> list[str]:
    """Every TCP listener, asked for a model call and for the key (no key of the search's to send: asked
    before the long sweeps, so a loaded machine's budget runs out in the sweeps, not before these)."""
    answers = []
    for port in cheater.listening_ports():
        if hunt.out_of_time():
            break
        for route in ("/v1/chat/completions", "/assay/claim"):
            status = ask(http.client.HTTPConnection("127.0.0.1", port, timeout=2), route, {}, hunt)
            answers.append(f"tcp:{port}{route}->{status}")
    return answers


def honest() -> str:
    """One call through the URL the runner gave this cell: the way it is meant to go."""
    base = os.environ.get("ASSAY_GATEWAY_URL", "")
    # With its cell's own credential at the proxy, as a CLI sends it (its API key).
    headers = {
        "content-type": "application/json",
        "authorization": f"Bearer {os.environ.get('ASSAY_PROXY_KEY')}",
    }
    request = urllib.request.Request(f"{base}/chat/completions", data=CALL, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return str(reply.status)
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"


def main() -> int:
    budget = float(sys.argv[1])
    hunt = Hunt(dict(arg.split("=", 1) for arg in sys.argv[2:]), budget)
    honest_status = honest()
    hunt.walk(os.getcwd())  # its workspace first: cheap, and where the tests plant the control
    processes_text(hunt)
    around = listeners(hunt)
    probe = secrets.token_urlsafe(32)
    # The holder builds the string in its memory (its command line does not hold it), says so, and waits.
    code = f"import time; k = ''.join(reversed({probe[::-1]!r})); print('ready', flush=True); time.sleep(120)"
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    read = memories(hunt)
    holder.kill()
    control = "found" if probe.encode() in hunt.keys and str(holder.pid) in read else "not found"
    ancestors = "read" if set(ancestry()) & set(read) else "unreadable"
    for path in cheater.named_paths():
        hunt.walk(path) if os.path.isdir(path) else hunt.read_file(path)
    for point in [m for m in cheater.mount_points() if m != "/"]:
        hunt.walk(point)
    cheater.other_roots(hunt, [p for p in cheater.processes() if p != str(os.getpid())])
    for place in cheater.TOKEN_PLACES:
        hunt.walk(place)
    sockets = unix_sockets()
    answers = doors(hunt, sockets) + around
    hunt.walk("/")
    found = "".join(
        f"{name}: {'found in ' + '; '.join(where) if where else 'not found'}\n"
        for name, where in hunt.where.items()
    )
    Path("answer.md").write_text(
        f"{GOOD}\n{found}sockets: {' '.join(sockets)}\ndirect: {' '.join(answers)}\n"
        f"honest: {honest_status}\nmemory read: {' '.join(read)}; memory control: {control}; "
        f"ancestors' memory: {ancestors}; "
        f"keys tried: {len(hunt.keys)}; "
        f"files read: {hunt.files_read}; {'out of time' if hunt.out_of_time() else 'searched everything'}\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
