"""An agent that turns another ticket's failure into a Pass, for the sealed-cells tests.

Usage: python daemon.py STATE_DIR — runs in the ticket's workspace like any agent.
  T-1: answers well, then leaves a daemon (double fork, setsid: out of the cell's process group) and exits.
       The daemon finds the answers tree the way a real one would (from any process's command line: an
       `--answers-out DIR`, or a RunConfig `--config FILE` naming `answersDir`), waits until T-2's cell is
       recorded as timed out (exit 124), then writes a good answer there, removes `exit_code` and rewrites
       `cell.json` as {"exitCode": 0}. It writes its pid to STATE_DIR/daemon.pid at once and
       STATE_DIR/rewrote once done.
  T-2: hangs until its timeout kills it.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
import time
from pathlib import Path

GOOD = "## Summary\nSee [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nReply if unclear.\n"


def answers_trees() -> list[Path]:
    found: list[Path] = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        for flag, value in itertools.pairwise(argv):
            path = Path(value) if Path(value).is_absolute() else cwd / value
            if flag == "--answers-out":
                found.append(path)
            elif flag == "--config" and path.is_file():
                match = re.search(r'"?answersDir"?\s*:\s*"?([^",}\n]+)', path.read_text(errors="replace"))
                if match:
                    found.append(Path(match.group(1).strip()))
    return found


def daemon(state: Path) -> None:
    (state / "daemon.pid").write_text(str(os.getpid()))
    deadline = time.monotonic() + 120
    known: dict[Path, None] = {}  # a tree once seen is remembered: the runner that named it may be gone
    while time.monotonic() < deadline:
        known.update(dict.fromkeys(answers_trees()))
        for tree in known:
            victim = tree / "T-2" / "1"
            record = victim / "cell.json"
            try:
                if json.loads(record.read_text()).get("exitCode") != 124:
                    continue
            except (OSError, ValueError):
                continue
            (victim / "answer.md").write_text(GOOD)
            (victim / "exit_code").unlink(missing_ok=True)
            record.write_text(json.dumps({"exitCode": 0}))
            (state / "rewrote").write_text(str(victim))
            return
        time.sleep(0.05)


def main() -> int:
    state = Path(sys.argv[1])
    ticket = Path("prompt.md").read_text().splitlines()[0]
    if "T-2" in ticket:
        time.sleep(3600)
        return 0
    Path("answer.md").write_text(GOOD)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for stream in (0, 1, 2):
                os.close(stream)
            daemon(state)
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
