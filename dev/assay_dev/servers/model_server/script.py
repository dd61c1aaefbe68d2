"""What the scripted model does, turn by turn: the steps a test gives per conversation, and the usage
it reports.

Most steps are fixed ("write answer.md with this text"). `Then` is the step that makes a conversation depend
on what the tools returned: it is decided when its turn comes, from the results of the tool calls played so
far (as the CLI sent them back), so a script can read the file a listing named and answer with what the file
said — and a tool that did not run, or whose result never came back, changes the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class WriteFile:
    """Call the CLI's own file-writing tool: `path` (relative to its working directory) gets `text`."""

    path: str
    text: str


@dataclass(frozen=True)
class ListFiles:
    """Call the CLI's own tool for listing the files under `directory` (relative to its working directory):
    OpenCode's `glob`, Claude Code's `Glob`, Codex's shell (`rg --files`). All three run ripgrep."""

    directory: str


@dataclass(frozen=True)
class ReadFile:
    """Call the CLI's own file-reading tool on `path` (relative to its working directory): OpenCode's
    `read`, Claude Code's `Read`, Codex's shell (`cat`)."""

    path: str


@dataclass(frozen=True)
class Search:
    """Call the CLI's own search tool for the regular expression `pattern` under `directory`: OpenCode's
    `grep`, Claude Code's `Grep`, Codex's shell (`rg -n`). All three run ripgrep."""

    pattern: str
    directory: str


@dataclass(frozen=True)
class Shell:
    """Call the CLI's shell tool with this command (Codex's `exec_command`; the others have no shell)."""

    command: str


@dataclass(frozen=True)
class Say:
    """End the conversation with this final assistant message."""

    text: str


@dataclass(frozen=True)
class Fail:
    """Answer with an HTTP error (every retry of this step gets it too)."""

    status: int
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    """Accept the request and never answer (until the server stops, `seconds` pass or its owner calls
    `ModelServer.release_hangs`)."""

    seconds: float = 3600.0


@dataclass(frozen=True)
class Then:
    """A step decided when its turn comes: `decide(results)` gets the text of every tool result in the
    conversation so far, oldest first, and returns the step to play (never another `Then`)."""

    decide: Callable[[Sequence[str]], Step]


ToolStep = WriteFile | ListFiles | ReadFile | Search | Shell
Step = ToolStep | Say | Fail | Hang | Then
Script = Sequence[Step]
ScriptChooser = Callable[[str], Script]
"""The request's text (every message joined) -> the script of its conversation, e.g. chosen by ticket id."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    output_tokens: int


def step_usage(turn: int) -> Usage:
    """The usage reported for a conversation's turn: distinct per turn, so a sum that misses one shows."""
    return Usage(prompt_tokens=1000 + 100 * turn, output_tokens=40 + turn)


CACHED_PROMPT_TOKENS = 200
"""Of each reply's prompt tokens, this many are reported as read from the cache (in each protocol's field)."""
