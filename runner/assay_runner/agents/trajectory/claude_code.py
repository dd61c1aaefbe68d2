"""Claude Code's `--output-format stream-json --verbose` lines as a trajectory.

Lines: `system` (init), `assistant` (one model reply, or one content block of it: lines with the same
`message.id` are one reply; `text`, `thinking` and `tool_use` blocks; its `usage`), `user` (the tool results,
`tool_result` blocks by `tool_use_id`, `is_error`), `result` (the end: `is_error`, `subtype`, the run's
`usage`). A subagent's lines (`parent_tool_use_id` set) are steps too: they are what the agent did.
Per-reply `usage.output_tokens` in this stream is the count at the reply's start, not its end, so turns carry
their prompt tokens only; the run's tokens come from the result line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay_runner.agents.trajectory.common import (
    Steps,
    clip,
    finish_call,
    json_lines,
    positive,
    relative,
    text_of,
    tool_call,
)
from assay_runner.contract import AgentError, ModelTurn, ToolAction, ToolCall, Trajectory

ACTIONS: dict[str, ToolAction] = {
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Glob": "list",
    "LS": "list",
    "Grep": "search",
    "Bash": "shell",
    "WebFetch": "web",
    "WebSearch": "web",
    "Task": "delegate",
    "Agent": "delegate",
}
PATH_ARGUMENTS = ("file_path", "path", "notebook_path")


def _paths(arguments: dict[str, Any], root: str) -> list[str]:
    return [relative(str(arguments[k]), root) for k in PATH_ARGUMENTS if isinstance(arguments.get(k), str)]


def _prompt_tokens(usage: object) -> int | None:
    if not isinstance(usage, dict):
        return None
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(positive(usage.get(k)) for k in keys)


def parse(stdout: str, times: Sequence[float | None], root: str) -> Trajectory | None:
    steps = Steps()
    turns: dict[str, ModelTurn] = {}
    calls: dict[str, ToolCall] = {}
    totals: tuple[int | None, int | None] = (None, None)
    for event, when in json_lines(stdout, times):
        kind = event.get("type")
        message = event.get("message") if isinstance(event.get("message"), dict) else {}
        assert isinstance(message, dict)
        blocks = message.get("content") if isinstance(message.get("content"), list) else []
        assert isinstance(blocks, list)
        if kind == "assistant":
            key = str(message.get("id") or len(turns))
            turn = turns.get(key)
            if turn is None:
                turn = ModelTurn(start=steps.last, input_tokens=_prompt_tokens(message.get("usage")))
                turns[key] = turn
                steps.add(turn)
            turn.end = when
            said = [str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
            if said:
                joined = "\n\n".join(t for t in [turn.text, *said] if t.strip())
                turn.text, turn.cut = clip(joined)
            for block in blocks:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                arguments = block.get("input") if isinstance(block.get("input"), dict) else {}
                assert isinstance(arguments, dict)
                name = str(block.get("name", "?"))
                call = tool_call(
                    name, ACTIONS.get(name, "other"), arguments, _paths(arguments, root), start=when
                )
                calls[str(block.get("id"))] = call
                steps.add(call)
        elif kind == "user":
            for block in blocks:
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                found = calls.get(str(block.get("tool_use_id")))
                if found is not None:
                    finish_call(found, text_of(block.get("content")), not block.get("is_error"), when)
        elif kind == "result":
            usage = event.get("usage")
            if isinstance(usage, dict):
                totals = (_prompt_tokens(usage), positive(usage.get("output_tokens")))
            if event.get("is_error"):
                reason = event.get("result") if isinstance(event.get("result"), str) else None
                message_text = reason or str(event.get("subtype") or "error")
                steps.add(AgentError(start=when, end=when, message=clip(message_text)[0]))
        steps.seen(when)
    return steps.trajectory("claude-code", *totals)
