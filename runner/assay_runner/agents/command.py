"""The `command` agent: any program, given as an argv template, run in the ticket's workspace.

Placeholders: {prompt_file} {answer_file} {workspace} {brain} {kb} {model} {gateway} {ticket_id}
{repetition}, {prompt} (the prompt's text) and {session} (the conversation's session, below). The answer is
read from `answer.md` in the workspace, or from standard output when the spec says so (CLIs that print their
final message). The environment is built from scratch — PATH, HOME inside the workspace, the gateway URL and
model — so no key or setting of the runner's own environment leaks into the agent.

A conversational ticket is played turn by turn (`turn`): the opening turn runs the argv as above; each later
turn runs the spec's continue template (`continue_argv`, the CLI's own resume form), which may also use
{message} (the customer's words) and {session}, in the same workspace, so the same HOME (where each CLI
keeps its sessions) and the same sandbox, cgroup and metering-proxy URL as every turn of that cell. The
session is what the CLI named in its output (`parse_session`), else an id Assay made at the opening turn
({session} in both templates, for a program that takes its session id from its caller). The time limit
holds for the whole conversation: each turn gets what the earlier turns left. answer.md is removed before
each later turn (the previous turn's answer is in that turn's outcome), so a turn's reply is the answer.md it
wrote, else its final message. A spec without a continue template cannot converse (`cannot_converse`).
"""

from __future__ import annotations

import contextlib
import os
import string
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from assay_runner.agents.base import EXIT_TIMEOUT, OUT_OF_MEMORY, AgentOutcome, Turn, Workspace
from assay_runner.agents.process import run_process
from assay_runner.agents.trajectory import TrajectoryParser
from assay_runner.agents.workspace import HOME_DIR
from assay_runner.contract import Isolation, Usage
from assay_runner.errors import InputError
from assay_runner.io.plain import NotPlain, opened
from assay_runner.suite.models import Ticket

TOKEN_FILE_ENV = "ASSAY_GATEWAY_TOKEN_FILE"
"""The file that holds the gateway token (a Secret volume's, on the cluster): a preset's agent reads it, and
the sandbox keeps it from every other."""
PROXY_KEY_ENV = "ASSAY_PROXY_KEY"
"""The cell's own credential at the metering proxy: its agent sends it as its API key (`Bearer`), and the
proxy refuses a call on one cell's URL with another cell's credential, or none."""
if TYPE_CHECKING:
    from assay_runner.sandbox.policy import Sandbox

SANDBOX_ENV = "ASSAY_SANDBOX"
"""Set (to `landlock`) in a sandboxed agent's environment: a CLI's own sandbox cannot start inside it
(Codex's bubblewrap needs mounts), and the cell's is the sandbox."""
# Constructed, not validated, at import: validating would build the deferred schema before the first agent.
UNCONFINED = Isolation.model_construct(
    reason="run without the runner's sandbox (no sandbox was given to the agent)"
)

PLACEHOLDERS = frozenset(
    {
        "prompt_file",
        "answer_file",
        "workspace",
        "brain",
        "kb",
        "model",
        "gateway",
        "ticket_id",
        "repetition",
        "prompt",
        "session",
    }
)
CONTINUE_PLACEHOLDERS = PLACEHOLDERS | {"message"}
"""A later turn's template may also name the customer's words for that turn."""

OutputParser = Callable[[str], tuple[str | None, Usage | None]]
"""stdout -> (answer text or None, usage or None): for CLIs whose output is structured (JSON events)."""
SessionParser = Callable[[str], str | None]
"""stdout -> the session the CLI says it ran in (None when it names none)."""


@dataclass(frozen=True)
class CommandSpec:
    argv: Sequence[str]
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment, also templated."""
    answer_from: Literal["file", "stdout"] = "file"
    parse_output: OutputParser | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    """Files to write into the workspace before the run (templated), e.g. a CLI's config file."""
    pass_env: Sequence[str] = ()
    """Names of the runner's environment variables the agent may see (e.g. a gateway token)."""
    parse_trajectory: TrajectoryParser | None = None
    """stdout (each line stamped with when it was read) -> the agent's steps, for CLIs that print them."""
    path_prefix: Callable[[], Sequence[str]] | None = None
    """Folders put first on the CLI's PATH, found when the agent is built (the ripgrep its tools run)."""
    continue_argv: Sequence[str] | None = None
    """The argv template of a conversation's later turns: the CLI's own resume form, with {message} and
    {session}. None: the command cannot hold a conversation."""
    parse_session: SessionParser | None = None
    """Where the CLI names its session in its output; None: the session is the id Assay made."""
    cumulative_usage: bool = False
    """The usage the CLI reports on a resumed session is the session's so far, not the turn's (Codex): a
    turn's own is what it reports less what the turn before it reported."""


def placeholders_in(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def used_placeholders(spec: CommandSpec) -> set[str]:
    """Every placeholder the spec's argv, environment and files (names and contents) use."""
    texts = [*spec.argv, *spec.env.values(), *spec.files.values(), *spec.files.keys()]
    return set().union(*(placeholders_in(t) for t in texts))


def continue_placeholders(spec: CommandSpec) -> set[str]:
    """Every placeholder the spec's continue template uses (none without one)."""
    return set().union(*(placeholders_in(part) for part in spec.continue_argv or ()))


def _check_placeholders(what: str, used: set[str], known: frozenset[str]) -> None:
    unknown = sorted(used - known)
    if unknown:
        raise InputError(
            f"{what} uses unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; "
            f"known: {', '.join(sorted(known))}"
        )


def check_template(spec: CommandSpec) -> None:
    if not spec.argv:
        raise InputError("agent command is empty")
    _check_placeholders("agent command", used_placeholders(spec), PLACEHOLDERS)
    if spec.continue_argv is not None:
        if not spec.continue_argv:
            raise InputError("agent continue command is empty")
        used = continue_placeholders(spec)
        _check_placeholders("agent continue command", used, CONTINUE_PLACEHOLDERS)
        if "message" not in used:
            raise InputError(
                "agent continue command does not name {message}: the customer's words would never reach "
                "the agent"
            )


def read_answer(workspace: Workspace, limit: int) -> tuple[str | None, str | None]:
    """The answer the agent left in its workspace, and why the cell cannot be judged if it cannot: a file
    over `limit` is never read (a huge answer is the cell's error, not an out-of-memory), and a link or
    anything but a plain file is never followed (`io.plain`: a link to the suite's keys is not an answer)."""
    relative = workspace.answer_file.relative_to(workspace.root).as_posix()
    try:
        with opened(workspace.root, relative) as stream:
            if stream is None:
                return None, None
            size = os.fstat(stream.fileno()).st_size
            if size > limit:
                return None, (
                    f"answer.md is {size:,} bytes, over the limit of {limit:,} (limits.maxAnswerBytes); "
                    "it was not read"
                )
            return stream.read().decode("utf-8", errors="replace"), None
    except NotPlain as refused:
        return None, str(refused)


class CommandAgent:
    kind = "command"

    def __init__(
        self,
        spec: CommandSpec,
        *,
        model: str,
        gateway: str,
        timeout: float,
        max_answer_bytes: int = 8 << 20,
        sandbox: Sandbox | None = None,
    ) -> None:
        check_template(spec)
        self.sandbox = sandbox
        self.spec = spec
        self.max_answer_bytes = max_answer_bytes
        self._uses_prompt = "prompt" in used_placeholders(spec) | continue_placeholders(spec)
        self.model = model
        self.gateway = gateway
        self.timeout = timeout
        """For a conversation, the time of all its turns together."""
        self._path_prefix = list(spec.path_prefix()) if spec.path_prefix is not None else []
        self._conversations: dict[str, _Conversation] = {}
        """Workspace root -> what its conversation's turns used so far (a few numbers per conversational
        cell of the run: kept until the agent goes, as a cell's end is the loop's to know)."""

    @property
    def cannot_converse(self) -> str | None:
        """Why this agent cannot play a conversational ticket (`it ...`); None when it can."""
        if self.spec.continue_argv is None:
            return "it has no continue template (agent.continueCommand / --continue-command)"
        return None

    def values(self, ticket: Ticket, repetition: int, workspace: Workspace) -> dict[str, str]:
        values = {
            "prompt_file": str(workspace.prompt_file),
            "answer_file": str(workspace.answer_file),
            "workspace": str(workspace.root),
            "brain": str(workspace.brain),
            "kb": str(workspace.kb),
            "model": self.model,
            "gateway": workspace.gateway or self.gateway,
            "ticket_id": ticket.id,
            "repetition": str(repetition),
            "session": str(uuid.uuid4()),  # a new conversation's, for commands that take it from us
        }
        if self._uses_prompt:  # the file is read only for templates that inline it
            values["prompt"] = workspace.prompt_file.read_text(encoding="utf-8")
        return values

    def environment(self, values: Mapping[str, str], workspace: Workspace) -> dict[str, str]:
        home = workspace.root / HOME_DIR
        home.mkdir(exist_ok=True)
        path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
        env = {
            "PATH": os.pathsep.join([*self._path_prefix, path]) if self._path_prefix else path,
            "HOME": str(home),
            "TMPDIR": str(home),
            "LANG": "C.UTF-8",
            "ASSAY_GATEWAY_URL": values["gateway"],
            "ASSAY_MODEL": self.model,
            "ASSAY_WORKSPACE": str(workspace.root),
            "ASSAY_ANSWER_FILE": str(workspace.answer_file),
        }
        if workspace.gateway is None:  # behind the metering proxy the agent holds no token: the proxy does
            env.update({name: os.environ[name] for name in self.spec.pass_env if name in os.environ})
        if workspace.gateway_key is not None:  # only its own cell's credential at the proxy
            env[PROXY_KEY_ENV] = workspace.gateway_key
        env.update({key: value.format(**values) for key, value in self.spec.env.items()})
        return env

    def continue_values(
        self, ticket: Ticket, repetition: int, workspace: Workspace, turn: Turn
    ) -> dict[str, str]:
        """A later turn's placeholders: the opening turn's, with the customer's words and the session."""
        assert turn.session is not None
        values = self.values(ticket, repetition, workspace)
        return {**values, "message": turn.message, "session": turn.session}

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        values = self.values(ticket, repetition, workspace)
        outcome, _stdout = await self._invoke(self.spec.argv, values, workspace, self.timeout)
        return outcome

    async def turn(self, ticket: Ticket, repetition: int, workspace: Workspace, turn: Turn) -> AgentOutcome:
        """One turn of a conversation: the opening turn as `run`, a later one through the continue template,
        each within what the conversation's time limit has left."""
        key = str(workspace.root)
        if turn.index == 0:
            self._conversations[key] = _Conversation()
            values = self.values(ticket, repetition, workspace)
            template: Sequence[str] = self.spec.argv
        else:
            refused = self._cannot_continue(turn)
            if refused is not None:
                return AgentOutcome(exit_code=2, answer=None, error=refused, session=turn.session)
            assert self.spec.continue_argv is not None
            values = self.continue_values(ticket, repetition, workspace, turn)
            template = self.spec.continue_argv
        conversation = self._conversations.setdefault(key, _Conversation())
        left = self.timeout - conversation.seconds
        if left <= 0:
            return AgentOutcome(
                exit_code=EXIT_TIMEOUT,
                answer=None,
                transcript=f"--- not started: the conversation's {self.timeout:g} s were used up ---",
                wall_seconds=0.0,
                timed_out=True,
                session=turn.session,
            )
        if turn.index > 0:
            _clear_answer(workspace)  # this turn's reply is what it writes now, else its final message
        outcome, stdout = await self._invoke(template, values, workspace, left)
        conversation.seconds += outcome.wall_seconds or 0.0
        usage = outcome.usage
        if self.spec.cumulative_usage and usage is not None:
            usage, conversation.reported = _less(usage, conversation.reported), usage
        return replace(outcome, usage=usage, session=self._session(stdout, values, turn))

    def _cannot_continue(self, turn: Turn) -> str | None:
        if self.cannot_converse is not None:
            return f"the {self.kind} agent cannot continue the conversation: {self.cannot_converse}"
        if turn.session is None:
            return (
                f"turn {turn.index} cannot continue the conversation: the previous turn named no session "
                "(the agent's output did not say one)"
            )
        return None

    def _session(self, stdout: str, values: Mapping[str, str], turn: Turn) -> str | None:
        """The session the next turn continues: what the CLI named now, or the one it continued; for a
        command that names none, the id it was given."""
        if self.spec.parse_session is None:
            return values["session"]
        return self.spec.parse_session(stdout) or turn.session

    async def _invoke(
        self, template: Sequence[str], values: dict[str, str], workspace: Workspace, timeout: float
    ) -> tuple[AgentOutcome, str]:
        """Run the program once (its files written first: the preset's settings hold on every turn)."""
        for relative, text in self.spec.files.items():
            target = workspace.root / relative.format(**values)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text.format(**values), encoding="utf-8")
        argv = [part.format(**values) for part in template]
        env = self.environment(values, workspace)
        confined = None
        if self.sandbox is not None:
            confined = self.sandbox.for_cell(workspace.root, argv, env, values["gateway"])
            if confined.preexec is not None:
                env[SANDBOX_ENV] = "landlock"
        try:
            done = await run_process(
                argv,
                cwd=workspace.root,
                env=env,
                timeout=timeout,
                stamp_lines=self.spec.parse_trajectory is not None,
                confine=confined.preexec if confined is not None else None,
            )
        finally:
            if confined is not None:
                confined.close()
        answer: str | None = None
        usage: Usage | None = None
        if self.spec.parse_output is not None:
            answer, usage = self.spec.parse_output(done.stdout)
        elif self.spec.answer_from == "stdout":
            answer = done.stdout if done.stdout.strip() else None
        error = None
        if self.spec.answer_from == "file":
            from_file, error = read_answer(workspace, self.max_answer_bytes)
            if from_file is not None or error is not None:  # answer.md wins over the final message
                answer = from_file
        trajectory = None
        if self.spec.parse_trajectory is not None:
            trajectory = self.spec.parse_trajectory(done.stdout, done.line_times, str(workspace.root))
        transcript = f"$ {' '.join(argv)}\n--- stdout ---\n{done.stdout}\n--- stderr ---\n{done.stderr}"
        if done.timed_out:
            transcript += f"\n--- killed after {timeout:g} s ---"
        if done.out_of_memory:
            transcript += f"\n--- {OUT_OF_MEMORY} ---"
        outcome = AgentOutcome(
            exit_code=done.exit_code,
            answer=answer,
            transcript=transcript,
            wall_seconds=done.wall_seconds,
            usage=usage,
            timed_out=done.timed_out,
            error=error,
            trajectory=trajectory,
            containment=done.containment,
            out_of_memory=done.out_of_memory,
            isolation=confined.isolation if confined is not None else UNCONFINED,
        )
        return outcome, done.stdout


@dataclass
class _Conversation:
    """What a conversation's turns used so far: the agent's time, and the usage its CLI last reported."""

    seconds: float = 0.0
    reported: Usage | None = None


def _less(usage: Usage, before: Usage | None) -> Usage:
    """A session's usage so far less what it had reported before this turn: the turn's own."""
    if before is None:
        return usage
    return Usage(
        input_tokens=max(0, usage.input_tokens - before.input_tokens),
        output_tokens=max(0, usage.output_tokens - before.output_tokens),
    )


def _clear_answer(workspace: Workspace) -> None:
    """answer.md goes before a later turn (never followed: unlinking a link removes the link)."""
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
        os.unlink(workspace.answer_file)
