"""What a request in each protocol holds: its tools, the turns already played and what their tool calls
returned, the working directory, and the tool call that carries out a script step with the CLI's own tool."""

from __future__ import annotations

import re
import shlex
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from assay_dev.servers.model_server.script import ListFiles, ReadFile, Search, Shell, ToolStep, WriteFile

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


def tool_results(protocol: Protocol, body: dict[str, Any]) -> list[str]:
    """The text of every tool result in the history, oldest first, as the CLI sent it back."""
    if protocol == "chat":
        return [text_of(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"]
    if protocol == "responses":
        return [
            text_of(item.get("output"))
            for item in body.get("input", [])
            if item.get("type") == "function_call_output"
        ]
    return [
        text_of(block.get("content"))
        for m in body.get("messages", [])
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def tool_parameters(protocol: Protocol, body: dict[str, Any], name: str) -> set[str] | None:
    """The argument names the CLI declares for its tool `name` (None when it declares no schema)."""
    for tool in body.get("tools") or []:
        declared = tool.get("function", tool) if protocol == "chat" else tool
        if declared.get("name") != name:
            continue
        schema = declared.get("parameters") if protocol != "messages" else declared.get("input_schema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        return set(properties) if isinstance(properties, dict) else None
    return None


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


def _shell(offered: list[str], command: str) -> ToolCall:
    if "exec_command" not in offered:
        raise LookupError(f"no exec_command tool offered (tools: {offered})")
    return ToolCall("exec_command", {"cmd": command})


def _need(offered: list[str], name: str) -> None:
    if name not in offered:
        raise LookupError(f"no {name} tool offered (tools: {offered})")


def tool_call(protocol: Protocol, offered: list[str], cwd: str | None, step: ToolStep) -> ToolCall:
    """The CLI's own tool for `step`, by the name and argument names that CLI declares. Codex has no file
    tools for a model it has no metadata for: everything goes through its shell, as its prompt suggests
    (`rg --files`, `cat`, `rg -n`)."""
    if isinstance(step, Shell):
        if protocol != "responses":
            raise LookupError(f"no shell tool offered (tools: {offered})")
        return _shell(offered, step.command)
    if protocol == "responses":
        if isinstance(step, WriteFile):
            return _shell(offered, f"printf '%s' {shlex.quote(step.text)} > {shlex.quote(step.path)}")
        if isinstance(step, ListFiles):
            return _shell(offered, f"rg --files {shlex.quote(step.directory)}")
        if isinstance(step, ReadFile):
            return _shell(offered, f"cat {shlex.quote(step.path)}")
        return _shell(offered, f"rg -n {shlex.quote(step.pattern)} {shlex.quote(step.directory)}")
    if cwd is None:
        raise LookupError("no working directory found in the request (needed for an absolute path)")
    root = cwd.rstrip("/")
    claude = protocol == "messages"
    if isinstance(step, WriteFile):
        name = "Write" if claude else "write"
        _need(offered, name)
        path_key = "file_path" if claude else "filePath"
        return ToolCall(name, {path_key: f"{root}/{step.path}", "content": step.text})
    if isinstance(step, ListFiles):
        name = "Glob" if claude else "glob"
        _need(offered, name)
        return ToolCall(name, {"pattern": "*", "path": f"{root}/{step.directory}"})
    if isinstance(step, ReadFile):
        name = "Read" if claude else "read"
        _need(offered, name)
        return ToolCall(name, {"file_path" if claude else "filePath": f"{root}/{step.path}"})
    assert isinstance(step, Search)
    name = "Grep" if claude else "grep"
    _need(offered, name)
    arguments: dict[str, Any] = {"pattern": step.pattern, "path": f"{root}/{step.directory}"}
    if claude:
        arguments |= {"output_mode": "content", "-n": True}
    return ToolCall(name, arguments)
