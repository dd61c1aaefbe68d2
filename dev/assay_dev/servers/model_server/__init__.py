"""A scripted model server on loopback that speaks the three wire protocols the agent CLIs use.

- OpenAI Chat Completions, `POST .../chat/completions` (OpenCode's `@ai-sdk/openai-compatible`),
- OpenAI Responses, `POST .../responses` (Codex CLI),
- Anthropic Messages, `POST .../v1/messages` (Claude Code, which adds `?beta=true`),

each streamed as server-sent events when the request asks for `stream` (all three CLIs do) and as one JSON
body otherwise, with tool calls, and token usage in each protocol's own fields. `GET .../models` lists the
models the server knows: the one the script plays, and any `others` it stands in for (a model customer's
chat calls, answered by a function of the request).

A test gives a `Script`, a list of `Step`s per conversation: "list kb/ with your own listing tool", "read
the article that listing named" (a `Then`, decided from the tool results the CLI sent back), "search the KB",
"write answer.md with what the article said", then "end with this final message" (`KbLookup` builds such a
conversation). The step to play is the number of tool results already in the request's history, so the
server keeps no session state and a CLI's retries replay the same step. Requests without tools (OpenCode's
title generation, Claude Code's side calls) get a short plain reply.

Everything is recorded (`requests`: path, headers with secrets redacted, body, protocol) and every problem is
kept in `problems`: an unknown path, a request shape the protocol does not have, a tool the script needs that
the CLI did not offer, an argument its tool does not declare. Tests assert `problems == []`, so a CLI
upgrade that changes its protocol fails loudly instead of passing by accident.
"""

from __future__ import annotations

from assay_dev.servers.model_server.conversations import CustomerTurns, KbLookup, Results, listed_articles
from assay_dev.servers.model_server.script import (
    CACHED_PROMPT_TOKENS,
    Fail,
    Hang,
    ListFiles,
    ReadFile,
    Say,
    Script,
    ScriptChooser,
    Search,
    Shell,
    Step,
    Then,
    Usage,
    WriteFile,
    step_usage,
)
from assay_dev.servers.model_server.server import OTHER_USAGE, ModelServer, Recorded

__all__ = [
    "CACHED_PROMPT_TOKENS",
    "OTHER_USAGE",
    "CustomerTurns",
    "Fail",
    "Hang",
    "KbLookup",
    "ListFiles",
    "ModelServer",
    "ReadFile",
    "Recorded",
    "Results",
    "Say",
    "Script",
    "ScriptChooser",
    "Search",
    "Shell",
    "Step",
    "Then",
    "Usage",
    "WriteFile",
    "listed_articles",
    "step_usage",
]
