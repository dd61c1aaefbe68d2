"""What the three trajectory parsers share: bounded texts, workspace-relative paths, a shell command read as
an action, JSON lines with their stamps, and the bounded list of steps."""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from assay_runner.contract import (
    TRAJECTORY_MAX_STEPS,
    TRAJECTORY_TEXT_CHARS,
    AgentError,
    ModelTurn,
    ToolAction,
    ToolCall,
    Trajectory,
)

Step = ModelTurn | ToolCall | AgentError


def clip(text: str) -> tuple[str, int]:
    """The text cut to TRAJECTORY_TEXT_CHARS, and how many characters were cut."""
    if len(text) <= TRAJECTORY_TEXT_CHARS:
        return text, 0
    return text[:TRAJECTORY_TEXT_CHARS], len(text) - TRAJECTORY_TEXT_CHARS


def clip_arguments(arguments: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """Long string arguments (a file's whole content) cut like results; other values kept as they are."""
    kept: dict[str, Any] = {}
    cut = 0
    for key, value in arguments.items():
        if isinstance(value, str):
            kept[str(key)], lost = clip(value)
            cut += lost
        else:
            kept[str(key)] = value
    return kept, cut


def text_of(value: Any) -> str:
    """A tool result as text: a string, or the text parts of a list of content blocks."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(item) for item in value)
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return str(value["text"])
        if "content" in value:
            return text_of(value["content"])
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def relative(path: str, root: str) -> str:
    """`path` relative to the workspace when it is inside it, normalised; else as given."""
    if not path:
        return path
    root = root.rstrip("/")
    absolute = posixpath.normpath(path if posixpath.isabs(path) else posixpath.join(root, path))
    if root and (absolute == root or absolute.startswith(root + "/")):
        return posixpath.relpath(absolute, root)
    return posixpath.normpath(path)


# Shell commands, read for what they did: enough to tell a listing from a read, a search and a write.
_LIST = {"ls", "find", "tree", "fd"}
_READ = {"cat", "head", "tail", "less", "more", "nl", "wc", "bat", "sed", "awk"}
_SEARCH = {"rg", "grep", "egrep", "ag", "ack"}
_WRITE = {"tee", "cp", "mv", "mkdir", "touch", "rm", "apply_patch", "patch"}
_SCRIPTED = {"sed", "awk"}  # their first operand is a script, not a file
_WRAPPER = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/bin/zsh")
_VALUED = {
    "head": {"-n", "-c"},
    "tail": {"-n", "-c"},
    "rg": {"-e", "-f", "-g", "--glob", "-t", "--type", "-m", "--max-count", "-A", "-B", "-C"},
    "grep": {"-e", "-f", "-m", "--max-count", "-A", "-B", "-C"},
    "sed": {"-e", "-f"},
    "awk": {"-f", "-v", "-F"},
    "find": {"-name", "-iname", "-type", "-maxdepth", "-mindepth", "-path"},
}
"""Options whose value is the next word, by command (`head -n 20`, `rg -g '*.md'`): that word is no path."""


def unwrap_shell(command: str) -> str:
    """`/bin/bash -lc 'cat kb/a.md'` -> `cat kb/a.md` (Codex reports commands with their shell)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if len(words) == 3 and words[0] in _WRAPPER and words[1] in ("-c", "-lc", "-ic"):
        return words[2]
    return command


def _operands(words: list[str]) -> list[str]:
    """The words after the command that are neither options nor their values, nor redirections."""
    valued = _VALUED.get(posixpath.basename(words[0]), set())
    found: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in valued:
            skip = True
        elif not word.startswith(("-", ">", "<", "2>")):
            found.append(word)
    return found


def _segment(words: list[str], root: str) -> tuple[ToolAction, list[str]]:
    name = posixpath.basename(words[0])
    targets = [w.lstrip(">") for w in words if w.startswith(">") and w.lstrip(">")]
    targets += [words[i + 1] for i, w in enumerate(words[:-1]) if w in (">", ">>")]
    operands = [w for w in _operands(words) if w not in targets]
    if targets or name in _WRITE or (name in ("printf", "echo") and targets):
        paths = targets or operands
        return "write", [relative(p, root) for p in paths]
    if name == "rg" and "--files" in words:
        return "list", [relative(p, root) for p in operands]
    if name in _SEARCH:
        return "search", [relative(p, root) for p in operands[1:]]  # the first operand is the pattern
    if name in _LIST:
        return "list", [relative(p, root) for p in operands if not p.startswith("(")]
    if name in _READ:
        files = operands[1:] if name in _SCRIPTED else operands
        return "read", [relative(p, root) for p in files if not p.isdigit()]
    return "shell", []


_OPERATORS = {"&&", "||", ";", "|", "&", ";;", "|&"}


def _words(command: str) -> list[list[str]]:
    """The simple commands of a shell list or pipeline, each as its words (quotes respected: a `|` or `;`
    inside a quoted argument is text)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    segments: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in _OPERATORS:
                segments.append([])
            else:
                segments[-1].append(token)
    except ValueError:  # unbalanced quotes: read it as plain words
        return [command.split()]
    return [words for words in segments if words]


def shell_action(command: str, root: str) -> tuple[ToolAction, list[str]]:
    """What a shell command did (one action when every part of a pipeline or list agrees, else `shell`)
    and the paths it named, relative to the workspace."""
    actions: set[ToolAction] = set()
    paths: list[str] = []
    for words in _words(unwrap_shell(command)):
        action, named = _segment(words, root)
        actions.add(action)
        paths.extend(named)
    overall: ToolAction = actions.pop() if len(actions) == 1 else "shell"
    return overall, list(dict.fromkeys(p for p in paths if p))


def json_object_lines(stdout: str, *, reverse: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line of the output that is a JSON object, with its index, parsed as it is reached (from the end
    with `reverse`, so a reader of the last result parses one line); other lines are noise."""
    lines = stdout.splitlines()
    for index in range(len(lines) - 1, -1, -1) if reverse else range(len(lines)):
        line = lines[index].strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield index, value


def json_lines(stdout: str, times: Sequence[float | None]) -> Iterator[tuple[dict[str, Any], float | None]]:
    """Each JSON object line of the output with the time it was read."""
    for index, value in json_object_lines(stdout):
        yield value, times[index] if index < len(times) else None


class Steps:
    """The steps of one trajectory, at most TRAJECTORY_MAX_STEPS (the first ones), and the last time seen
    (where the next step begins)."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.dropped = 0
        self.last: float | None = 0.0

    def add(self, step: Step) -> Step:
        if len(self.steps) < TRAJECTORY_MAX_STEPS:
            self.steps.append(step)
        else:
            self.dropped += 1
        return step

    def seen(self, when: float | None) -> None:
        if when is not None:
            self.last = when

    def trajectory(
        self, agent: str, input_tokens: int | None, output_tokens: int | None
    ) -> Trajectory | None:
        if not self.steps and not self.dropped:
            return None
        return Trajectory(
            agent=agent,
            steps=list(self.steps),
            dropped_steps=self.dropped,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )


def tool_call(
    tool: str,
    action: ToolAction,
    arguments: Mapping[str, Any],
    paths: list[str],
    *,
    start: float | None,
    end: float | None = None,
    result: str = "",
    ok: bool = True,
) -> ToolCall:
    kept, cut = clip_arguments(arguments)
    text, lost = clip(result)
    return ToolCall(
        start=start,
        end=end,
        tool=tool,
        action=action,
        arguments=kept,
        paths=[p for p in paths if p],
        result=text,
        ok=ok,
        cut=cut + lost,
    )


def finish_call(call: ToolCall, result: str, ok: bool, end: float | None) -> None:
    """A call's result arrived after the call (Claude Code, Codex): fill it in."""
    text, lost = clip(result)
    call.result = text
    call.ok = ok
    call.end = end
    call.cut += lost


def positive(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
