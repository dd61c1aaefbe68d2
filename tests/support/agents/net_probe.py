"""Tries TCP connections from wherever it runs (an answer pod's cell, or a control pod) and says what the
network did, for issue 37's boundary test.

Usage: python net_probe.py [--answer] NAME=HOST:PORT...
  NAME=HOST:PORT  each is connected to (3 s), and the outcome recorded as "connected", or the error's name
                  (ECONNREFUSED, timeout, EHOSTUNREACH, EACCES, ...). (Not JSON: the runner fills `{...}`
                  placeholders in an agent's command.)
  --answer      it runs as an agent in a cell: it also calls the model through its metering proxy (the
                gateway, through the pod's gateway sidecar), records the HTTP status as
                "gateway-via-sidecar", and writes the model's reply as its answer (answer.md).
The record goes to stderr (the cell's transcript, or the pod's log) as one line, `probe {json}`.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path


def connect(address: str) -> str:
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=3):
            return "connected"
    except TimeoutError:
        return "timeout"
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, str(error))


def call_model(content: str) -> tuple[int, str]:
    body = {"model": os.environ["ASSAY_MODEL"], "messages": [{"role": "user", "content": content}]}
    request = urllib.request.Request(
        os.environ["ASSAY_GATEWAY_URL"].rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {os.environ['ASSAY_PROXY_KEY']}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())["choices"][0]["message"]["content"] or ""
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")[:300]
    except OSError as error:
        return 0, str(error)


def main() -> int:
    arguments = sys.argv[1:]
    targets = dict(argument.split("=", 1) for argument in arguments if argument != "--answer")
    found = {name: connect(address) for name, address in targets.items()}
    if "--answer" in arguments:
        status, text = call_model("How do I export my notes?")
        found["gateway-via-sidecar"] = str(status)
        Path("answer.md").write_text(text if status == 200 else "I do not know.\n")
    print("probe " + json.dumps(found), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
