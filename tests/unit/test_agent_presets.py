"""The CLI presets: exact argv/env/files after templating, the sh prelude run for real against fake CLIs,
the JSON output parsers on samples shaped like each CLI's documented output, and no key in any template."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from assay_runner.agents.base import Workspace
from assay_runner.agents.command import CommandAgent, CommandSpec
from assay_runner.agents.presets import (
    PLACEHOLDER_TOKEN,
    PRESETS,
    parse_claude_code,
    parse_codex,
    parse_opencode,
    preset,
    render,
)
from assay_runner.agents.tools import ripgrep
from assay_runner.contract import Usage
from assay_runner.errors import InputError
from tests.unit.builders import ticket

MODEL = "acme-large"
GATEWAY = "http://gateway.test:4000/v1"
PROMPT = '# Support ticket T-1\n\nMy "sync" {is} broken.\n'
SECRET = "sk-live-0123456789abcdef"

TOKEN_SH = (
    'token="${ASSAY_GATEWAY_TOKEN:-}"; '
    'if [ -n "${ASSAY_GATEWAY_TOKEN_FILE:-}" ]; '
    'then token="$(cat "$ASSAY_GATEWAY_TOKEN_FILE")" || exit 2; fi; '
    'export ASSAY_GATEWAY_TOKEN="${token:-${ASSAY_PROXY_KEY:-assay-no-token}}"; '
)
CLAUDE_SH = (
    TOKEN_SH
    + 'export ANTHROPIC_AUTH_TOKEN="$ASSAY_GATEWAY_TOKEN"; '
    + 'base="${ANTHROPIC_BASE_URL%/}"; export ANTHROPIC_BASE_URL="${base%/v1}"; '
    + 'exec "$0" "$@"'
)
PLAIN_SH = TOKEN_SH + 'exec "$0" "$@"'
CODEX_SH = (
    TOKEN_SH
    + 'export ASSAY_AGENT_PATH="$PATH"; '
    + 'sandbox=workspace-write; if ! "$0" sandbox -- true >/dev/null 2>&1; then '
    + 'sandbox=danger-full-access; echo "assay: Codex cannot start its sandbox here (no user namespaces); '
    + 'running with --sandbox danger-full-access: the container is the only sandbox" >&2; fi; '
    + 'sub="$1"; shift; exec "$0" "$sub" --sandbox "$sandbox" "$@"'
)


def args(*lines: str) -> list[str]:
    """One flag and its value per line, so that a change to a preset shows as a readable diff."""
    values = {"{prompt}": PROMPT, "{model}": MODEL, "{gateway}": GATEWAY}
    out = [arg for line in lines for arg in line.split(" ", 1)]
    for placeholder, value in values.items():
        out = [arg.replace(placeholder, value) for arg in out]
    return out


EXPECTED_ARGV = {
    "claude-code": args(
        "sh",
        "-c " + CLAUDE_SH,
        "claude",
        "-p {prompt}",
        "--output-format stream-json",
        "--verbose",
        "--model {model}",
        "--permission-mode acceptEdits",
        "--max-turns 30",
        "--disallowedTools Bash,WebFetch,WebSearch",
    ),
    "codex": args(
        "sh",
        "-c " + CODEX_SH,
        "codex",
        "exec",
        "--skip-git-repo-check",
        "--json",
        "--model {model}",
        '-c model_provider="assay"',
        '-c model_providers.assay.name="Assay gateway"',
        '-c model_providers.assay.base_url="{gateway}"',
        '-c model_providers.assay.env_key="ASSAY_GATEWAY_TOKEN"',
        '-c model_providers.assay.wire_api="responses"',
        '-c approval_policy="never"',
        '-c web_search="disabled"',
        "-c check_for_update_on_startup=false",
        "-c analytics.enabled=false",
        "-c features.plugins=false",
        "-c sandbox_workspace_write.exclude_slash_tmp=true",
        "-c sandbox_workspace_write.exclude_tmpdir_env_var=false",
        "{prompt}",
    ),
    "opencode": args(
        "sh",
        "-c " + PLAIN_SH,
        "opencode",
        "run",
        "--format json",
        "--model assay/{model}",
        "{prompt}",
    ),
}

EXPECTED_ENV = {
    "claude-code": {
        "ANTHROPIC_BASE_URL": GATEWAY,
        "ANTHROPIC_DEFAULT_OPUS_MODEL": MODEL,
        "ANTHROPIC_DEFAULT_SONNET_MODEL": MODEL,
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": MODEL,
        "CLAUDE_CODE_SUBAGENT_MODEL": MODEL,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1",
        "CLAUDE_CODE_MAX_RETRIES": "4",
        "USE_BUILTIN_RIPGREP": "0",
    },
    "codex": {},
    "opencode": {
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    },
}

EXPECTED_OPENCODE_CONFIG = {
    "$schema": "https://opencode.ai/config.json",
    "provider": {
        "assay": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Assay gateway",
            "options": {"baseURL": GATEWAY, "apiKey": "{env:ASSAY_GATEWAY_TOKEN}"},
            "models": {MODEL: {"name": MODEL}},
        },
    },
    "enabled_providers": ["assay"],
    "model": f"assay/{MODEL}",
    "small_model": f"assay/{MODEL}",
    "agent": {"title": {"disable": True}},
    "permission": {
        "edit": "allow",
        "bash": "deny",
        "webfetch": "deny",
        "websearch": "deny",
        "codesearch": "deny",
        "external_directory": "deny",
    },
    "share": "disabled",
    "autoupdate": False,
    "snapshot": False,
}


OPENCODE_NO_INSTALL = {
    ".home/.config/opencode/package.json": {"dependencies": {"@opencode-ai/plugin": "*"}},
    ".home/.config/opencode/package-lock.json": {
        "lockfileVersion": 3,
        "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}},
    },
}


@pytest.fixture(autouse=True)
def _no_runner_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_GATEWAY_TOKEN", raising=False)
    monkeypatch.delenv("ASSAY_GATEWAY_TOKEN_FILE", raising=False)


def make_workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "brain").mkdir(parents=True)
    (root / "kb").mkdir()
    (root / "brain" / "AGENTS.md").write_text("# Brain\n")
    (root / "AGENTS.md").write_text("# Brain\n")
    (root / "prompt.md").write_text(PROMPT)
    return Workspace(
        root=root,
        brain=root / "brain",
        kb=root / "kb",
        prompt_file=root / "prompt.md",
        answer_file=root / "answer.md",
    )


def agent(name: str) -> CommandAgent:
    return CommandAgent(preset(name), model=MODEL, gateway=GATEWAY, timeout=30)


# --- templating --------------------------------------------------------------------------------------------


def test_the_three_presets_exist() -> None:
    assert sorted(PRESETS) == ["claude-code", "codex", "opencode"]
    with pytest.raises(InputError, match=r"unknown agent preset 'aider'.*claude-code, codex, opencode"):
        preset("aider")


@pytest.mark.parametrize("name", sorted(EXPECTED_ARGV))
def test_argv_and_env_after_templating(name: str, tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    command = agent(name)
    values = command.values(ticket(), 1, workspace)
    rendered = render(command.spec, values)
    assert rendered.argv == EXPECTED_ARGV[name]
    assert rendered.env == EXPECTED_ENV[name]
    assert command.spec.answer_from == "file"  # answer.md first, the parsed final message as fallback
    assert command.spec.pass_env == ("ASSAY_GATEWAY_TOKEN", "ASSAY_GATEWAY_TOKEN_FILE")
    environment = command.environment(values, workspace)
    assert {k: environment[k] for k in EXPECTED_ENV[name]} == EXPECTED_ENV[name]
    assert "ASSAY_GATEWAY_TOKEN" not in environment  # none to pass: the prelude falls back to the placeholder
    # The project's ripgrep first on the CLI's PATH: its file tools never fetch one.
    rg = ripgrep()
    assert rg is not None and environment["PATH"].split(os.pathsep)[0] == str(rg.parent)


def test_files_after_templating(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    rendered = {
        name: render(agent(name).spec, agent(name).values(ticket(), 1, workspace)).files for name in PRESETS
    }
    assert rendered["claude-code"] == {"CLAUDE.md": "@AGENTS.md\n"}
    assert list(rendered["codex"]) == [".home/.profile"]
    modules = ".home/.config/opencode/node_modules/.assay"
    assert list(rendered["opencode"]) == ["opencode.json", *OPENCODE_NO_INSTALL, modules]
    assert json.loads(rendered["opencode"]["opencode.json"]) == EXPECTED_OPENCODE_CONFIG
    # The global config folder's npm install of @opencode-ai/plugin finds nothing to do (no registry call).
    assert {k: json.loads(v) for k, v in rendered["opencode"].items() if k.endswith(".json")} == {
        "opencode.json": EXPECTED_OPENCODE_CONFIG,
        **OPENCODE_NO_INSTALL,
    }


def test_the_runner_token_is_passed_through_the_environment_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN", SECRET)
    workspace = make_workspace(tmp_path)
    for name in PRESETS:
        command = agent(name)
        values = command.values(ticket(), 1, workspace)
        rendered = render(command.spec, values)
        assert SECRET not in json.dumps([rendered.argv, rendered.env, rendered.files])
        assert command.environment(values, workspace)["ASSAY_GATEWAY_TOKEN"] == SECRET


KEYISH = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
KEY_VALUE = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}|\bsk-ant-|\bBearer\s+[A-Za-z0-9._-]{8,}")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_no_preset_carries_a_key(name: str) -> None:
    spec = preset(name)
    assert set(spec.pass_env) <= {"ASSAY_GATEWAY_TOKEN", "ASSAY_GATEWAY_TOKEN_FILE"}
    # The only key-named variables a preset sets are runtime references, never values.
    assert {k: v for k, v in spec.env.items() if KEYISH.search(k)} == {}
    texts = [*spec.argv, *spec.env.values(), *spec.files.values()]
    assert not [t for t in texts if KEY_VALUE.search(t)]
    # Every place a preset hands the CLI a key names the runtime variable instead of holding a value.
    pattern = r'(?:apiKey"\s*:\s*"|AUTH_TOKEN="|env_key=")([^"]*)"'
    found = [value for text in texts for value in re.findall(pattern, text)]
    assert found, "each preset passes the gateway token somewhere"
    assert set(found) <= {"$ASSAY_GATEWAY_TOKEN", "{{env:ASSAY_GATEWAY_TOKEN}}", "ASSAY_GATEWAY_TOKEN"}


# --- the prelude and the parsers, end to end with fake CLIs ----------------------------------------------


def fake_cli(bin_dir: Path, name: str, stdout: str, answer: str | None = None) -> None:
    """A stand-in for the real CLI: records its argv, cwd and environment, optionally writes answer.md."""
    script = bin_dir / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "with open('.fake-cli.json', 'w') as f:\n"
        "    json.dump({'argv': sys.argv[1:], 'cwd': os.getcwd(), 'env': dict(os.environ)}, f)\n"
        f"if {answer!r} is not None:\n"
        f"    open('answer.md', 'w').write({answer!r})\n"
        f"sys.stdout.write({stdout!r})\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def run_fake(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdout: str, answer: str | None = None
) -> tuple[str | None, Usage | None, dict[str, object], Workspace]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    cli = EXPECTED_ARGV[name][3]
    fake_cli(bin_dir, cli, stdout, answer)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    workspace = make_workspace(tmp_path)
    outcome = asyncio.run(agent(name).run(ticket(), 1, workspace))
    assert outcome.exit_code == 0, outcome.transcript
    record = json.loads((workspace.root / ".fake-cli.json").read_text())
    return outcome.answer, outcome.usage, record, workspace


def test_claude_code_end_to_end_without_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answer, usage, record, workspace = run_fake("claude-code", tmp_path, monkeypatch, CLAUDE_SUCCESS)
    assert record["argv"] == EXPECTED_ARGV["claude-code"][4:]
    assert record["cwd"] == str(workspace.root)
    env = record["env"]
    assert isinstance(env, dict)
    assert env["ANTHROPIC_BASE_URL"] == "http://gateway.test:4000"  # /v1 is Claude Code's own suffix
    assert env["ANTHROPIC_AUTH_TOKEN"] == PLACEHOLDER_TOKEN
    assert env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == MODEL
    assert (workspace.root / "CLAUDE.md").read_text() == "@AGENTS.md\n"
    assert answer == CLAUDE_ANSWER  # no answer.md: the final message
    assert usage == Usage(input_tokens=12 + 3800 + 21000, output_tokens=640)


def test_answer_md_wins_over_the_final_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = "## Summary\nFrom file."
    answer, _, _, _ = run_fake("claude-code", tmp_path, monkeypatch, CLAUDE_SUCCESS, answer=written)
    assert answer == written


@pytest.mark.parametrize("gateway", ["http://gw.test/v1", "http://gw.test/v1/", "http://gw.test"])
def test_claude_code_base_url_drops_only_a_trailing_v1(
    gateway: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_cli(bin_dir, "claude", CLAUDE_SUCCESS)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    workspace = make_workspace(tmp_path)
    command = CommandAgent(preset("claude-code"), model=MODEL, gateway=gateway, timeout=30)
    asyncio.run(command.run(ticket(), 1, workspace))
    env = json.loads((workspace.root / ".fake-cli.json").read_text())["env"]
    assert env["ANTHROPIC_BASE_URL"] == "http://gw.test"


def test_codex_end_to_end_with_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN", SECRET)
    answer, usage, record, _ = run_fake("codex", tmp_path, monkeypatch, CODEX_JSONL)
    # The prelude's sandbox probe (`codex sandbox -- true`) succeeded: workspace-write, after `exec`.
    expected = EXPECTED_ARGV["codex"][4:]
    assert record["argv"] == [expected[0], "--sandbox", "workspace-write", *expected[1:]]
    env = record["env"]
    assert isinstance(env, dict)
    assert env["ASSAY_GATEWAY_TOKEN"] == SECRET  # what env_key names
    assert answer == CODEX_ANSWER
    assert usage == Usage(input_tokens=24763, output_tokens=122)


def test_opencode_end_to_end_with_a_token_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(SECRET + "\n")
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN_FILE", str(token_file))
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN", "ignored-when-a-file-is-named")  # same precedence as the runner
    answer, usage, record, workspace = run_fake("opencode", tmp_path, monkeypatch, OPENCODE_JSONL)
    assert record["argv"] == EXPECTED_ARGV["opencode"][4:]
    env = record["env"]
    assert isinstance(env, dict)
    assert env["ASSAY_GATEWAY_TOKEN"] == SECRET  # what the config's {env:ASSAY_GATEWAY_TOKEN} reads
    assert json.loads((workspace.root / "opencode.json").read_text()) == EXPECTED_OPENCODE_CONFIG
    assert answer == OPENCODE_ANSWER
    assert usage == Usage(input_tokens=(9000 + 0 + 0) + (1200 + 9000 + 0), output_tokens=80 + 420)


def test_an_unreadable_token_file_stops_the_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_cli(bin_dir, "codex", CODEX_JSONL)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN_FILE", str(tmp_path / "missing"))
    workspace = make_workspace(tmp_path)
    outcome = asyncio.run(agent("codex").run(ticket(), 1, workspace))
    assert outcome.exit_code == 2
    assert not (workspace.root / ".fake-cli.json").exists()


# --- parsers -----------------------------------------------------------------------------------------------

CLAUDE_ANSWER = "## Summary\nExport from Settings > Export [KB-1001].\n\n## Steps\n1. Open Settings."
CLAUDE_SUCCESS = (
    json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 21034,
            "duration_api_ms": 19876,
            "num_turns": 7,
            "result": CLAUDE_ANSWER,
            "stop_reason": "end_turn",
            "session_id": "0e639165-79b1-4bd4-bb0f-4cb4c15115d4",
            "total_cost_usd": 0.0421,
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 3800,
                "cache_read_input_tokens": 21000,
                "output_tokens": 640,
                "server_tool_use": {"web_search_requests": 0},
                "service_tier": "standard",
            },
            "permission_denials": [],
            "uuid": "6f0c2c1e-1b0e-4c57-9c2a-3e0a9e6f4b11",
        }
    )
    + "\n"
)
CLAUDE_MAX_TURNS = json.dumps(
    {
        "type": "result",
        "subtype": "error_max_turns",
        "is_error": True,
        "duration_ms": 90000,
        "num_turns": 31,
        "session_id": "s",
        "total_cost_usd": 0.3,
        "usage": {"input_tokens": 40, "output_tokens": 900},
    }
)
CLAUDE_API_ERROR = json.dumps(
    {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "num_turns": 1,
        "result": 'API Error: 401 {"error":"invalid token"}',
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
)

CODEX_ANSWER = "## Summary\nYes: export is under Settings > Export [KB-1001]."
CODEX_JSONL = (
    "\n".join(
        [
            "Reading prompt from stdin...",
            json.dumps({"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"}),
            json.dumps({"type": "turn.started"}),
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {"id": "item_0", "type": "reasoning", "text": "**Reading the brain**"},
                }
            ),
            json.dumps(
                {
                    "type": "item.started",
                    "item": {
                        "id": "item_1",
                        "type": "command_execution",
                        "command": "bash -lc 'cat AGENTS.md'",
                        "aggregated_output": "",
                        "status": "in_progress",
                    },
                }
            ),
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_1",
                        "type": "command_execution",
                        "command": "bash -lc 'cat AGENTS.md'",
                        "aggregated_output": "# Brain\n",
                        "exit_code": 0,
                        "status": "completed",
                    },
                }
            ),
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_2",
                        "type": "agent_message",
                        "text": "Reading the knowledge base first.",
                    },
                }
            ),
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {
                        "id": "item_3",
                        "type": "file_change",
                        "changes": [{"path": "answer.md", "kind": "add"}],
                        "status": "completed",
                    },
                }
            ),
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {"id": "item_4", "type": "agent_message", "text": CODEX_ANSWER},
                }
            ),
            json.dumps(
                {
                    "type": "turn.completed",
                    "usage": {"input_tokens": 24763, "cached_input_tokens": 24448, "output_tokens": 122},
                }
            ),
        ]
    )
    + "\n"
)
CODEX_FAILED = "\n".join(
    [
        json.dumps({"type": "thread.started", "thread_id": "t"}),
        json.dumps({"type": "turn.started"}),
        json.dumps({"type": "error", "message": "unexpected status 404 Not Found: /v1/responses"}),
        json.dumps({"type": "turn.failed", "error": {"message": "unexpected status 404 Not Found"}}),
    ]
)

OPENCODE_ANSWER = "## Summary\nExport your notes from Settings > Export [KB-1001]."


def _oc(kind: str, part: dict[str, object]) -> str:
    return json.dumps({"type": kind, "timestamp": 1764000000000, "sessionID": "ses_1", "part": part})


OPENCODE_JSONL = (
    "\n".join(
        [
            'INFO  2026-12-02T10:00:00 +12ms service=default version=1.18.33 args=["run"] opencode',
            _oc("step_start", {"id": "prt_1", "type": "step-start", "snapshot": "4b825dc"}),
            _oc(
                "text",
                {
                    "id": "prt_2",
                    "type": "text",
                    "text": "Let me read the knowledge base.",
                    "time": {"start": 1, "end": 2},
                },
            ),
            _oc(
                "tool_use",
                {
                    "id": "prt_3",
                    "type": "tool",
                    "tool": "read",
                    "callID": "call_1",
                    "state": {"status": "completed", "input": {"filePath": "kb/KB-1001.md"}, "output": "..."},
                },
            ),
            _oc(
                "step_finish",
                {
                    "id": "prt_4",
                    "type": "step-finish",
                    "reason": "tool-calls",
                    "cost": 0,
                    "tokens": {"input": 9000, "output": 80, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                },
            ),
            _oc("step_start", {"id": "prt_5", "type": "step-start"}),
            _oc(
                "text",
                {
                    "id": "prt_6",
                    "type": "text",
                    "text": "## Summary\nExport your notes",
                    "time": {"start": 3},
                },
            ),
            _oc(
                "text",
                {"id": "prt_6", "type": "text", "text": OPENCODE_ANSWER, "time": {"start": 3, "end": 4}},
            ),
            _oc(
                "step_finish",
                {
                    "id": "prt_7",
                    "type": "step-finish",
                    "reason": "stop",
                    "cost": 0,
                    "tokens": {
                        "input": 1200,
                        "output": 420,
                        "reasoning": 0,
                        "cache": {"read": 9000, "write": 0},
                    },
                },
            ),
            json.dumps(
                {
                    "type": "done",
                    "timestamp": 1764000000999,
                    "sessionID": "ses_1",
                    "reason": "idle",
                    "rejected": [],
                }
            ),
        ]
    )
    + "\n"
)
OPENCODE_ERROR = json.dumps(
    {
        "type": "error",
        "timestamp": 1,
        "sessionID": "ses_1",
        "error": {"name": "APIError", "data": {"message": "401 Unauthorized"}},
    }
)


@pytest.mark.parametrize(
    ("parse", "stdout", "answer", "usage"),
    [
        # Claude Code: one result object, possibly after noise; errors give no answer but keep usage.
        (parse_claude_code, CLAUDE_SUCCESS, CLAUDE_ANSWER, Usage(input_tokens=24812, output_tokens=640)),
        (
            parse_claude_code,
            "npm warn deprecated x\n" + CLAUDE_SUCCESS,
            CLAUDE_ANSWER,
            Usage(input_tokens=24812, output_tokens=640),
        ),
        (
            parse_claude_code,
            json.dumps(json.loads(CLAUDE_SUCCESS), indent=2),
            CLAUDE_ANSWER,
            Usage(input_tokens=24812, output_tokens=640),
        ),
        (parse_claude_code, CLAUDE_MAX_TURNS, None, Usage(input_tokens=40, output_tokens=900)),
        (parse_claude_code, CLAUDE_API_ERROR, None, Usage(input_tokens=0, output_tokens=0)),
        (
            parse_claude_code,
            '{"type": "result", "subtype": "success", "is_error": false, "result": "Hi"}',
            "Hi",
            None,
        ),
        (parse_claude_code, "Error: Invalid API key · Please run /login\n", None, None),
        (parse_claude_code, "", None, None),
        # Codex: the last agent message, usage summed over turns; noise and a failed turn.
        (parse_codex, CODEX_JSONL, CODEX_ANSWER, Usage(input_tokens=24763, output_tokens=122)),
        (parse_codex, CODEX_FAILED, None, None),
        (
            parse_codex,
            json.dumps({"type": "item.completed", "item": {"type": "assistant_message", "text": "Old"}}),
            "Old",
            None,
        ),
        (parse_codex, "{not json\n[1, 2]\n", None, None),
        # OpenCode: the last step's text (a part updated in place counts once), usage over step_finish events.
        (parse_opencode, OPENCODE_JSONL, OPENCODE_ANSWER, Usage(input_tokens=19200, output_tokens=500)),
        (parse_opencode, OPENCODE_ERROR, None, None),
        (parse_opencode, "", None, None),
    ],
)
def test_parsers(parse: object, stdout: str, answer: str | None, usage: Usage | None) -> None:
    assert callable(parse)
    assert parse(stdout) == (answer, usage)


def test_opencode_keeps_the_last_step_that_said_something() -> None:
    stdout = "\n".join(
        [
            _oc("step_start", {"type": "step-start"}),
            _oc("text", {"id": "a", "type": "text", "text": "Final answer."}),
            _oc("step_finish", {"type": "step-finish", "tokens": {"input": 5, "output": 2}}),
            _oc(
                "step_start", {"type": "step-start"}
            ),  # a last step with only a tool call, or an empty text part
            _oc("text", {"id": "b", "type": "text", "text": "  "}),
        ]
    )
    assert parse_opencode(stdout) == ("Final answer.", Usage(input_tokens=5, output_tokens=2))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_a_valid_command_spec(name: str) -> None:
    spec = preset(name)
    assert isinstance(spec, CommandSpec)
    assert spec.parse_output is not None
    CommandAgent(spec, model=MODEL, gateway=GATEWAY, timeout=1)  # check_template: only known placeholders


def test_codex_login_shells_keep_the_agents_path(tmp_path: Path) -> None:
    """Codex runs the model's commands as `bash -lc`; a system profile that resets PATH (Debian's does) must
    not take the project's ripgrep away. Run for real: a login shell with the preset's profile as HOME's."""
    workspace = make_workspace(tmp_path)
    files = render(preset("codex"), agent("codex").values(ticket(), 1, workspace)).files
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text(files[".home/.profile"])
    wanted = f"/opt/assay-test/bin{os.pathsep}/usr/bin{os.pathsep}/bin"
    env = {"HOME": str(home), "PATH": wanted, "ASSAY_AGENT_PATH": wanted}
    done = subprocess.run(
        ["bash", "-lc", 'printf %s "$PATH"'], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout == wanted


def test_codex_may_write_in_its_workspace_only() -> None:
    """Not in the shared /tmp (another cell's workspace is there): its own TMPDIR lives in the workspace."""
    argv = " ".join(preset("codex").argv)
    assert "sandbox_workspace_write.exclude_slash_tmp=true" in argv
    assert "sandbox_workspace_write.exclude_tmpdir_env_var=false" in argv
