"""Codex's `exec --json` events as a trajectory.

Events: `item.started` / `item.updated` / `item.completed` with an item (`agent_message`, `reasoning`,
`command_execution` with `command`, `aggregated_output` and `exit_code`, `file_change` with `changes`,
`mcp_tool_call`, `web_search`, `todo_list`, `error`), `turn.completed` (usage for the whole turn),
`turn.failed` and `error`. The stream has no event per model call and no per-call tokens: the trajectory
holds the messages the model wrote (reasoning summaries are left out), every tool call, the errors, and the
run's tokens. Codex has no file tools for a model it has no metadata for: its reads, listings and searches
are shell commands, read here for what they did (`cat` is a read, `rg --files` a listing, `rg` a search).
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
    shell_action,
    text_of,
    tool_call,
)
from assay_runner.contract import AgentError, ModelTurn, ToolAction, ToolCall, Trajectory


def _started(item: dict[str, Any], root: str, when: float | None) -> ToolCall | None:
    kind = item.get("type")
    if kind == "command_execution":
        command = str(item.get("command", ""))
        action, paths = shell_action(command, root)
        return tool_call("command_execution", action, {"command": command}, paths, start=when)
    if kind == "file_change":
        changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
        paths = [relative(str(c.get("path", "")), root) for c in changes]
        kinds = {str(c.get("kind")) for c in changes}
        change: ToolAction = "write" if kinds <= {"add"} else "edit"
        return tool_call("file_change", change, {"changes": changes}, paths, start=when)
    if kind == "mcp_tool_call":
        name = f"{item.get('server', '?')}.{item.get('tool', '?')}"
        arguments = item.get("arguments") if isinstance(item.get("arguments"), dict) else {}
        assert isinstance(arguments, dict)
        return tool_call(name, "other", arguments, [], start=when)
    if kind == "web_search":
        return tool_call("web_search", "web", {"query": str(item.get("query", ""))}, [], start=when)
    return None


def _outcome(item: dict[str, Any], action: ToolAction) -> tuple[str, bool]:
    kind = item.get("type")
    status = item.get("status")
    if kind == "command_execution":
        code = item.get("exit_code")
        # rg and grep exit 1 when nothing matched: a search that found nothing did what it was asked, as
        # Claude Code's Grep and OpenCode's grep report it (2 and up are their errors).
        # Codex marks any other exit `failed`: the exit code decides.
        done = code == 0 or (action == "search" and code == 1)
        return text_of(item.get("aggregated_output")), done
    if kind == "mcp_tool_call":
        error = item.get("error")
        return text_of(error if error else item.get("result")), not error and status != "failed"
    return ("" if status != "failed" else "failed"), status != "failed"


def parse(stdout: str, times: Sequence[float | None], root: str) -> Trajectory | None:
    steps = Steps()
    calls: dict[str, ToolCall] = {}
    prompt = output = 0
    counted = False
    for event, when in json_lines(stdout, times):
        kind = event.get("type")
        item = event.get("item") if isinstance(event.get("item"), dict) else None
        if kind in ("item.started", "item.updated", "item.completed") and item is not None:
            key = str(item.get("id"))
            call = calls.get(key)
            if call is None:
                call = _started(item, root, when)
                if call is not None:
                    steps.add(call)
                    calls[key] = call
            if kind == "item.completed":
                item_type = item.get("type")
                if call is not None:
                    result, ok = _outcome(item, call.action)
                    finish_call(call, result, ok, when)
                elif item_type in ("agent_message", "assistant_message") and isinstance(
                    item.get("text"), str
                ):
                    text, cut = clip(item["text"])
                    steps.add(ModelTurn(start=steps.last, end=when, text=text, cut=cut))
                elif item_type == "error":
                    steps.add(AgentError(start=when, end=when, message=clip(str(item.get("message", "")))[0]))
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
            # OpenAI counting: input_tokens includes the cached ones, output_tokens the reasoning ones.
            prompt += positive(usage.get("input_tokens"))
            output += positive(usage.get("output_tokens"))
            counted = True
        elif kind in ("turn.failed", "error"):
            error = event.get("error") if isinstance(event.get("error"), dict) else event
            assert isinstance(error, dict)
            steps.add(AgentError(start=when, end=when, message=clip(str(error.get("message", kind)))[0]))
        steps.seen(when)
    return steps.trajectory("codex", prompt if counted else None, output if counted else None)
