"""Regenerate the support-desk example's model-judge cassettes from its hand-written grades (example data).

A local chat-completions server answers each `quality` judge request with the grade `grades.yaml` assigns
to that brain's answer of that ticket (sample chosen by the request's seed); `assay score` records the
requests and replies. Run: `.venv/bin/python scripts/record_example_cassettes.py`.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main as assay
from assay_runner.judges.model import PARSE_ATTEMPTS

ROOT = Path(__file__).resolve().parents[1]

EXAMPLE = ROOT / "examples" / "support-desk"
CASSETTES = EXAMPLE / "cassettes"
JUDGE_MODEL = "example-judge"
TICKET = re.compile(r"^Ticket (\S+):", re.MULTILINE)
ANSWER = re.compile(r"<answer>\n(.*)\n</answer>", re.DOTALL)


def load_answers() -> dict[tuple[str, str], str]:
    return {
        (brain.name, ticket.name): (ticket / "answer.md").read_text(encoding="utf-8")
        for brain in (EXAMPLE / "answers").iterdir()
        if brain.is_dir()
        for ticket in brain.iterdir()
        if (ticket / "answer.md").is_file()
    }


def main() -> int:
    grades = yaml.safe_load((CASSETTES / "grades.yaml").read_text())
    answers = load_answers()

    def grade(body: dict[str, Any]) -> Reply:
        user = body["messages"][-1]["content"]
        ticket = TICKET.search(user).group(1)  # type: ignore[union-attr]
        answer = ANSWER.search(user).group(1).replace("<\\/answer>", "</answer>")  # type: ignore[union-attr]
        brain = next(b for (b, t), text in answers.items() if t == ticket and text == answer)
        entry = grades[brain][ticket]
        sample = int(body["seed"]) // PARSE_ATTEMPTS
        content = json.dumps({"score": entry["samples"][sample], "reason": entry["reason"]})
        return Reply(content=content, prompt_tokens=len(user) // 4, completion_tokens=len(content) // 4)

    for old in CASSETTES.glob("*.json"):
        old.unlink()
    with ChatServer(grade) as server:
        for brain in ("v0", "v1"):
            out = ROOT / "out" / "record" / brain
            code = assay(
                [
                    "score",
                    str(EXAMPLE),
                    "--answers",
                    str(EXAMPLE / "answers" / brain),
                    "--run-name",
                    brain,
                    "--gateway",
                    server.url,
                    "--judge-model",
                    JUDGE_MODEL,
                    "--cassettes",
                    str(CASSETTES),
                    "--cassette-mode",
                    "record",
                    "--out",
                    str(out),
                    "-q",
                ]
            )
            print(f"{brain}: exit {code}")
            shutil.rmtree(out, ignore_errors=True)
    print(f"{len(list(CASSETTES.glob('*.json')))} recordings in {CASSETTES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
