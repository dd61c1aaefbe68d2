"""A stand-in for the `codex` CLI, for the witness tests: it runs the shell commands its prompt names, sends
their output to its model as Codex does, and prints Codex's `exec --json` events.

Installed as `codex` on PATH; the preset runs it as `codex sandbox -- true` (the probe: exit 0) and then
`codex exec --sandbox ... --json ... PROMPT`. Each line of prompt.md (in the workspace) that starts with
`run: ` is a command, run with /bin/sh in the workspace. For each, a Responses call to the cell's gateway URL
(`ASSAY_GATEWAY_URL`, with the cell's credential `ASSAY_GATEWAY_TOKEN`) carries the command's output as a
`function_call_output`, as Codex's conversation does; one final call follows. The answer cites KB-1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

ANSWER = (
    "## Summary\nOpen Settings > Export [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nDone.\n"
)


def call(history: list[dict[str, object]]) -> None:
    body = {"model": os.environ["ASSAY_MODEL"], "input": history, "stream": False}
    request = urllib.request.Request(
        os.environ["ASSAY_GATEWAY_URL"].rstrip("/") + "/responses",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {os.environ['ASSAY_GATEWAY_TOKEN']}",
        },
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        reply.read()


def emit(event: dict[str, object]) -> None:
    print(json.dumps(event), flush=True)


def main() -> int:
    if sys.argv[1:2] == ["sandbox"]:
        return 0
    commands = [line[5:] for line in Path("prompt.md").read_text().splitlines() if line.startswith("run: ")]
    history: list[dict[str, object]] = [{"role": "user", "content": "answer the ticket"}]
    emit({"type": "thread.started", "thread_id": "t"})
    emit({"type": "turn.started"})
    for index, command in enumerate(commands):
        call(history)  # the model asks for the command
        ran = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=False)
        item = {
            "id": f"item_{index}",
            "type": "command_execution",
            "command": f"/bin/bash -lc {json.dumps(command)}",
        }
        emit({"type": "item.started", "item": {**item, "aggregated_output": "", "exit_code": None}})
        done = {**item, "aggregated_output": ran.stdout + ran.stderr, "exit_code": ran.returncode}
        emit(
            {
                "type": "item.completed",
                "item": {**done, "status": "completed" if ran.returncode == 0 else "failed"},
            }
        )
        history.append({"type": "function_call", "call_id": f"c{index}", "name": "shell", "arguments": "{}"})
        history.append({"type": "function_call_output", "call_id": f"c{index}", "output": ran.stdout})
    call(history)  # the final reply
    Path("answer.md").write_text(ANSWER)
    emit({"type": "item.completed", "item": {"id": "final", "type": "agent_message", "text": ANSWER}})
    emit({"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
