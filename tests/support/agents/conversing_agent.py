"""A command agent that converses, for `--command` / `--continue-command` (issue 40).

`conversing_agent.py open SESSION` opens a session in its HOME (the cell's) and asks which router the
customer has; `conversing_agent.py continue SESSION MESSAGE` continues it: it answers when the message
names the router, else asks again. Asked to continue a session its HOME does not hold, it fails (exit 3),
as the CLIs do.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ASKING = "## Summary\nI need one detail first.\n\nWhich router model do you have?\n"
ANSWER = (
    "## Summary\nYour Zyxel VMG8825 needs a firmware update [KB-7].\n"
    "## Steps\n1. Install firmware 5.50 from the router's page.\n## Next\nReply if it drops again.\n"
)


def main(argv: list[str]) -> int:
    mode, session = argv[0], argv[1]
    sessions = Path(os.environ["HOME"]) / "sessions"
    record = sessions / session
    if mode == "open":
        sessions.mkdir(exist_ok=True)
        record.write_text("opened\n")
        Path("answer.md").write_text(ASKING)
        return 0
    if not record.is_file():
        print(f"no session {session} here", file=sys.stderr)
        return 3
    message = argv[2]
    with record.open("a") as log:
        log.write(f"customer: {message}\n")
    Path("answer.md").write_text(ANSWER if "VMG8825" in message else ASKING)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
