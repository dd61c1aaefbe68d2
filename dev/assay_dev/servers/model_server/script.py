"""What the scripted model does, turn by turn: the steps a test gives per conversation, and the usage
it reports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class WriteFile:
    """Call the CLI's own file-writing tool: `path` (relative to its working directory) gets `text`."""

    path: str
    text: str


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
    """Accept the request and never answer (until the server stops or `seconds` pass)."""

    seconds: float = 3600.0


Step = WriteFile | Shell | Say | Fail | Hang
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
