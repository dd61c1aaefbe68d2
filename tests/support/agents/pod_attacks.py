"""Issue 36's attacks from inside a cell, one per ticket, for an answer pod on the control plane.

Usage: python pod_attacks.py TICKET_ID MARKER. It runs in the ticket's workspace like any agent, in the
cell's sandbox. MARKER is a word the test looks for in the node's process table (the cells' command lines).
Cells that act together talk through a board kept by the test's model server, reached the only way a cell
reaches anything: its own metering proxy (`board put KEY VALUE` / `board get KEY` as the user message; the
reply is the value). What each attack tried and what the kernel said goes to stderr (the cell's
transcript) as one line, `attack {json}`.

Tickets:
  T-honest   answers well.
  T-victim   writes a bad answer, posts its pid and answer path, waits until T-proc is done; its answer is
             whatever answer.md holds then.
  T-proc     reads T-victim's pid and answer path from the board and goes through /proc for it (environ,
             cmdline, the listing), the runner's /proc/1, and T-victim's answer file itself, which it tries
             to overwrite with a good answer; answers well.
  T-lender   posts its proxy URL (not its credential), answers well once T-cred is done.
  T-cred     calls the model on T-lender's URL with its own credential (a neighbour's URL, as /proc would
             give it); answers well.
  T-forged   calls the model on its own URL with a credential it made up; answers well.
  T-symlink  leaves answer.md as a symbolic link to the public suite (outside its workspace).
  T-hardlink tries hard links to files outside its workspace (the public suite, the brain, T-victim's
             answer), then leaves answer.md as a hard link to its own prompt.md.
  T-zombie   answers well and forks a child whose main thread ends with the raw exit syscall while its
             second thread runs on (the node shows a zombie leader with a live thread); it exits once the
             test says it saw that child (board `zombie-seen`), leaving it behind, or exits 3 after 120 s.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from pathlib import Path

GOOD = (
    "## Summary\nOpen Settings > Export [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n"
    "## Next\nReply if anything is unclear.\n"
)
BAD = "I do not know.\n"
PUBLIC_SUITE = "/etc/assay/suite/suite.yaml"
BRAIN = "/etc/assay/brain"
SYS_EXIT = {"x86_64": 60, "aarch64": 93}  # exit(2): ends the calling thread only, unlike exit_group(2)


def call(url: str, credential: str, content: str) -> tuple[int, str]:
    """One chat completion on `url` presenting `credential`: (HTTP status, the reply's text)."""
    body = {"model": os.environ["ASSAY_MODEL"], "messages": [{"role": "user", "content": content}]}
    request = urllib.request.Request(
        url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {credential}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            text = json.loads(reply.read())["choices"][0]["message"]["content"] or ""
            return reply.status, text
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")[:300]


def board(*words: str) -> str:
    status, text = call(os.environ["ASSAY_GATEWAY_URL"], os.environ["ASSAY_PROXY_KEY"], " ".join(words))
    if status != 200:
        raise SystemExit(f"the board answered {status}: {text}")
    return text


def wait_on_board(key: str, within: float = 120.0) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if value := board("board get", key):
            return value
        time.sleep(0.2)
    raise SystemExit(f"board key {key!r} never came")


def attempt(action: Callable[[], object]) -> str:
    try:
        return f"done: {action()}"[:200]
    except OSError as exc:
        return f"refused: {exc.strerror or exc}"


def report(found: dict[str, str]) -> None:
    print("attack " + json.dumps(found), file=sys.stderr, flush=True)


def honest() -> None:
    Path("answer.md").write_text(GOOD)


def victim() -> None:
    Path("answer.md").write_text(BAD)
    board("board put", "victim", f"{os.getpid()} {Path('answer.md').resolve()}")
    wait_on_board("proc-done")


def proc() -> None:
    pid, answer = wait_on_board("victim").split(" ", 1)
    report(
        {
            "list /proc": attempt(lambda: len(os.listdir("/proc"))),
            "victim environ": attempt(lambda: Path(f"/proc/{pid}/environ").read_bytes()[:80]),
            "victim cmdline": attempt(lambda: Path(f"/proc/{pid}/cmdline").read_bytes()[:80]),
            "runner environ": attempt(lambda: Path("/proc/1/environ").read_bytes()[:80]),
            "overwrite victim answer": attempt(lambda: Path(answer).write_text(GOOD)),
            "list victim workspace": attempt(lambda: os.listdir(Path(answer).parent)),
        }
    )
    board("board put", "proc-done", "yes")
    Path("answer.md").write_text(GOOD)


def lender() -> None:
    board("board put", "lender-url", os.environ["ASSAY_GATEWAY_URL"])
    wait_on_board("cred-done")
    Path("answer.md").write_text(GOOD)


def cred() -> None:
    url = wait_on_board("lender-url")
    status, text = call(url, os.environ["ASSAY_PROXY_KEY"], "hello")
    report({"neighbour's URL": f"{status} {text}"})
    board("board put", "cred-done", "yes")
    Path("answer.md").write_text(GOOD)


def forged() -> None:
    status, text = call(os.environ["ASSAY_GATEWAY_URL"], "sk-made-up-0123456789", "hello")
    report({"own URL, made-up credential": f"{status} {text}"})
    Path("answer.md").write_text(GOOD)


def symlink() -> None:
    os.symlink(PUBLIC_SUITE, "answer.md")
    report({"read through the link": attempt(lambda: Path("answer.md").read_text()[:80])})


def hardlink() -> None:
    brain = next(iter(sorted(os.listdir("brain"))), "AGENTS.md")
    found = {}
    for name, target in (
        ("public suite", PUBLIC_SUITE),
        ("brain", f"{BRAIN}/{brain}"),
        ("victim answer", wait_on_board("victim").split(" ", 1)[1]),
    ):
        Path("answer.md").unlink(missing_ok=True)
        found[name] = attempt(partial(os.link, target, "answer.md"))
    Path("answer.md").unlink(missing_ok=True)
    found["own prompt.md"] = attempt(lambda: os.link("prompt.md", "answer.md"))
    report(found)


def zombie(marker: str) -> None:
    """A child whose main thread ends (SYS_exit) while its second thread runs: a zombie leader with a live
    thread, this cell's, left behind when the agent exits."""
    Path("answer.md").write_text(GOOD)
    if os.fork() == 0:
        os.setsid()  # out of the cell's process group: its group kill does not reach it
        libc = ctypes.CDLL(None, use_errno=True)

        def linger() -> None:
            while True:  # until killed; it touches its workspace now and then, as a worker would
                Path("heartbeat").write_text(str(time.time()))
                time.sleep(0.5)

        threading.Thread(target=linger).start()
        libc.syscall(SYS_EXIT[platform.machine()], 0)
    board("board put", "zombie-ready", marker)
    try:
        wait_on_board("zombie-seen")
    except SystemExit:
        os._exit(3)


def main() -> int:
    ticket, marker = sys.argv[1], sys.argv[2]
    attacks: dict[str, Callable[[], None]] = {
        "T-victim": victim,
        "T-proc": proc,
        "T-lender": lender,
        "T-cred": cred,
        "T-forged": forged,
        "T-symlink": symlink,
        "T-hardlink": hardlink,
        "T-zombie": lambda: zombie(marker),
    }
    attacks.get(ticket, honest)()
    return 0


if __name__ == "__main__":
    sys.exit(main())
