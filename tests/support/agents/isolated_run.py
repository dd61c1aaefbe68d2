"""`assay run` with a real agent CLI and the scripted model server, both in a network namespace of their own.

Usage: unshare --net --mount python isolated_run.py SPEC.json  (as root). The namespace has a loopback
interface, brought up here, and with `"blackhole": true` the blackhole of blackhole.py: every packet that
tries to leave loopback is recorded (`attempts`) and never answered. The CLI can reach the scripted server
and nothing else.

SPEC.json: {"model", "script": [step, ...] or {"conversation": name, ...}, "assay": [argv after `assay
run`, without --gateway], "env": {runner environment}, "work": workspace base, "record": where to write what
happened, "blackhole": bool, "break": [paths], "no_gateway": bool (no --gateway), "no_server": bool (the
model server is stopped before assay runs, and no --gateway)}. With `--judge-model M` in "assay" the server
stands in for M too, as the model customer (who plays on the run's judge model): tests/support/
conversations.py's `model_customer` replies. A step is {"write": [path, text]}, {"shell": command}, {"say":
text}, {"fail": [status, retry_after or null]} or {"hang": seconds} (held until the seconds pass or every
process of the CLI has exited, whichever comes first); a named conversation is one of
conversations.py's (they decide steps from the tool results). Each path in "break" gets a stand-in
bind-mounted over it (this mount namespace only) that fails like a broken install: a tool that runs it fails.

While `assay run` runs, every process whose working directory is inside the workspace base (the CLI and
everything it starts) is noted with its environment's variable names; afterwards the record says which of
them are still alive. The record: exit code, stdout/stderr of `assay run`, the server's requests, problems
and reported usage, the processes seen and the survivors, and when the model first held a request (seconds
after the start, or null; at that moment, RECORD.held is written with it).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from assay_dev.servers.model_server import (
    Fail,
    Hang,
    ModelServer,
    Say,
    Script,
    ScriptChooser,
    Shell,
    Step,
    WriteFile,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from tests.support.agents.blackhole import Blackhole
from tests.support.agents.conversations import conversation
from tests.support.conversations import model_customer

BROKEN = '#!/bin/sh\necho "$0: broken for this test (exit 2)" >&2\nexit 2\n'


def step_of(raw: dict[str, Any]) -> Step:
    if "write" in raw:
        return WriteFile(*raw["write"])
    if "shell" in raw:
        return Shell(raw["shell"])
    if "say" in raw:
        return Say(raw["say"])
    if "fail" in raw:
        return Fail(*raw["fail"])
    if "hang" in raw:
        return Hang(raw["hang"])
    raise ValueError(f"unknown step {raw!r}")


def script_of(raw: list[dict[str, Any]] | dict[str, Any]) -> Script | ScriptChooser:
    if isinstance(raw, dict):
        return conversation(**raw)
    return [step_of(step) for step in raw]


def break_paths(paths: list[str], scratch: Path) -> None:
    stand_in = scratch / "broken-tool"
    stand_in.write_text(BROKEN)
    stand_in.chmod(0o755)
    for path in paths:
        subprocess.run(["mount", "--bind", str(stand_in), path], check=True)


def processes_in(work: Path) -> dict[int, dict[str, Any]]:
    """Live processes whose working directory is inside `work`: pid -> argv and environment names."""
    found: dict[int, dict[str, Any]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            if not cwd.startswith(str(work)):
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        names = sorted({item.split(b"=", 1)[0].decode() for item in environ if b"=" in item})
        found[int(entry.name)] = {"argv": [a.decode(errors="replace") for a in argv if a], "env": names}
    return found


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status  # a zombie has exited; only its parent has not reaped it yet


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    work = Path(spec["work"])
    work.mkdir(parents=True, exist_ok=True)
    script = script_of(spec["script"])
    break_paths(spec.get("break", []), work.parent)
    blackhole = Blackhole()
    if spec.get("blackhole"):
        blackhole.open(work.parent / "resolv.conf")
    seen: dict[int, dict[str, Any]] = {}
    started = time.monotonic()
    assay = spec["assay"]
    judge = assay[assay.index("--judge-model") + 1] if "--judge-model" in assay else None
    others = {judge: model_customer} if judge else {}
    server = ModelServer(script, model=spec["model"], others=others)
    with contextlib.ExitStack() as serving:
        serving.enter_context(server)
        if spec.get("no_server"):
            serving.close()  # stopped before assay runs: nothing answers on its port any more
        env = {**spec["env"], "TMPDIR": str(work)}  # the runner's workspaces go under TMPDIR/assay-work
        offline = spec.get("no_gateway") or spec.get("no_server")
        gateway = [] if offline else ["--gateway", server.url]
        process = subprocess.Popen(
            [*spec["assay"], *gateway],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        done = threading.Event()

        runner_argv = [*spec["assay"], *gateway]
        held: dict[str, float] = {}  # when the model first held a request, seconds after the start

        def watch() -> None:
            while not done.is_set():
                for pid, info in processes_in(work).items():
                    # A child the runner has forked but not yet exec'd has the runner's own argv and
                    # environment (and already the workspace as cwd): it is not the CLI; its exec'd self is.
                    if info["argv"] != runner_argv:
                        seen.setdefault(pid, info)
                if server.hanging():
                    if "first" not in held:
                        held["first"] = round(time.monotonic() - started, 2)
                        Path(spec["record"] + ".held").write_text(f"{held['first']}\n")
                    # A held request whose every client process is gone (the CLI was killed) is closed now:
                    # nobody waits for it but Assay's metering proxy, which would otherwise sit out the hang.
                    cli = [pid for pid in seen if pid != process.pid]
                    if cli and not any(alive(pid) for pid in cli):
                        server.release_hangs()
                time.sleep(0.05)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        stdout, stderr = process.communicate(timeout=spec.get("deadline", 240))
        wall = time.monotonic() - started
        done.set()
        watcher.join()
        survivors = [pid for pid in seen if alive(pid) and pid != process.pid]
        record = {
            "exit_code": process.returncode,
            "stdout": stdout[-20000:],
            "stderr": stderr[-20000:],
            "requests": [
                {
                    "method": r.method,
                    "path": r.path,
                    "headers": r.headers,
                    "body": r.body,
                    "protocol": r.protocol,
                    "status": r.status,
                    "usage": None if r.usage is None else [r.usage.prompt_tokens, r.usage.output_tokens],
                }
                for r in server.requests
            ],
            "problems": server.problems,
            "reported_usage": [server.reported_usage().prompt_tokens, server.reported_usage().output_tokens],
            "processes": {str(pid): info for pid, info in seen.items()},
            "survivors": survivors,
            "attempts": [str(a) for a in blackhole.close()] if spec.get("blackhole") else None,
            "wall_seconds": round(wall, 2),
            "first_held_at": held.get("first"),
        }
    Path(spec["record"]).write_text(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
