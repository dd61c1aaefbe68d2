"""A small real agent program for tests: it reads its workspace and writes an answer, or misbehaves.

Usage: python fake_agent.py MODE [SECONDS]. It runs in the ticket's workspace (cwd) like any agent.
Modes:
  good     cite every article id named in brain/AGENTS.md's "cite:" line, answer in three sections
  sleep    like good, after sleeping SECONDS
  crash    print to stderr and exit 3 without an answer
  hang     sleep forever (killed by the per-ticket timeout), after writing its pid to ASSAY_TEST_PIDS
  tamper   try to overwrite brain/AGENTS.md and kb/, then answer
  env      answer with the environment variable names it can see and the workspace listing
  gateway  ask the gateway (ASSAY_GATEWAY_URL) for the answer with the chat-completions protocol
Every run appends "start/end <ticket> <time>" to $ASSAY_TEST_EVENTS when set, for concurrency checks.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import urllib.request
from pathlib import Path


def event(kind: str, ticket: str) -> None:
    path = os.environ.get("ASSAY_TEST_EVENTS")
    if path:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(f"{kind} {ticket} {time.monotonic():.6f}\n")


def good_answer() -> str:
    brain = Path("brain/AGENTS.md").read_text(encoding="utf-8") if Path("brain/AGENTS.md").exists() else ""
    cite = re.search(r"^cite:\s*(.*)$", brain, re.MULTILINE)
    articles = cite.group(1).split() if cite else []
    return (
        "## Summary\nHere is what to do " + " ".join(f"[{a}]" for a in articles) + ".\n\n"
        "## Steps\n1. Open Settings > Export.\n\n## Next\nReply if anything is unclear.\n"
    )


def main() -> int:
    mode = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    ticket = re.search(r"ticket (\S+)", Path("prompt.md").read_text(encoding="utf-8")).group(1)  # type: ignore[union-attr]
    event("start", ticket)
    answer = Path("answer.md")
    try:
        if mode == "crash":
            print("agent exploded", file=sys.stderr)
            return 3
        if mode == "hang":
            pids = os.environ.get("ASSAY_TEST_PIDS")
            if pids:
                with open(pids, "a", encoding="utf-8") as stream:
                    stream.write(f"{os.getpid()}\n")
            time.sleep(3600)
        if mode == "sleep":
            time.sleep(seconds)
        if mode == "tamper":
            for target in (Path("brain/AGENTS.md"), Path("kb/KB-1.md")):
                try:
                    os.chmod(target, 0o644)
                    target.write_text("tampered\n", encoding="utf-8")
                except OSError as exc:
                    print(f"could not tamper with {target}: {exc}", file=sys.stderr)
        if mode == "env":
            listing = sorted(str(p) for p in Path(".").rglob("*") if ".home" not in p.parts)
            answer.write_text("ENV " + " ".join(sorted(os.environ)) + "\nFILES " + " ".join(listing) + "\n")
            return 0
        if mode == "gateway":
            body = json.dumps(
                {
                    "model": os.environ["ASSAY_MODEL"],
                    "messages": [{"role": "user", "content": Path("prompt.md").read_text(encoding="utf-8")}],
                }
            ).encode()
            request = urllib.request.Request(
                os.environ["ASSAY_GATEWAY_URL"] + "/chat/completions",
                data=body,
                # Its cell's own credential at the metering proxy, as a CLI sends its API key.
                headers={
                    "content-type": "application/json",
                    "authorization": f"Bearer {os.environ.get('ASSAY_PROXY_KEY', '')}",
                },
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                reply = json.load(response)
            answer.write_text(reply["choices"][0]["message"]["content"], encoding="utf-8")
            return 0
        answer.write_text(good_answer(), encoding="utf-8")
        return 0
    finally:
        event("end", ticket)


if __name__ == "__main__":
    sys.exit(main())
