"""Conversations with command agents: each preset's argv for the opening turn and a later one (its CLI's own
resume form), the session each CLI names in its JSON output, a conversation played end to end through the
presets' sh prelude against fake CLIs (the session carried, answer.md cleared, Codex's cumulative usage made
per turn), the time limit over the whole conversation, and a command agent that has no continue template
refused with its reason."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from assay_runner.agents.base import EXIT_TIMEOUT, AgentOutcome, Turn, Workspace
from assay_runner.agents.command import CommandAgent, CommandSpec
from assay_runner.agents.conversing import cannot_converse
from assay_runner.agents.factory import build_agent
from assay_runner.agents.presets import (
    REPLY_PROMPT,
    claude_code_session,
    codex_session,
    opencode_session,
    preset,
    render,
)
from assay_runner.contract import RunConfig, Usage
from assay_runner.conversation.customers import check_conversing
from assay_runner.errors import InputError
from assay_runner.suite import load_suite
from tests.support.conversations import conversation_suite
from tests.unit.builders import ticket
from tests.unit.test_agent_presets import (
    EXPECTED_ARGV,
    GATEWAY,
    MODEL,
    args,
    make_workspace,
)

SESSION = "0e639165-79b1-4bd4-bb0f-4cb4c15115d4"
MESSAGE = 'It is the "Archer" {AX55}, bought in 2021.'
REPLY = REPLY_PROMPT.format(message=MESSAGE)


def agent(name: str, timeout: float = 30) -> CommandAgent:
    return CommandAgent(preset(name), model=MODEL, gateway=GATEWAY, timeout=timeout)


@pytest.fixture(autouse=True)
def _no_runner_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_GATEWAY_TOKEN", raising=False)
    monkeypatch.delenv("ASSAY_GATEWAY_TOKEN_FILE", raising=False)


# --- argv: the opening turn and a later one ----------------------------------------------------------------


def later(name: str) -> list[str]:
    """The preset's expected argv for a later turn: its CLI's resume form, the customer's words framed."""
    opening = EXPECTED_ARGV[name]
    prelude, cli = opening[:3], opening[3]
    if name == "claude-code":  # claude -p REPLY --resume ID, then the opening turn's flags
        assert opening[4] == "-p"
        return [*prelude, cli, "-p", REPLY, "--resume", SESSION, *opening[6:]]
    if name == "codex":  # codex exec resume FLAGS... ID REPLY
        assert opening[4] == "exec"
        return [*prelude, cli, "exec", "resume", *opening[5:-1], SESSION, REPLY]
    # opencode run FLAGS... --session ID REPLY
    return [
        *prelude,
        *args("opencode", "run", "--format json", "--model assay/{model}"),
        "--session",
        SESSION,
        REPLY,
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED_ARGV))
def test_each_preset_opens_and_continues_its_clis_own_session(name: str, tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    command = agent(name)
    assert command.cannot_converse is None
    opening = render(command.spec, command.values(ticket(), 1, workspace))
    assert opening.argv == EXPECTED_ARGV[name]  # the opening turn is today's run, unchanged
    values = command.continue_values(ticket(), 1, workspace, Turn(1, MESSAGE, SESSION))
    spec = command.spec
    assert spec.continue_argv is not None
    continued = [part.format(**values) for part in spec.continue_argv]
    assert continued == later(name)
    # The customer's words reach the CLI as they are (braces and quotes included), with where to reply.
    assert REPLY.startswith("# The customer replied\n\n" + MESSAGE + "\n\n---\n")
    assert "`answer.md`" in REPLY


def test_the_argv_of_each_preset_for_turn_n(tmp_path: Path) -> None:
    """The exact later-turn commands, written out once for a reader (the test above derives them)."""
    workspace = make_workspace(tmp_path)
    tails = {}
    for name in EXPECTED_ARGV:
        command = agent(name)
        values = command.continue_values(ticket(), 1, workspace, Turn(3, MESSAGE, SESSION))
        assert command.spec.continue_argv is not None
        argv = [part.format(**values) for part in command.spec.continue_argv][3:]
        tails[name] = [part if part != REPLY else "REPLY" for part in argv]
    assert tails["claude-code"][:5] == ["claude", "-p", "REPLY", "--resume", SESSION]
    assert tails["codex"][:3] == ["codex", "exec", "resume"] and tails["codex"][-2:] == [SESSION, "REPLY"]
    assert tails["opencode"] == [
        "opencode",
        "run",
        "--format",
        "json",
        "--model",
        f"assay/{MODEL}",
        "--session",
        SESSION,
        "REPLY",
    ]


# --- the session each CLI names ----------------------------------------------------------------------------

CLAUDE_LINES = "\n".join(
    json.dumps(line)
    for line in (
        {"type": "system", "subtype": "init", "cwd": "/w", "session_id": SESSION, "tools": ["Read"]},
        {
            "type": "assistant",
            "message": {"content": [{"type": "text", "text": "Hi"}]},
            "session_id": SESSION,
        },
        {"type": "result", "subtype": "success", "is_error": False, "result": "Hi", "session_id": SESSION},
    )
)
CODEX_LINES = "\n".join(
    json.dumps(line)
    for line in (
        {"type": "thread.started", "thread_id": "01a245a6-a172-75d0-8916-aca082719743"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "Hi"}},
        {"type": "turn.completed", "usage": {"input_tokens": 2100, "output_tokens": 81}},
    )
)
OPENCODE_LINES = "\n".join(
    json.dumps(line)
    for line in (
        {"type": "step_start", "sessionID": "ses_dba5954e5ffepTBWC2XlHymcjT", "part": {"type": "step-start"}},
        {
            "type": "text",
            "sessionID": "ses_dba5954e5ffepTBWC2XlHymcjT",
            "part": {"type": "text", "text": "Hi"},
        },
    )
)


@pytest.mark.parametrize(
    ("parse", "stdout", "session"),
    [
        (claude_code_session, CLAUDE_LINES, SESSION),
        (claude_code_session, "not json\n" + CLAUDE_LINES.splitlines()[0], SESSION),  # died after init
        (codex_session, CODEX_LINES, "01a245a6-a172-75d0-8916-aca082719743"),
        (opencode_session, OPENCODE_LINES, "ses_dba5954e5ffepTBWC2XlHymcjT"),
        # Should a later event name another session (a subagent's child session), the run's own is kept.
        (
            opencode_session,
            OPENCODE_LINES + "\n" + json.dumps({"type": "text", "sessionID": "ses_child"}),
            "ses_dba5954e5ffepTBWC2XlHymcjT",
        ),
        (claude_code_session, "", None),
        (codex_session, json.dumps({"type": "turn.started"}), None),
        (opencode_session, json.dumps({"type": "text", "sessionID": "  "}), None),
    ],
)
def test_the_session_each_cli_names(parse: object, stdout: str, session: str | None) -> None:
    assert callable(parse)
    assert parse(stdout) == session


# --- a conversation end to end, through the preludes, with fake CLIs ------------------------------------

FAKE_CLI = """\
import json, os, sys
argv = sys.argv[1:]
if argv[:1] == ['sandbox']:  # Codex's probe of its own sandbox (the prelude's): say it cannot start
    sys.exit(1)
calls = json.loads(open('.fake-calls.json').read()) if os.path.exists('.fake-calls.json') else []
calls.append({'argv': argv, 'answer_before': os.path.exists('answer.md'), 'home': os.environ['HOME']})
open('.fake-calls.json', 'w').write(json.dumps(calls))
turn = len(calls) - 1
if turn == 0:
    open('answer.md', 'w').write('Which model is your router?')
sys.stdout.write(OUTPUT[turn])
"""


def fake(bin_dir: Path, cli: str, outputs: list[str]) -> None:
    script = bin_dir / cli
    script.write_text(f"#!{sys.executable}\nOUTPUT = {outputs!r}\n{FAKE_CLI}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def claude_turn(text: str, prompt: int, output: int) -> str:
    return "\n".join(
        [
            json.dumps({"type": "system", "subtype": "init", "session_id": SESSION}),
            json.dumps(
                {
                    "type": "result",
                    "is_error": False,
                    "result": text,
                    "session_id": SESSION,
                    "usage": {"input_tokens": prompt, "output_tokens": output},
                }
            ),
        ]
    )


def codex_turn(text: str, prompt: int, output: int) -> str:
    return "\n".join(
        [
            json.dumps({"type": "thread.started", "thread_id": SESSION}),
            json.dumps({"type": "item.completed", "item": {"type": "agent_message", "text": text}}),
            json.dumps(
                {"type": "turn.completed", "usage": {"input_tokens": prompt, "output_tokens": output}}
            ),
        ]
    )


def opencode_turn(text: str, prompt: int, output: int) -> str:
    part = {"type": "step-finish", "tokens": {"input": prompt, "output": output}}
    return "\n".join(
        [
            json.dumps({"type": "step_start", "sessionID": SESSION, "part": {"type": "step-start"}}),
            json.dumps(
                {"type": "text", "sessionID": SESSION, "part": {"id": "p", "type": "text", "text": text}}
            ),
            json.dumps({"type": "step_finish", "sessionID": SESSION, "part": part}),
        ]
    )


TURNS = {"claude-code": claude_turn, "codex": codex_turn, "opencode": opencode_turn}


def play(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outputs: list[str]
) -> tuple[list[AgentOutcome], list[dict[str, Any]], Workspace]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake(bin_dir, EXPECTED_ARGV[name][3], outputs)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    workspace = make_workspace(tmp_path)
    command = agent(name)

    async def conversation() -> list[AgentOutcome]:
        first = await command.turn(ticket(), 1, workspace, Turn(0, "My router drops.", None))
        second = await command.turn(ticket(), 1, workspace, Turn(1, MESSAGE, first.session))
        return [first, second]

    outcomes = asyncio.run(conversation())
    calls = json.loads((workspace.root / ".fake-calls.json").read_text())
    return outcomes, calls, workspace


@pytest.mark.parametrize("name", sorted(TURNS))
def test_a_conversation_continues_the_session_the_cli_named(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make = TURNS[name]
    # Codex reports a resumed thread's tokens so far: 2100 + 2300 and 81 + 83.
    second_usage = (4400, 164) if name == "codex" else (2300, 83)
    outputs = [make("I asked which model.", 2100, 81), make("Reset it.", *second_usage)]
    (first, second), calls, workspace = play(name, tmp_path, monkeypatch, outputs)
    assert [o.exit_code for o in (first, second)] == [0, 0]
    assert first.session == SESSION and second.session == SESSION
    assert first.answer == "Which model is your router?"  # answer.md
    # answer.md was removed before the later turn, which wrote none: its reply is its final message.
    assert [c["answer_before"] for c in calls] == [False, False]
    assert second.answer == "Reset it."
    assert not workspace.answer_file.exists()
    # Each turn's own usage (Codex's cumulative report made per turn).
    assert first.usage == Usage(input_tokens=2100, output_tokens=81)
    assert second.usage == Usage(input_tokens=2300, output_tokens=83)
    # The later turn ran the CLI's resume form with the session and the customer's words, in the same HOME.
    expected = later(name)[4:]
    if name == "codex":  # the prelude's sandbox flag after `exec` (the fake's sandbox probe failed)
        expected = ["exec", "--sandbox", "danger-full-access", *expected[1:]]
    assert calls[1]["argv"] == expected
    assert SESSION not in calls[0]["argv"]
    assert calls[0]["home"] == calls[1]["home"] == str(workspace.root / ".home")


def test_a_later_turn_without_a_session_is_refused_not_restarted(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    outcome = asyncio.run(agent("opencode").turn(ticket(), 1, workspace, Turn(1, MESSAGE, None)))
    assert outcome.exit_code == 2 and outcome.answer is None
    assert outcome.error is not None and "named no session" in outcome.error


# --- the time limit holds for the whole conversation -------------------------------------------------------


def test_a_conversation_that_used_its_time_is_not_continued(tmp_path: Path) -> None:
    spec = CommandSpec(
        argv=["sh", "-c", "exec sleep 30"],
        continue_argv=["sh", "-c", "echo {message} > answer.md"],
        answer_from="file",
    )
    command = CommandAgent(spec, model=MODEL, gateway=GATEWAY, timeout=0.5)
    workspace = make_workspace(tmp_path)

    async def conversation() -> list[AgentOutcome]:
        first = await command.turn(ticket(), 1, workspace, Turn(0, "q", None))
        second = await command.turn(ticket(), 1, workspace, Turn(1, "more", first.session))
        return [first, second]

    first, second = asyncio.run(conversation())
    assert first.timed_out and first.exit_code == EXIT_TIMEOUT
    # The opening turn used the whole limit: the later one does not start.
    assert second.timed_out and second.exit_code == EXIT_TIMEOUT
    assert "were used up" in second.transcript
    assert not workspace.answer_file.exists()


def test_a_later_turn_gets_what_the_earlier_turns_left(tmp_path: Path) -> None:
    spec = CommandSpec(
        argv=["sh", "-c", "echo first > answer.md"],
        continue_argv=["sh", "-c", "exec sleep 30", "{message}"],
    )
    command = CommandAgent(spec, model=MODEL, gateway=GATEWAY, timeout=2.0)
    workspace = make_workspace(tmp_path)

    async def conversation() -> list[AgentOutcome]:
        first = await command.turn(ticket(), 1, workspace, Turn(0, "q", None))
        second = await command.turn(ticket(), 1, workspace, Turn(1, "more", first.session))
        return [first, second]

    first, second = asyncio.run(conversation())
    assert first.answer == "first\n"
    assert second.timed_out
    assert first.wall_seconds is not None
    left = 2.0 - first.wall_seconds
    assert f"killed after {left:g} s" in second.transcript


# --- a custom command agent: a continue template, or a clear refusal ---------------------------------------


def test_a_command_with_a_continue_template_converses_under_the_session_assay_made(tmp_path: Path) -> None:
    spec = CommandSpec(
        argv=["sh", "-c", 'echo "opened $0" > answer.md', "{session}"],
        continue_argv=["sh", "-c", 'echo "$0 continued: $1" > answer.md', "{session}", "{message}"],
    )
    command = CommandAgent(spec, model=MODEL, gateway=GATEWAY, timeout=30)
    assert command.cannot_converse is None
    workspace = make_workspace(tmp_path)

    async def conversation() -> list[AgentOutcome]:
        first = await command.turn(ticket(), 1, workspace, Turn(0, "q", None))
        second = await command.turn(ticket(), 1, workspace, Turn(1, MESSAGE, first.session))
        return [first, second]

    first, second = asyncio.run(conversation())
    session = first.session
    assert session is not None and first.answer == f"opened {session}\n"
    assert second.session == session
    assert second.answer == f"{session} continued: {MESSAGE}\n"


def test_a_continue_template_may_name_the_prompt_the_opening_template_does_not(tmp_path: Path) -> None:
    spec = CommandSpec(
        argv=["sh", "-c", "echo opened > answer.md"],
        continue_argv=["sh", "-c", 'printf "%s|%s" "$0" "$1" > answer.md', "{message}", "{prompt}"],
    )
    command = CommandAgent(spec, model=MODEL, gateway=GATEWAY, timeout=30)
    workspace = make_workspace(tmp_path)

    async def conversation() -> list[AgentOutcome]:
        first = await command.turn(ticket(), 1, workspace, Turn(0, "q", None))
        second = await command.turn(ticket(), 1, workspace, Turn(1, "more", first.session))
        return [first, second]

    _first, second = asyncio.run(conversation())
    assert second.answer == f"more|{workspace.prompt_file.read_text()}"


def test_a_command_without_a_continue_template_cannot_converse(tmp_path: Path) -> None:
    command = CommandAgent(CommandSpec(argv=["true"]), model=MODEL, gateway=GATEWAY, timeout=30)
    reason = cannot_converse(command)
    assert reason is not None and "no continue template" in reason and "--continue-command" in reason
    # Refused before the first cell of a conversational suite, with the reason.
    talking = load_suite(conversation_suite(tmp_path / "suite")).tickets
    refused = (
        r"ASK-1 are conversations, and the command agent cannot continue one from turn to turn \(it has no"
    )
    with pytest.raises(InputError, match=refused):
        check_conversing(command, talking)
    check_conversing(command, [ticket()])  # a suite without conversations: no refusal
    # Asked to continue anyway, it runs nothing and says why.
    workspace = make_workspace(tmp_path)
    (workspace.answer_file).write_text("from the opening turn")
    outcome = asyncio.run(command.turn(ticket(), 1, workspace, Turn(1, MESSAGE, "s")))
    assert outcome.exit_code == 2
    assert outcome.error == f"the command agent cannot continue the conversation: {reason}"
    assert workspace.answer_file.read_text() == "from the opening turn"


def test_an_agent_without_turns_cannot_converse() -> None:
    class Once:
        kind = "replay"

        async def run(self, *_args: object) -> object:
            raise AssertionError("not run")

    assert cannot_converse(Once()) == "it answers a ticket once"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("continue_argv", "error"),
    [
        ([], "agent continue command is empty"),
        (["agent", "--resume", "{session}"], r"does not name \{message\}"),
        (["agent", "{message}", "{turn}"], r"unknown placeholder\(s\) \{turn\}"),
    ],
)
def test_a_continue_template_is_checked(continue_argv: list[str], error: str) -> None:
    spec = CommandSpec(argv=["agent", "{prompt_file}"], continue_argv=continue_argv)
    with pytest.raises(InputError, match=error):
        CommandAgent(spec, model=MODEL, gateway=GATEWAY, timeout=30)


def test_the_run_config_carries_a_command_agents_continue_template() -> None:
    config = RunConfig.model_validate(
        {
            "suite": "s",
            "agent": {
                "kind": "command",
                "model": MODEL,
                "command": ["agent", "{prompt_file}"],
                "continueCommand": ["agent", "--resume", "{session}", "{message}"],
            },
        }
    )
    built = build_agent(config, None)
    assert isinstance(built, CommandAgent)
    assert built.spec.continue_argv == ["agent", "--resume", "{session}", "{message}"]
    assert cannot_converse(built) is None
    preset_config = config.model_copy(
        update={"agent": config.agent.model_copy(update={"kind": "codex", "command": None})}
    )
    with pytest.raises(InputError, match="is for agent kind 'command'"):
        build_agent(preset_config, None)
