"""Two cells of one run, one calling the model on the other's proxy URL: the metering proxy's test of each
cell's credential being its own.

Usage: python neighbour.py TICKET_ID DIR (DIR: a folder both cells can reach, given by the test)
  T-1 leaves its proxy URL in DIR (as a neighbour would find it in /proc/<pid>/environ), then waits, still
      running (its URL valid), until T-2 is done;
  T-2 calls T-1's URL with its own credential, as its CLI would (the API key it was given), and says
      what it got back.
Both answer with a good support answer, and the status the call got (T-2), in answer.md.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

GOOD = "## Summary\nSee [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nReply if unclear.\n"


def wait_for(path: Path, within: float = 60.0) -> None:
    deadline = time.monotonic() + within
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{path} never came")
        time.sleep(0.05)


def main() -> int:
    ticket, shared = sys.argv[1], Path(sys.argv[2])
    if ticket == "T-1":
        (shared / "url.tmp").write_text(os.environ["ASSAY_GATEWAY_URL"])
        (shared / "url.tmp").rename(shared / "url")
        wait_for(shared / "done")
        Path("answer.md").write_text(GOOD)
        return 0
    wait_for(shared / "url")
    body = {"model": os.environ["ASSAY_MODEL"], "messages": [{"role": "user", "content": "hi"}]}
    request = urllib.request.Request(
        (shared / "url").read_text().rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {os.environ['ASSAY_PROXY_KEY']}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            status = reply.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    Path("answer.md").write_text(GOOD + f"\nSTATUS {status}\n")
    (shared / "done").write_text("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
