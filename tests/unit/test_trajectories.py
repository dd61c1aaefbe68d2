"""Each CLI's transcript read as one trajectory: the real outputs of the pinned CLIs (tests/data/trajectories,
captured from tests/agents' lookup conversation: list kb/, read the article, search, write answer.md, end),
edge cases of each format, shell commands read for what they did, and the line stamps they are timed with."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from assay_runner.agents.presets import parse_claude_code, parse_codex, parse_opencode
from assay_runner.agents.process import TRANSCRIPT_LIMIT, run_process
from assay_runner.agents.trajectory import claude_code, codex, opencode
from assay_runner.agents.trajectory.common import shell_action
from assay_runner.contract import (
    TRAJECTORY_MAX_STEPS,
    TRAJECTORY_TEXT_CHARS,
    AgentError,
    ModelTurn,
    ToolCall,
    Trajectory,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "trajectories"
PARSERS = {"opencode": opencode.parse, "claude-code": claude_code.parse, "codex": codex.parse}
USAGE = {"opencode": parse_opencode, "claude-code": parse_claude_code, "codex": parse_codex}


def captured(agent: str) -> tuple[str, str, str]:
    data = json.loads((DATA / f"{agent}.json").read_text())
    return data["stdout"], data["root"], data["answer"]


def times(stdout: str) -> list[float | None]:
    return [round(0.1 * i, 3) for i in range(len(stdout.splitlines()))]


@pytest.mark.parametrize("agent", sorted(PARSERS))
def test_the_real_outputs_read_as_the_same_steps(agent: str) -> None:
    stdout, root, answer = captured(agent)
    trajectory = PARSERS[agent](stdout, times(stdout), root)
    assert trajectory is not None and trajectory.agent == agent
    calls = trajectory.tool_calls()
    assert [c.action for c in calls] == ["list", "read", "search", "write"]
    listing, read, search, write = calls
    assert all(c.ok for c in calls)
    article = answer.split("[", 1)[1].split("]", 1)[0]
    assert listing.paths == ["kb"] and article in listing.result
    assert read.paths == [f"kb/{article}.md"]
    code = answer.split("code is ", 1)[1].split(" ", 1)[0]
    assert code in read.result
    assert "GB" in search.result and search.paths == ["kb"]
    assert write.paths == ["answer.md"]
    final = [s for s in trajectory.steps if isinstance(s, ModelTurn)][-1]
    assert final.text == "I wrote my reply to the customer to answer.md."
    # Times are seconds from the start, in order; every call has both ends.
    assert all(c.start is not None and c.end is not None and c.start <= c.end for c in calls)
    # OpenCode times its tools on its own clock (epoch milliseconds, anchored to the runner's stamps).
    stamped = [
        s.start for s in trajectory.steps if s.start is not None and (agent != "opencode" or s.type != "tool")
    ]
    assert stamped == sorted(stamped)
    turns = [s for s in trajectory.steps if isinstance(s, ModelTurn)]
    assert all(t.start is not None and t.end is not None and t.start <= t.end for t in turns)
    # The run's tokens are the ones the usage parser reads.
    _, usage = USAGE[agent](stdout)
    assert usage is not None
    assert (trajectory.input_tokens, trajectory.output_tokens) == (usage.input_tokens, usage.output_tokens)
    # It survives the wire (result.json, trajectory.json).
    assert Trajectory.model_validate_json(trajectory.to_json()) == trajectory


def test_opencode_and_claude_code_report_each_model_turn() -> None:
    for agent in ("opencode", "claude-code"):
        stdout, root, _ = captured(agent)
        trajectory = PARSERS[agent](stdout, times(stdout), root)
        assert trajectory is not None
        kinds = [s.type for s in trajectory.steps]
        assert kinds == ["model", "tool"] * 4 + ["model"], (agent, kinds)
        turns = [s for s in trajectory.steps if isinstance(s, ModelTurn)]
        assert all(t.input_tokens for t in turns)


@pytest.mark.parametrize("agent", sorted(PARSERS))
def test_nothing_to_read_is_no_trajectory(agent: str) -> None:
    assert PARSERS[agent]("", [], "/w") is None
    assert PARSERS[agent]("not json\n[1, 2]\n", [None, None], "/w") is None


def test_errors_and_failed_tools_are_steps() -> None:
    oc = "\n".join(
        [
            json.dumps({"type": "step_start", "part": {"type": "step-start"}}),
            json.dumps(
                {
                    "type": "tool_use",
                    "part": {
                        "tool": "read",
                        "state": {
                            "status": "error",
                            "input": {"filePath": "/w/kb/x.md"},
                            "error": "no such file",
                        },
                    },
                }
            ),
            json.dumps(
                {"type": "error", "error": {"name": "APIError", "data": {"message": "500 from gateway"}}}
            ),
        ]
    )
    trajectory = opencode.parse(oc, [0.1, 0.2, 0.3], "/w")
    assert trajectory is not None
    read = trajectory.tool_calls()[0]
    assert (read.ok, read.result, read.paths) == (False, "no such file", ["kb/x.md"])
    assert isinstance(trajectory.steps[-1], AgentError) and trajectory.steps[-1].message == "500 from gateway"

    claude = "\n".join(
        [
            json.dumps(
                {
                    "type": "assistant",
                    "message": {
                        "id": "m1",
                        "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
                    },
                }
            ),
            json.dumps(
                {
                    "type": "user",
                    "message": {
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": "t1",
                                "is_error": True,
                                "content": "denied",
                            }
                        ]
                    },
                }
            ),
            json.dumps(
                {
                    "type": "result",
                    "is_error": True,
                    "subtype": "error_max_turns",
                    "usage": {"output_tokens": 3},
                }
            ),
        ]
    )
    trajectory = claude_code.parse(claude, [1.0, 2.0, 3.0], "/w")
    assert trajectory is not None
    bash = trajectory.tool_calls()[0]
    assert (bash.action, bash.ok, bash.result, bash.start, bash.end) == ("shell", False, "denied", 1.0, 2.0)
    assert isinstance(trajectory.steps[-1], AgentError) and trajectory.steps[-1].message == "error_max_turns"

    cx = "\n".join(
        [
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {
                        "id": "i1",
                        "type": "command_execution",
                        "command": "/bin/bash -lc 'cat kb/a.md'",
                        "aggregated_output": "cat: kb/a.md: No such file",
                        "exit_code": 1,
                        "status": "failed",
                    },
                }
            ),
            json.dumps(
                {
                    "type": "item.completed",
                    "item": {
                        "id": "i2",
                        "type": "file_change",
                        "changes": [{"path": "/w/answer.md", "kind": "add"}],
                    },
                }
            ),
            json.dumps({"type": "turn.failed", "error": {"message": "stream disconnected"}}),
        ]
    )
    trajectory = codex.parse(cx, [0.5, 0.6, 0.7], "/w")
    assert trajectory is not None
    cat, change = trajectory.tool_calls()
    assert (cat.action, cat.ok, cat.paths) == ("read", False, ["kb/a.md"])
    assert (change.action, change.paths) == ("write", ["answer.md"])
    assert (
        isinstance(trajectory.steps[-1], AgentError) and trajectory.steps[-1].message == "stream disconnected"
    )


def test_long_texts_are_cut_and_long_runs_keep_their_first_steps() -> None:
    big = "x" * (TRAJECTORY_TEXT_CHARS + 50)
    lines = [
        json.dumps(
            {
                "type": "item.completed",
                "item": {
                    "id": f"i{i}",
                    "type": "command_execution",
                    "command": f"cat kb/{i}.md",
                    "aggregated_output": big,
                    "exit_code": 0,
                },
            }
        )
        for i in range(TRAJECTORY_MAX_STEPS + 5)
    ]
    trajectory = codex.parse("\n".join(lines), [], "/w")
    assert trajectory is not None
    assert len(trajectory.steps) == TRAJECTORY_MAX_STEPS and trajectory.dropped_steps == 5
    first = trajectory.tool_calls()[0]
    assert len(first.result) == TRAJECTORY_TEXT_CHARS and first.cut == 50
    assert first.start is None  # no stamps given: no time, never a made-up one


@pytest.mark.parametrize(
    ("command", "action", "paths"),
    [
        ("/bin/bash -lc 'rg --files kb'", "list", ["kb"]),
        ("/bin/bash -lc 'cat kb/KB-1.md'", "read", ["kb/KB-1.md"]),
        ("/bin/bash -lc \"rg -n 'over \\\\d+ GB' kb\"", "search", ["kb"]),
        ("grep -rn refund /w/kb/", "search", ["kb"]),
        ("sed -n 1,200p kb/KB-2.md", "read", ["kb/KB-2.md"]),
        ("head -n 20 kb/a.md", "read", ["kb/a.md"]),
        ("cat kb/a.md | head -5", "read", ["kb/a.md"]),
        ("ls -la kb", "list", ["kb"]),
        ("find kb -name '*.md'", "list", ["kb"]),
        ("/bin/bash -lc \"printf '%s' 'x y' > answer.md\"", "write", ["answer.md"]),
        ("cat kb/a.md && echo hi > b.md", "shell", ["kb/a.md", "b.md"]),
        # Separators inside quotes are text: one write (the demo's answers hold `|` and `;`).
        ("/bin/bash -lc \"printf '%s' 'A | b; c && d' > answer.md\"", "write", ["answer.md"]),
        ("echo hi >> b.md", "write", ["b.md"]),
        ("python3 -c 'print(1)'", "shell", []),
        ("cat /etc/passwd", "read", ["/etc/passwd"]),
    ],
)
def test_shell_commands_are_read_for_what_they_did(command: str, action: str, paths: list[str]) -> None:
    assert shell_action(command, "/w") == (action, paths)


def test_stdout_lines_are_stamped_when_read(tmp_path: Path) -> None:
    script = "import sys\nprint('a', flush=True)\nprint('b', flush=True)\nsys.stdout.write('c')\n"
    done = asyncio.run(
        run_process([sys.executable, "-c", script], cwd=tmp_path, env={}, timeout=30, stamp_lines=True)
    )
    assert done.stdout == "a\nb\nc"
    first, second, last = done.line_times
    assert first is not None and second is not None and 0 <= first <= second
    assert last is None  # an unfinished last line has no end to stamp


def test_stamps_stay_aligned_when_early_output_is_dropped(tmp_path: Path) -> None:
    count = TRANSCRIPT_LIMIT // 100 + 1000  # more than the kept tail, in 100-byte lines
    script = f"import sys\nfor i in range({count}):\n    sys.stdout.write(f'{{i:099d}}\\n')\n"
    done = asyncio.run(
        run_process([sys.executable, "-c", script], cwd=tmp_path, env={}, timeout=60, stamp_lines=True)
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("[... earlier output dropped")
    assert len(done.line_times) == len(lines) and done.line_times[0] is None
    assert lines[-1] == f"{count - 1:099d}" and None not in done.line_times[1:]
    stamps = [t for t in done.line_times if t is not None]
    assert stamps == sorted(stamps)


def test_without_stamps_nothing_changes(tmp_path: Path) -> None:
    done = asyncio.run(run_process(["echo", "x"], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, timeout=10))
    assert done.stdout == "x\n" and done.line_times == ()


def test_every_step_kind_round_trips() -> None:
    trajectory = Trajectory(
        agent="x",
        steps=[
            ModelTurn(text="hi", input_tokens=3),
            ToolCall(tool="read", action="read"),
            AgentError(message="e"),
        ],
    )
    again = Trajectory.model_validate(json.loads(trajectory.to_json()))
    assert again == trajectory and [s.type for s in again.steps] == ["model", "tool", "error"]


def test_a_search_that_found_nothing_is_the_same_event_for_the_three_clis() -> None:
    """One definition of a failed call: the tool reported an error. A search without hits did what it was
    asked — Claude Code's Grep and OpenCode's grep say so in their result, Codex's `rg` exits 1 — while a
    search the tool could not run (rg exits 2) failed, for Codex as for the others."""
    claude = "\n".join(
        json.dumps(line)
        for line in (
            {
                "type": "assistant",
                "message": {
                    "id": "m1",
                    "content": [{"type": "tool_use", "id": "g1", "name": "Grep", "input": {"pattern": "zz"}}],
                },
            },
            {
                "type": "user",
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": "g1", "content": "No matches found"}]
                },
            },
        )
    )
    oc = json.dumps(
        {
            "type": "tool_use",
            "part": {
                "tool": "grep",
                "state": {"status": "completed", "input": {"pattern": "zz"}, "output": "No files found"},
            },
        }
    )

    def codex_search(code: int, output: str) -> str:
        item = {"id": "i1", "type": "command_execution", "command": "/bin/bash -lc 'rg zz kb'"}
        done = {**item, "aggregated_output": output, "exit_code": code, "status": "failed"}
        return json.dumps({"type": "item.completed", "item": done})

    searches = [
        parsed.tool_calls()[0]
        for parsed in (
            claude_code.parse(claude, [0.1, 0.2], "/w"),
            opencode.parse(oc, [0.1], "/w"),
            codex.parse(codex_search(1, ""), [0.1], "/w"),
        )
        if parsed is not None
    ]
    assert [(s.action, s.ok) for s in searches] == [("search", True)] * 3
    broken = codex.parse(codex_search(2, "rg: kb: No such file or directory"), [0.1], "/w")
    assert broken is not None and not broken.tool_calls()[0].ok
