"""`make demo-agent`: the support-desk example answered by a real agent CLI, offline.

A real CLI (OpenCode by default; AGENT=claude-code or AGENT=codex), pinned in agents/ and installed by
`make agents`, runs headless on every ticket against the scripted model server on loopback
(assay_dev.servers.model_server). The "model" behind it is a script that reads before it answers, with the
CLI's own tools: it lists kb/, reads each article the listing names that the ticket's answer needs, searches
the KB, and only when the tools returned those articles writes the example's hand-written v1 answer to
answer.md (otherwise an answer saying it found nothing, which the judges block). What the demo shows is
everything around the model: the workspace, the CLI's real protocol and tools, its trajectory (in the report's
ticket panel), usage and cost from the CLI's own report, the judges (the trajectory judges included, the
model judge replayed from a copy of the example's cassettes, where the agent's own exchanges with the
scripted model are recorded, so the example's files stay as they are) and the gate, in
out/demo-agent/<agent>/ (result.json,
report.html).

Usage: python scripts/demo_agent.py [opencode|claude-code|codex]
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from assay_dev.servers.model_server import KbLookup, ModelServer, Results, Script

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "support-desk"
AGENTS_BIN = REPO / "agents" / "node_modules" / ".bin"
MODEL = "demo-scripted-model"
TICKET = re.compile(r"# Support ticket (\S+)")
CITED = re.compile(r"\bKB-\d+\b")
FALLBACK = (
    "## Summary\nI could not find the articles this needs in the knowledge base.\n\n"
    "## Steps\n1. I have passed your ticket to the team.\n\n## Next\nWe will come back to you.\n"
)


def script_for(text: str) -> Script:
    found = TICKET.search(text)
    if found is None:
        raise LookupError("no ticket id in the request")
    answer = (EXAMPLE / "answers" / "v1" / found.group(1) / "answer.md").read_text(encoding="utf-8")
    needed = list(dict.fromkeys(CITED.findall(answer)))
    titles = {a: (EXAMPLE / "kb" / f"{a}.md").read_text(encoding="utf-8").splitlines()[0] for a in needed}

    def answer_from(results: Results) -> str | None:
        # The hand-written answer only when the read tool returned every article it cites.
        read = all(titles[a].lstrip("# ") in results.reads.get(a, "") for a in needed)
        return answer if read else None

    return KbLookup(
        answer=answer_from,
        fallback=FALLBACK,
        search=needed[0] if needed else "support",
        wanted=lambda article: article in titles,
    ).script()


def main() -> int:
    agent = sys.argv[1] if len(sys.argv) > 1 else "opencode"
    out = REPO / "out" / "demo-agent" / agent
    env = {**os.environ, "PATH": f"{AGENTS_BIN}{os.pathsep}{os.environ['PATH']}"}
    scratch = tempfile.TemporaryDirectory(prefix="assay-demo-agent-")
    cassettes = Path(scratch.name) / "cassettes"
    shutil.copytree(EXAMPLE / "cassettes", cassettes)
    with scratch, ModelServer(script_for, model=MODEL) as server:
        print(f"== {agent} against the scripted model server at {server.url}", flush=True)
        done = subprocess.run(
            [
                sys.executable, "-m", "assay_runner.cli", "run", str(EXAMPLE),
                "--brain", str(EXAMPLE / "brains" / "v1"), "--agent", agent, "--model", MODEL,
                "--gateway", server.url, "--timeout", "120", "--judge-model", "example-judge",
                "--cassettes", str(cassettes), "--cassette-mode", "replay-or-record",
                "--run-name", f"support-desk-{agent}",
                "--no-mlflow", "--out", str(out),
            ],
            env=env,
            check=False,
        )  # fmt: skip
        calls = len([r for r in server.requests if r.status == 200])
    print(
        f"exit code {done.returncode} (0 Pass, 1 Blocked); {calls} model calls; report: {out / 'report.html'}"
    )
    if server.problems:
        print("the scripted server saw requests it did not expect:", *server.problems, sep="\n  ")
        return 1
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
