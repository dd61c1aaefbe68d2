"""Presets for the agent CLIs Assay knows: Claude Code, Codex CLI and OpenCode, run headless via the gateway.

Each preset is a `CommandSpec` (see command.py): argv and environment templates, files to write into the
workspace, the runner variables the CLI may see, and a parser for the CLI's JSON output (final message and
token usage). The answer is `answer.md` when the agent wrote it (prompt.md and the brain ask for it), else the
final message parsed from the JSON output. docs/agents.md has the command lines, limits and doc links.

Every preset starts the CLI through the same short /bin/sh prelude, because templates cannot read the runner's
environment and two things are only known at run time: the gateway token (`ASSAY_GATEWAY_TOKEN`, or the file
named by `ASSAY_GATEWAY_TOKEN_FILE`; behind the metering proxy, the cell's own proxy credential
`ASSAY_PROXY_KEY`; else the placeholder `assay-no-token` for CLIs that refuse an empty key),
and, for Claude Code, the Anthropic base URL (the gateway URL without its `/v1`). The prelude exports what the
CLI reads, then `exec`s the CLI with the preset's argv: no key is ever written into a template or a file.

Conversations (a ticket played turn by turn): each preset continues the CLI's own session with its own resume
form, the session id read from the opening turn's JSON output (`claude -p MSG --resume ID`, `codex exec
resume ID MSG`, `opencode run --session ID MSG`). Every CLI keeps its sessions under HOME, which is the cell's
`.home/` in its workspace: kept from turn to turn of the cell, removed with it, never seen by another cell.

Versions and docs these presets follow (checked 2026-12-02; npm latest in brackets):
- Claude Code [@anthropic-ai/claude-code 2.1.332]: https://code.claude.com/docs/en/cli-reference,
  /headless, /env-vars, /llm-gateway, /memory (CLAUDE.md imports), /permission-modes; CHANGELOG 2.1.277.
- Codex CLI [@openai/codex 0.171.0]: https://developers.openai.com/codex/noninteractive, /codex/cli/reference,
  /codex/config-reference, /codex/config-advanced; openai/codex codex-rs/exec/src/cli.rs and
  codex-rs/model-provider-info/src/lib.rs (`wire_api = "chat"` removed, discussion #7782).
- OpenCode [opencode-ai 1.18.33]: https://opencode.ai/docs/cli/, /docs/config/, /docs/providers/,
  /docs/permissions/, /docs/rules/; anomalyco/opencode packages/opencode/src/cli/cmd/run.ts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay_runner.agents.command import PROXY_KEY_ENV, TOKEN_FILE_ENV, CommandSpec
from assay_runner.agents.tools import ripgrep_folder
from assay_runner.agents.trajectory import claude_code as claude_code_steps
from assay_runner.agents.trajectory import codex as codex_steps
from assay_runner.agents.trajectory import opencode as opencode_steps
from assay_runner.agents.trajectory.common import json_object_lines
from assay_runner.agents.workspace import HOME_DIR
from assay_runner.contract import Usage
from assay_runner.errors import InputError

TOKEN_ENV = "ASSAY_GATEWAY_TOKEN"
PLACEHOLDER_TOKEN = "assay-no-token"
"""Sent when the gateway needs no token: Claude Code and Codex refuse to start without some key."""
PASS_ENV = (TOKEN_ENV, TOKEN_FILE_ENV)
CLAUDE_MAX_TURNS = 30
CLAUDE_MAX_RETRIES = 4
"""A ticket takes about 10 turns (read brain, list and read articles, write answer.md); 30 stops a loop."""

# POSIX sh, run as `sh -c PRELUDE <cli> <args...>`: "$0" is the CLI, "$@" its arguments, passed untouched.
_TOKEN_PRELUDE = (
    f'token="${{{TOKEN_ENV}:-}}"; '
    f'if [ -n "${{{TOKEN_FILE_ENV}:-}}" ]; then token="$(cat "${TOKEN_FILE_ENV}")" || exit 2; fi; '
    f'export {TOKEN_ENV}="${{token:-${{{PROXY_KEY_ENV}:-{PLACEHOLDER_TOKEN}}}}}"; '
)
_EXEC = 'exec "$0" "$@"'
# Claude Code appends /v1/messages to ANTHROPIC_BASE_URL, so the gateway's OpenAI-style /v1 suffix goes.
_CLAUDE_PRELUDE = (
    _TOKEN_PRELUDE
    + f'export ANTHROPIC_AUTH_TOKEN="${TOKEN_ENV}"; '
    + 'base="${ANTHROPIC_BASE_URL%/}"; export ANTHROPIC_BASE_URL="${base%/v1}"; '
    + _EXEC
)
_PLAIN_PRELUDE = _TOKEN_PRELUDE + _EXEC
# Codex's workspace-write sandbox (bubblewrap) needs user namespaces, which a restricted pod does not give,
# and mounts, which a Landlock domain forbids; there the cell would run with every shell command failing.
# In the runner's own sandbox (ASSAY_SANDBOX set: assay_runner.sandbox) that domain is Codex's sandbox:
# danger-full-access, with no probe. Otherwise probe once per cell (`codex sandbox -- true`, under a
# second); where it cannot start, the pod is the sandbox: danger-full-access, said on stderr (the
# transcript). The argv is `codex exec ...`: the sandbox flag goes after the subcommand.
CODEX_NO_SANDBOX_NOTE = (
    "assay: Codex cannot start its sandbox here (no user namespaces); running with --sandbox "
    "danger-full-access: the container is the only sandbox"
)
CODEX_IN_SANDBOX_NOTE = (
    "assay: the cell runs in the runner's Landlock sandbox, where Codex's own cannot start; running with "
    "--sandbox danger-full-access: the cell's sandbox is Codex's"
)
_CODEX_PRELUDE = (
    _TOKEN_PRELUDE
    + 'export ASSAY_AGENT_PATH="$PATH"; '
    + 'sandbox=workspace-write; if [ -n "${ASSAY_SANDBOX:-}" ]; then '
    + f'sandbox=danger-full-access; echo "{CODEX_IN_SANDBOX_NOTE}" >&2; '
    + 'elif ! "$0" sandbox -- true >/dev/null 2>&1; then '
    + f'sandbox=danger-full-access; echo "{CODEX_NO_SANDBOX_NOTE}" >&2; fi; '
    + 'sub="$1"; shift; exec "$0" "$sub" --sandbox "$sandbox" "$@"'
)


def _literal(text: str) -> str:
    """Escape a fixed string for the str.format templating CommandAgent applies to argv, env and files."""
    return text.replace("{", "{{").replace("}", "}}")


def _via_prelude(prelude: str, cli: str, *args: str) -> list[str]:
    return ["sh", "-c", _literal(prelude), cli, *args]


def _flat(pairs: Sequence[tuple[str, ...]]) -> list[str]:
    return [arg for pair in pairs for arg in pair]


CUSTOMER_REPLIED = "# The customer replied"
REPLY_PROMPT = (
    f"{CUSTOMER_REPLIED}\n\n{{message}}\n\n---\n"
    "Write your reply to the customer, in markdown, to `answer.md` in this directory.\n"
)
"""A later turn's prompt: the customer's words, and where the reply goes (as prompt.md says for the ticket);
answer.md was removed before the turn."""


# ---------------------------------------------------------------------------------------------------------
# Claude Code

_CLAUDE_ARGS: list[tuple[str, ...]] = [
    ("--output-format", "stream-json"),  # one JSON line per message; the last is the result
    ("--verbose",),  # stream-json needs it in print mode
    ("--model", "{model}"),
    # Headless there is nobody to ask, so anything not pre-approved is denied; acceptEdits adds file edits
    # inside the workspace (answer.md). Reads inside the workspace need no approval.
    ("--permission-mode", "acceptEdits"),
    ("--max-turns", str(CLAUDE_MAX_TURNS)),
    # Last, as the option is variadic. No shell, no web: the brain and kb/ are all the agent needs.
    ("--disallowedTools", "Bash,WebFetch,WebSearch"),
]


def claude_code() -> CommandSpec:
    return CommandSpec(
        # -p: print mode, one prompt, no TTY, exits when done.
        argv=_via_prelude(_CLAUDE_PRELUDE, "claude", "-p", "{prompt}", *_flat(_CLAUDE_ARGS)),
        # The session's record is HOME/.claude/projects/<workspace path>/<id>.jsonl; --resume appends to it.
        continue_argv=_via_prelude(
            _CLAUDE_PRELUDE, "claude", "-p", REPLY_PROMPT, "--resume", "{session}", *_flat(_CLAUDE_ARGS)
        ),
        parse_session=claude_code_session,
        env={
            "ANTHROPIC_BASE_URL": "{gateway}",  # the prelude strips the trailing /v1
            # Every model alias and subagent on the evaluated model: the gateway may serve no other.
            "ANTHROPIC_DEFAULT_OPUS_MODEL": "{model}",
            "ANTHROPIC_DEFAULT_SONNET_MODEL": "{model}",
            "ANTHROPIC_DEFAULT_HAIKU_MODEL": "{model}",
            "CLAUDE_CODE_SUBAGENT_MODEL": "{model}",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # no telemetry, error reports, update checks
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1",  # gateways reject unknown anthropic-beta headers
            # Claude Code retries a 429/5xx ten times by default, with backoff: minutes per turn, past most
            # ticket timeouts. Four retries, as Codex makes, end a broken gateway's cell on its own.
            "CLAUDE_CODE_MAX_RETRIES": str(CLAUDE_MAX_RETRIES),
            # Glob and Grep run the project's ripgrep (first on PATH) rather than the copy in the binary.
            "USE_BUILTIN_RIPGREP": "0",
        },
        answer_from="file",
        parse_output=parse_claude_code,
        parse_trajectory=claude_code_steps.parse,
        path_prefix=ripgrep_folder,
        # Claude Code reads CLAUDE.md, not AGENTS.md (before 2.1.277 never; after, only without a CLAUDE.md):
        # import the workspace's copy of the brain's AGENTS.md, the way its memory docs recommend.
        files={"CLAUDE.md": "@AGENTS.md\n"},
        pass_env=PASS_ENV,
    )


def claude_code_session(stdout: str) -> str | None:
    """Every stream-json line carries `session_id`; the first (`system` init) is the one the run opened."""
    return _first_text(stdout, lambda line: line.get("session_id"))


def parse_claude_code(stdout: str) -> tuple[str | None, Usage | None]:
    """`--output-format stream-json`: one JSON line per message, the last {"type": "result", "subtype",
    "is_error", "result", "usage": {...}, ...} (`--output-format json`, that object alone, reads the same)."""
    result = next((o for o in _json_objects(stdout, reverse=True) if o.get("type") == "result"), None)
    if result is None:
        return None, None
    answer = result.get("result")
    # On an error (API failure, error_max_turns) `result` is absent or is the error text, not an answer.
    text = answer if isinstance(answer, str) and answer.strip() and not result.get("is_error") else None
    usage = result.get("usage")
    if not isinstance(usage, dict):
        return text, None
    # Anthropic counts cached prompt tokens apart from input_tokens; all of them are prompt tokens.
    prompt = sum(
        _int(usage.get(k)) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    return text, Usage(input_tokens=prompt, output_tokens=_int(usage.get("output_tokens")))


# ---------------------------------------------------------------------------------------------------------
# Codex CLI

_CODEX_ARGS: list[tuple[str, ...]] = [
    ("--skip-git-repo-check",),  # the workspace is not a git repository
    # --sandbox workspace-write (commands may write in the workspace, never the network) comes from the
    # prelude, which falls back to danger-full-access where the sandbox cannot start.
    ("--json",),  # JSONL events on stdout: agent messages, turn usage
    ("--model", "{model}"),
    # A provider of our own: reusing the key "openai" would not override the built-in one.
    ("-c", 'model_provider="assay"'),
    ("-c", 'model_providers.assay.name="Assay gateway"'),
    ("-c", 'model_providers.assay.base_url="{gateway}"'),  # Codex POSTs {gateway}/responses
    ("-c", f'model_providers.assay.env_key="{TOKEN_ENV}"'),  # sent as Authorization: Bearer
    ("-c", 'model_providers.assay.wire_api="responses"'),  # the only wire API Codex still has
    ("-c", 'approval_policy="never"'),  # exec never asks; explicit, so no config can make it wait
    ("-c", 'web_search="disabled"'),  # the hosted web_search tool: gateways reject it, and no web
    ("-c", "check_for_update_on_startup=false"),
    ("-c", "analytics.enabled=false"),
    # No plugins: at start Codex syncs its curated plugin marketplace (`git ls-remote` against GitHub).
    ("-c", "features.plugins=false"),
    # Writable: the workspace and the cell's own TMPDIR (inside it), never the shared /tmp, where another
    # cell's workspace or answer lives and where concurrent sandboxes raced on /tmp/.codex.
    ("-c", "sandbox_workspace_write.exclude_slash_tmp=true"),
    ("-c", "sandbox_workspace_write.exclude_tmpdir_env_var=false"),
]


# Codex runs the model's commands in login shells (`bash -lc`), and a system profile may reset PATH there
# (Debian's does, for every user): the agent's PATH (the project's ripgrep first) would be lost, and `rg`
# with it, unless Codex's shell snapshot happened to be ready first. The login shell's own profile, in the
# agent's HOME, puts back the PATH the prelude saw.
CODEX_PROFILE = (
    "# Written by Assay (agents/presets.py): a login shell keeps the agent's PATH, which /etc/profile may\n"
    "# reset.\n"
    'if [ -n "${ASSAY_AGENT_PATH:-}" ]; then PATH="$ASSAY_AGENT_PATH"; export PATH; fi\n'
)


def codex() -> CommandSpec:
    return CommandSpec(
        argv=_via_prelude(_CODEX_PRELUDE, "codex", "exec", *_flat(_CODEX_ARGS), "{prompt}"),
        # `codex exec resume ID PROMPT` (the prelude puts --sandbox after `exec`, where resume takes it); the
        # provider and settings again, as nothing of them is kept with the session. Its record is
        # HOME/.codex/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl.
        continue_argv=_via_prelude(
            _CODEX_PRELUDE, "codex", "exec", "resume", *_flat(_CODEX_ARGS), "{session}", REPLY_PROMPT
        ),
        parse_session=codex_session,
        cumulative_usage=True,  # turn.completed on a resumed thread: the thread's tokens so far
        answer_from="file",
        parse_output=parse_codex,
        parse_trajectory=codex_steps.parse,
        files={f"{HOME_DIR}/.profile": _literal(CODEX_PROFILE)},
        pass_env=PASS_ENV,
        path_prefix=ripgrep_folder,  # for the model's `rg` in its shell commands (Codex adds its own too)
    )


def codex_session(stdout: str) -> str | None:
    """`{"type": "thread.started", "thread_id": ...}`, the first event (a resumed session's too)."""
    return _first_text(
        stdout, lambda event: event.get("thread_id") if event.get("type") == "thread.started" else None
    )


def parse_codex(stdout: str) -> tuple[str | None, Usage | None]:
    """`codex exec --json`: item.completed {item: {type: agent_message, text}}, turn.completed {usage}."""
    answer: str | None = None
    prompt = output = 0
    seen_usage = False
    for event in _json_objects(stdout):
        kind = event.get("type")
        item = event.get("item")
        if kind == "item.completed" and isinstance(item, dict):
            # "assistant_message" is the item's name in the first --json releases (0.4x).
            text = item.get("text")
            is_message = item.get("type") in ("agent_message", "assistant_message")
            if is_message and isinstance(text, str) and text.strip():
                answer = text
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
            # OpenAI counting: input_tokens includes cached_input_tokens, output_tokens includes reasoning.
            prompt += _int(usage.get("input_tokens"))
            output += _int(usage.get("output_tokens"))
            seen_usage = True
    return answer, Usage(input_tokens=prompt, output_tokens=output) if seen_usage else None


# ---------------------------------------------------------------------------------------------------------
# OpenCode

_OPENCODE_CONFIG = {
    "$schema": "https://opencode.ai/config.json",
    "provider": {
        "assay": {
            "npm": "@ai-sdk/openai-compatible",  # bundled with OpenCode: POSTs {gateway}/chat/completions
            "name": "Assay gateway",
            # {env:...} is OpenCode's own substitution, done when it reads the file: the key stays out of it.
            "options": {"baseURL": "<gateway>", "apiKey": f"{{env:{TOKEN_ENV}}}"},
            "models": {"<model>": {"name": "<model>"}},
        },
    },
    "enabled_providers": ["assay"],  # no other provider is loaded, whatever the environment holds
    "model": "assay/<model>",
    "small_model": "assay/<model>",  # summaries on the evaluated model too
    # No session title: one model call per ticket saved, and its tokens are missing from `run --format json`
    # (the usage Assay reads), so a gateway would bill more than Assay counted.
    "agent": {"title": {"disable": True}},
    "permission": {
        "edit": "allow",  # answer.md (brain/ and kb/ are read-only, checked afterwards)
        "bash": "deny",  # read/list/glob/grep tools cover the brain and the KB
        "webfetch": "deny",
        "websearch": "deny",
        "codesearch": "deny",
        "external_directory": "deny",  # nothing outside the workspace
    },
    "share": "disabled",
    "autoupdate": False,
    "snapshot": False,  # no internal git snapshots of the workspace
}


OPENCODE_PLUGIN_PACKAGE = "@opencode-ai/plugin"
_OPENCODE_GLOBAL_DIR = f"{HOME_DIR}/.config/opencode"
# OpenCode runs an npm install (registry.npmjs.org) of @opencode-ai/plugin into each config folder it loads,
# in the background, unless the folder already has a node_modules/ and a package-lock.json naming every
# dependency its package.json names. No flag turns it off, so the (fresh, per cell) global config folder is
# given exactly that: an install with nothing left to do. No plugin is configured, so none is ever loaded.
_OPENCODE_NO_INSTALL = {
    f"{_OPENCODE_GLOBAL_DIR}/package.json": json.dumps({"dependencies": {OPENCODE_PLUGIN_PACKAGE: "*"}}),
    f"{_OPENCODE_GLOBAL_DIR}/package-lock.json": json.dumps(
        {"lockfileVersion": 3, "packages": {"": {"dependencies": {OPENCODE_PLUGIN_PACKAGE: "*"}}}}
    ),
    f"{_OPENCODE_GLOBAL_DIR}/node_modules/.assay": "nothing to install: see assay_runner/agents/presets.py\n",
}


def _opencode_config_template() -> str:
    text = _literal(json.dumps(_OPENCODE_CONFIG, indent=2))
    return text.replace("<gateway>", "{gateway}").replace("<model>", "{model}") + "\n"


_OPENCODE_RUN = ("run", "--format", "json", "--model", "assay/{model}")


def opencode() -> CommandSpec:
    return CommandSpec(
        # --format json: JSON events on stdout (text parts, step usage).
        argv=_via_prelude(_PLAIN_PRELUDE, "opencode", *_OPENCODE_RUN, "{prompt}"),
        # The session lives in HOME/.local/share/opencode/opencode.db (SQLite), by id.
        continue_argv=_via_prelude(
            _PLAIN_PRELUDE, "opencode", *_OPENCODE_RUN, "--session", "{session}", REPLY_PROMPT
        ),
        parse_session=opencode_session,
        env={
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",  # no models.dev download: the model is configured here
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",  # no npm installs of the default auth plugins
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",  # instructions come from AGENTS.md only
        },
        answer_from="file",
        parse_output=parse_opencode,
        parse_trajectory=opencode_steps.parse,
        path_prefix=ripgrep_folder,  # glob and grep run `rg`: without one on PATH OpenCode downloads it
        files={
            "opencode.json": _opencode_config_template(),  # project config: the highest file precedence
            **{path: _literal(text) for path, text in _OPENCODE_NO_INSTALL.items()},
        },
        pass_env=PASS_ENV,
    )


def opencode_session(stdout: str) -> str | None:
    """Every `--format json` event carries `sessionID`; the first is the run's own, whatever a later one
    names (a subagent's task works in a child session)."""
    return _first_text(stdout, lambda event: event.get("sessionID"))


def parse_opencode(stdout: str) -> tuple[str | None, Usage | None]:
    """`opencode run --format json`: {"type": "step_start"|"text"|"tool_use"|"step_finish"|..., "part"}.

    The answer is the text of the last step that produced text (a step is one model call; earlier steps'
    text is narration between tool calls). Usage is summed over every step_finish.
    """
    answer: str | None = None
    step: dict[str, str] = {}  # text part id -> text, in order, for the current step
    prompt = output = 0
    seen_usage = False
    for event in _json_objects(stdout):
        kind = event.get("type")
        part = event.get("part")
        if not isinstance(part, dict):
            continue
        if kind == "step_start":
            step = {}
        elif kind == "text" and isinstance(part.get("text"), str):
            step[str(part.get("id", len(step)))] = part["text"]
            joined = "\n\n".join(step.values())
            answer = joined if joined.strip() else answer
        elif kind == "step_finish" and isinstance(part.get("tokens"), dict):
            tokens = part["tokens"]
            cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
            # OpenCode reports input without the cached part; the gateway bills all of it as prompt.
            prompt += _int(tokens.get("input")) + _int(cache.get("read")) + _int(cache.get("write"))
            output += _int(tokens.get("output"))
            seen_usage = True
    return answer, Usage(input_tokens=prompt, output_tokens=output) if seen_usage else None


# ---------------------------------------------------------------------------------------------------------
# Registry and helpers

PRESETS: dict[str, Callable[[], CommandSpec]] = {
    "claude-code": claude_code,
    "codex": codex,
    "opencode": opencode,
}


@dataclass(frozen=True)
class PresetCli:
    executable: str
    """What the preset runs, found on PATH."""
    package: str
    """The npm package that provides it, pinned in agents/package.json (as in the image's agents stage)."""
    protocol: str
    """The API the CLI speaks to the gateway (docs/gateway.md)."""


PRESET_CLIS: dict[str, PresetCli] = {
    "claude-code": PresetCli("claude", "@anthropic-ai/claude-code", "anthropic-messages"),
    "codex": PresetCli("codex", "@openai/codex", "openai-responses"),
    "opencode": PresetCli("opencode", "opencode-ai", "openai-chat-completions"),
}


def preset(name: str) -> CommandSpec:
    try:
        return PRESETS[name]()
    except KeyError:
        raise InputError(f"unknown agent preset {name!r}; known: {', '.join(sorted(PRESETS))}") from None


@dataclass(frozen=True)
class Rendered:
    argv: list[str]
    env: dict[str, str]
    files: dict[str, str]


def render(spec: CommandSpec, values: Mapping[str, str]) -> Rendered:
    """The spec with its placeholders filled in exactly as CommandAgent.run fills them (for tests, docs)."""
    return Rendered(
        argv=[part.format(**values) for part in spec.argv],
        env={key: value.format(**values) for key, value in spec.env.items()},
        files={path.format(**values): text.format(**values) for path, text in spec.files.items()},
    )


def _json_objects(stdout: str, *, reverse: bool = False) -> Iterator[dict[str, Any]]:
    """JSON objects in the output: the whole of it if it is one, else one per line; other lines are noise."""
    stripped = stdout.strip()
    if stripped.startswith("{"):
        try:
            whole = json.loads(stripped)
        except ValueError:
            pass
        else:
            if isinstance(whole, dict):
                yield whole
                return
    for _, value in json_object_lines(stdout, reverse=reverse):
        yield value


def _first_text(stdout: str, field: Callable[[dict[str, Any]], object]) -> str | None:
    """The first non-empty string `field` finds in the output's JSON objects, in order."""
    for value in map(field, _json_objects(stdout)):
        if isinstance(value, str) and value.strip():
            return value
    return None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
