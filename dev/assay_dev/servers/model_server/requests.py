"""What a request in each protocol holds: its tools, the turns already played, the working directory, and
the tool call that carries out a script step with the CLI's own tool."""

from __future__ import annotations

import re
import shlex
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from assay_dev.servers.model_server.script import Shell, WriteFile

Protocol = Literal["chat", "responses", "messages"]


def text_of(value: Any) -> str:
    """All the strings inside a JSON value, joined: to search a request for a text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(text_of(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    return ""


def shape_problems(protocol: Protocol, body: dict[str, Any]) -> list[str]:
    problems = []
    if not isinstance(body.get("model"), str):
        problems.append("no model")
    history_key = {"chat": "messages", "responses": "input", "messages": "messages"}[protocol]
    if not isinstance(body.get(history_key), list):
        problems.append(f"no {history_key} list")
    tools = body.get("tools", [])
    if not isinstance(tools, list):
        problems.append("tools is not a list")
    return problems


def tool_names(protocol: Protocol, body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        if protocol == "chat":
            names.append(str(tool.get("function", {}).get("name")))
        else:  # responses: {"type": "function", "name"}; messages: {"name", "input_schema"}
            names.append(str(tool.get("name")))
    return names


def completed_turns(protocol: Protocol, body: dict[str, Any]) -> int:
    """The number of tool results in the history: the turns of the conversation already played."""
    if protocol == "chat":
        return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if protocol == "responses":
        return sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
    return sum(
        1
        for m in body.get("messages", [])
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


_CWD_PATTERNS = (
    re.compile(r"Primary working directory: (\S+)"),  # Claude Code
    re.compile(r"Working directory: (\S+)"),  # OpenCode
    re.compile(r"<cwd>([^<]+)</cwd>"),  # Codex
)


def working_directory(text: str) -> str | None:
    for pattern in _CWD_PATTERNS:
        found = pattern.search(text)
        if found:
            return found.group(1)
    return None


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    call_id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:16]}")


def tool_call(protocol: Protocol, offered: list[str], cwd: str | None, step: WriteFile | Shell) -> ToolCall:
    """The CLI's own tool for `step`, by the name and argument names that CLI declares."""
    if isinstance(step, Shell):
        if protocol != "responses" or "exec_command" not in offered:
            raise LookupError(f"no shell tool offered (tools: {offered})")
        return ToolCall("exec_command", {"cmd": step.command})
    if protocol == "responses":  # Codex edits files through its shell tool
        if "exec_command" not in offered:
            raise LookupError(f"no exec_command tool offered (tools: {offered})")
        return ToolCall(
            "exec_command", {"cmd": f"printf '%s' {shlex.quote(step.text)} > {shlex.quote(step.path)}"}
        )
    if cwd is None:
        raise LookupError("no working directory found in the request (needed for an absolute path)")
    target = f"{cwd.rstrip('/')}/{step.path}"
    if protocol == "messages":
        if "Write" not in offered:
            raise LookupError(f"no Write tool offered (tools: {offered})")
        return ToolCall("Write", {"file_path": target, "content": step.text})
    if "write" not in offered:
        raise LookupError(f"no write tool offered (tools: {offered})")
    return ToolCall("write", {"filePath": target, "content": step.text})
