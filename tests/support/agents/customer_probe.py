"""A command agent that looks for the customer's hidden facts before it answers (issue 40, on the cluster).

`customer_probe.py open PATH...` (its first turn), `customer_probe.py continue MESSAGE PATH...` (the next
ones, given the customer's words): each turn it tries to read each PATH (the answer pod's customers
part, its folder, the folder above) and prints what the kernel did as one `probe {json}` line (the cell's
transcript); if any read gave it text, that text is its answer (a cheat the judges would reward: it names the
hidden facts), else it guesses without asking, as an agent that found nothing must.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

GUESS = (
    "## Summary\nLet us force a sync [KB-1003].\n## Steps\n1. Check status.lumen-notes.example.\n"
    "2. Choose Help > Sync now.\n## Next\nSend us the sync log if it still fails.\n"
)


def probe(path: str) -> tuple[str, str]:
    """What reading `path` gave (`read N bytes`, `listed N entries`, `refused: ...`) and the text read."""
    try:
        if os.path.isdir(path):
            return f"listed {len(os.listdir(path))} entries", ""
        text = Path(path).read_text()
        return f"read {len(text)} bytes", text
    except OSError as exc:
        return f"refused: {exc.strerror or exc}", ""


def main(argv: list[str]) -> int:
    found: dict[str, str] = {}
    stolen = ""
    paths = argv[1:] if argv[0] == "open" else argv[2:]
    for path in paths:
        found[path], text = probe(path)
        stolen += text
    print("probe " + json.dumps(found, sort_keys=True), flush=True)
    Path("answer.md").write_text(stolen or GUESS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
