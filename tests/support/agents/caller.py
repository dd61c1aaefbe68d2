"""An agent that calls its model through the gateway URL it is given, for the metering tests.

Usage: python caller.py PROTOCOL CALLS [stream|plain] [then-hang] [URL]
  PROTOCOL  chat | responses | messages: the wire protocol of each call (as OpenCode, Codex, Claude Code)
  CALLS     how many calls to make, one after another
  then-hang after the first reply's first bytes, stop reading and sleep until killed (a cell killed at
            its timeout in the middle of a reply)
  URL       call this base URL instead of the one the runner gives (bench/proxy_overhead.py: the same
            agent straight to the upstream, to compare)
It writes the replies' lengths and the names of every environment variable it sees into answer.md, and
answers with a good support answer, so a cell that made its calls passes the example judges.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}
GOOD = "## Summary\nSee [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nReply if unclear.\n"


def body(protocol: str, stream: bool) -> bytes:
    model = os.environ["ASSAY_MODEL"]
    if protocol == "responses":
        request = {"model": model, "input": [{"role": "user", "content": "hello"}], "stream": stream}
    elif protocol == "messages":
        request = {"model": model, "max_tokens": 64, "messages": [{"role": "user", "content": "hello"}]}
        request["stream"] = stream
    else:
        request = {"model": model, "messages": [{"role": "user", "content": "hello"}], "stream": stream}
    return json.dumps(request).encode()


def main() -> int:
    protocol, calls = sys.argv[1], int(sys.argv[2])
    stream = len(sys.argv) > 3 and sys.argv[3] == "stream"
    hang = "then-hang" in sys.argv[4:]
    given = [arg for arg in sys.argv[4:] if arg.startswith("http")]
    base = (given[0] if given else os.environ["ASSAY_GATEWAY_URL"]).rstrip("/")
    if protocol == "messages":
        base = base.removesuffix("/v1") + "/v1"  # as Claude Code: {base}/v1/messages
    key = os.environ.get("ASSAY_PROXY_KEY", "whatever-i-have")  # its cell's own credential at the proxy
    lengths = []
    for _ in range(calls):
        request = urllib.request.Request(
            base + PATHS[protocol],
            data=body(protocol, stream),
            headers={"content-type": "application/json", "authorization": f"Bearer {key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                if hang:
                    reply.read(1)
                    time.sleep(3600)
                lengths.append(len(reply.read()))
        except urllib.error.HTTPError as exc:
            lengths.append(-exc.code)
            break
    Path("answer.md").write_text(
        GOOD + f"\nREPLIES {lengths}\nENV {' '.join(sorted(os.environ))}\n", encoding="utf-8"
    )
    return 0 if all(length > 0 for length in lengths) else 1


if __name__ == "__main__":
    sys.exit(main())
