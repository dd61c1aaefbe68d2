"""The pieces that keep `assay run`'s overhead low: workspaces made ahead in queue order, agent exits
noticed through pidfds, and the rest of the run prepared while the first agents run — each still correct,
whatever it saves. (The collector's schedule: test_collector.py.)"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay_runner.agents.base import Workspace
from assay_runner.agents.process import pidfd_child_watcher, run_process
from assay_runner.agents.workspace import WorkspaceFactory
from assay_runner.run import warmup
from assay_runner.run.prefetch import WorkspacePrefetch
from assay_runner.suite.models import Ticket

TICKETS = [Ticket(id=f"T-{i}", split="validation", question=f"q{i}") for i in range(6)]


class RecordingFactory(WorkspaceFactory):
    def __init__(self, base: Path, fail_on: str | None = None) -> None:
        super().__init__(base, None, {"KB-1": "article"})
        self.created: list[str] = []
        self.discarded: list[str] = []
        self.fail_on = fail_on
        self.tickets: dict[Path, str] = {}  # workspaces are named at random: which ticket each is for

    def create(self, ticket: Ticket, repetition: int) -> Workspace:
        if ticket.id == self.fail_on:
            raise OSError("No space left on device")
        self.created.append(ticket.id)
        workspace = super().create(ticket, repetition)
        self.tickets[workspace.root] = ticket.id
        return workspace

    def discard(self, workspace: Workspace) -> None:
        self.discarded.append(self.tickets[workspace.root])
        super().discard(workspace)


def test_workspaces_are_made_in_queue_order_at_most_ahead_of_the_agents(tmp_path: Path) -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        factory = RecordingFactory(tmp_path)
        prefetch = WorkspacePrefetch(factory, [(t, 1) for t in TICKETS], ahead=2)
        await asyncio.sleep(0.2)
        made_before_any_take = list(factory.created)
        taken = await prefetch.take(TICKETS[0], 1)
        assert (taken.root / "kb" / "KB-1.md").read_text() == "article"
        factory.discard(taken)
        await asyncio.sleep(0.2)
        await prefetch.close()
        return made_before_any_take, factory.created

    before, after = asyncio.run(scenario())
    assert before == ["T-0", "T-1"]  # two ahead, no more, while no agent took one
    assert after == ["T-0", "T-1", "T-2"]  # one taken, one more made, in order


def test_untaken_workspaces_are_discarded_and_a_failed_one_reaches_its_cell(tmp_path: Path) -> None:
    async def scenario() -> RecordingFactory:
        factory = RecordingFactory(tmp_path, fail_on="T-1")
        prefetch = WorkspacePrefetch(factory, [(t, 1) for t in TICKETS[:3]], ahead=3)
        first = await prefetch.take(TICKETS[0], 1)
        with pytest.raises(OSError, match="No space left"):
            await prefetch.take(TICKETS[1], 1)
        factory.discard(first)
        await asyncio.sleep(0.1)
        await prefetch.close()  # T-2 was made but never taken (a stop request)
        return factory

    factory = asyncio.run(scenario())
    assert factory.created == ["T-0", "T-2"]
    assert sorted(factory.discarded) == ["T-0", "T-2"]
    factory.close()  # the run's own folder goes once nothing is left in it
    assert list(tmp_path.iterdir()) == []


class BlockingFactory(RecordingFactory):
    """Making `blocks_on`'s workspace waits until `go_on` is set: a stop request arriving meanwhile."""

    def __init__(self, base: Path, blocks_on: str) -> None:
        super().__init__(base)
        self.blocks_on = blocks_on
        self.entered = threading.Event()
        self.go_on = threading.Event()

    def create(self, ticket: Ticket, repetition: int) -> Workspace:
        if ticket.id == self.blocks_on:
            self.entered.set()
            self.go_on.wait(30)
        return super().create(ticket, repetition)


def test_a_workspace_still_being_made_when_the_prefetch_closes_is_discarded(tmp_path: Path) -> None:
    async def scenario() -> BlockingFactory:
        factory = BlockingFactory(tmp_path, blocks_on="T-2")
        prefetch = WorkspacePrefetch(factory, [(TICKETS[0], 1), (TICKETS[2], 1)], ahead=2)
        factory.discard(await prefetch.take(TICKETS[0], 1))
        assert await asyncio.to_thread(factory.entered.wait, 30)  # T-2's is being made
        threading.Timer(0.2, factory.go_on.set).start()  # ...and is finished after the close began
        await prefetch.close()
        return factory

    factory = asyncio.run(scenario())
    assert factory.created == ["T-0", "T-2"]
    assert sorted(factory.discarded) == ["T-0", "T-2"]
    factory.close()  # the run's own folder goes once nothing is left in it
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12+ watches children with pidfds itself")
def test_exit_codes_through_the_pidfd_watcher_and_the_default_restored(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int, str]:
        before = asyncio.get_child_watcher()
        with pidfd_child_watcher():
            during = type(asyncio.get_child_watcher()).__name__
            results = await asyncio.gather(
                *(
                    run_process(["sh", "-c", f"exit {code}"], cwd=tmp_path, env={}, timeout=10)
                    for code in (0, 3)
                )
            )
        assert asyncio.get_child_watcher() is before
        return results[0].exit_code, results[1].exit_code, during

    ok, failed, watcher = asyncio.run(scenario())
    assert (ok, failed) == (0, 3)
    assert watcher == "PidfdChildWatcher"


def test_the_rest_of_the_run_is_prepared_only_once_the_first_agents_run() -> None:
    async def scenario() -> None:
        started = asyncio.Event()
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warmup-test")
        reference_computed = threading.Event()
        try:
            preparing = asyncio.create_task(
                warmup.prepare_rest(started, pool, background=[reference_computed.set])
            )
            for _ in range(20):
                await asyncio.sleep(0)
            assert not preparing.done() and not reference_computed.is_set()
            assert not [t for t in threading.enumerate() if t.name.startswith("warmup-test")]
            started.set()
            await asyncio.wait_for(preparing, 30)
            assert reference_computed.wait(5)  # ran in the pool, whose thread now exists
            assert [t for t in threading.enumerate() if t.name.startswith("warmup-test")]
        finally:
            pool.shutdown(wait=True)

    asyncio.run(scenario())


FINISH_PREPARED = """
import asyncio, json, sys
from concurrent.futures import ThreadPoolExecutor
from assay_runner import contract
from assay_runner.run import warmup
from assay_runner.suite import models as suite_models
models = [m for module in (contract, suite_models) for m in vars(module).values()
          if isinstance(m, type) and issubclass(m, contract.WireModel) and m is not contract.WireModel]
def state():
    return {"incomplete": sorted(m.__name__ for m in models if not m.__pydantic_complete__),
            "imported": sorted(n for n in warmup.FINISH_MODULES if n in sys.modules)}
before = state()
async def main():
    started = asyncio.Event()
    started.set()
    with ThreadPoolExecutor(max_workers=2) as pool:
        await warmup.prepare_rest(started, pool)
asyncio.run(main())
print(json.dumps({"before": before, "after": state()}))
"""


def test_the_end_of_the_run_is_ready_after_preparing_in_a_fresh_interpreter() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FINISH_PREPARED], capture_output=True, text=True, check=True, timeout=120
    )
    states = json.loads(done.stdout)
    assert {"Result", "RunSummary", "AnswerKey"} <= set(states["before"]["incomplete"])
    assert "assay_runner.views.report" not in states["before"]["imported"]
    assert states["after"] == {"incomplete": [], "imported": sorted(warmup.FINISH_MODULES)}


# The end of `assay run`: the process exits without the interpreter's teardown (cli.exit_now) when nothing
# needs it. `Noisy` says whether the teardown ran (its instance is freed only then).
EXIT = """
import atexit, sys, threading, time, types
from pathlib import Path
from assay_runner.cli import exit_now
class Noisy:
    def __del__(self):
        sys.stderr.write("torn down")
kept = Noisy()
atexit.register(lambda: Path(sys.argv[1]).write_text("atexit ran"))
sys.stdout.write("x" * 5000)  # a pipe: still in the buffer
sys.stderr.write("said;")
if sys.argv[2] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread done", end=""))).start()
if sys.argv[2] == "mlflow":
    sys.modules["mlflow"] = types.ModuleType("mlflow")
exit_now(int(sys.argv[3]))
"""


@pytest.mark.parametrize("code", [0, 1, 2, 141])
def test_exit_now_keeps_the_exit_code_the_output_and_the_atexit_work(tmp_path: Path, code: int) -> None:
    marker = tmp_path / "marker"
    argv = [sys.executable, "-c", EXIT, str(marker), "alone", str(code)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == code
    assert done.stdout == "x" * 5000
    assert done.stderr == "said;"  # and no teardown
    assert marker.read_text() == "atexit ran"


@pytest.mark.parametrize("case", ["thread", "mlflow"])
def test_exit_now_exits_the_usual_way_when_work_may_still_be_under_way(tmp_path: Path, case: str) -> None:
    """A thread the interpreter would wait for finishes first; with MLflow loaded, its exit is its own."""
    marker = tmp_path / "marker"
    argv = [sys.executable, "-c", EXIT, str(marker), case, "1"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stdout == "x" * 5000 + ("thread done" if case == "thread" else "")
    assert done.stderr == "said;torn down"
    assert marker.read_text() == "atexit ran"


def test_only_the_named_command_is_built_and_every_command_is_still_listed() -> None:
    from assay_runner.cli import build_parser, named_command

    assert named_command(["--version"]) is None
    assert named_command(["-h", "run", "x"]) == "run"
    assert named_command(["--", "run"]) is None
    full = build_parser()
    assert build_parser("run").format_help() == full.format_help()
    assert build_parser("nothing").format_help() == full.format_help()
    commands = full._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, parser in commands.items():
        built = build_parser(name)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
        assert built.keys() == commands.keys()
        assert built[name].format_help() == parser.format_help()
        assert [a.dest for a in built[name]._actions] == [a.dest for a in parser._actions]


LOAD_WITHOUT_FACTS = """
import sys
from pathlib import Path
from assay_runner.suite.loader import load_suite
root = Path(sys.argv[1])
suite = load_suite(str(root))
print(len(suite.spec.tickets), sorted(m for m in sys.modules if m.startswith("assay_runner.text")))
"""


@pytest.mark.parametrize("facts", [False, True])
def test_a_suite_with_no_facts_to_check_loads_no_text_machinery(tmp_path: Path, facts: bool) -> None:
    """The facts' words are checked with the text tokenizer, imported for them only: a code judge's suite
    starts its first agent without it."""
    key = ", key: {mustMention: ['Settings > Export']}" if facts else ""
    (tmp_path / "suite.yaml").write_text(
        "name: s\njudges:\n  - {name: c, type: code, weight: 1, threshold: 1.0, code: 'return 1.0'}\n"
        f"tickets:\n  - {{id: T-1, split: validation, question: q{key}}}\n"
    )
    argv = [sys.executable, "-c", LOAD_WITHOUT_FACTS, str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    count, _, modules = done.stdout.partition(" ")
    assert count == "1"
    assert ("assay_runner.text.match" in modules) is facts


def test_a_run_without_a_gateway_imports_no_metering_ledger() -> None:
    """`assay run`: the metering proxy's ledger and exchanges are imported when there is a gateway (or
    cassettes) to meter, not before every first agent."""
    code = (
        "import sys, assay_runner.run.evaluation; "
        "print(sorted(m for m in sys.modules if m.startswith('assay_runner.gateway.metering.')))"
    )
    argv = [sys.executable, "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "['assay_runner.gateway.metering.attribution']"


AT_FIRST_AGENT = """
import json
import sys
from pathlib import Path

seen = Path(sys.argv[1])


def at_first_agent(event, args):
    if event == "subprocess.Popen" and not seen.exists():
        seen.write_text(json.dumps(sorted(sys.modules)))


sys.addaudithook(at_first_agent)
sys.argv = ["assay", *sys.argv[2:]]
from assay_runner.cli import console

console()
"""
NOT_BEFORE_THE_FIRST_AGENT = (
    "assay_runner.io.suite_artifact",  # a suite folder needs no registry client
    "tarfile",
    "gzip",
    "oras",
    "httpx",  # no gateway: no proxy, no HTTP client
    "assay_runner.gateway.http",
    "assay_runner.gateway.metering.proxy",
    "mlflow",
    "rich",
    "assay_runner.judges.model",
    "assay_runner.views.report",
    "assay_runner.agents.presets",  # a command agent's run: no CLI preset, none of their transcript parsers
    "assay_runner.agents.trajectory.codex",
)


def test_a_run_without_a_gateway_imports_only_what_its_first_agent_needs(tmp_path: Path) -> None:
    """`assay run` on a suite folder with a command agent and no gateway: what sys.modules holds when the
    runner starts its first agent (an audit hook on subprocess.Popen, in the real command) has none of the
    registry, HTTP, tracking, report or model-judge modules; each is imported by the path that needs it.
    (`ssl` is there, as for any asyncio program: asyncio's event loop imports it; so is importlib.metadata,
    which pydantic imports to build its first validator even with plugins disabled.)"""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.yaml").write_text(
        "name: s\njudges:\n  - {name: c, type: code, weight: 1, threshold: 1.0, code: 'return 1.0'}\n"
        "tickets:\n  - {id: T-1, split: validation, question: q}\n"
    )
    seen = tmp_path / "modules.json"
    argv = [
        sys.executable,
        "-c",
        AT_FIRST_AGENT,
        str(seen),
        "run",
        str(suite),
        "--agent",
        "command",
        "--model",
        "m",
        "--command",
        "/bin/sh -c 'echo done > answer.md'",
        "--no-mlflow",
        "--out",
        str(tmp_path / "out"),
        "-q",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(seen.read_text()))
    assert "assay_runner.agents.process" in modules  # the hook saw the agent's start, not an earlier one
    assert sorted(modules.intersection(NOT_BEFORE_THE_FIRST_AGENT)) == []
