"""The `command` agent: any program, given as an argv template, run in the ticket's workspace.

Placeholders: {prompt_file} {answer_file} {workspace} {brain} {kb} {model} {gateway} {ticket_id}
{repetition} and {prompt} (the prompt's text). The answer is read from `answer.md` in the workspace, or from
standard output when the spec says so (CLIs that print their final message). The environment is built from
scratch — PATH, HOME inside the workspace, the gateway URL and model — so no key or setting of the runner's
own environment leaks into the agent.
"""

from __future__ import annotations

import os
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from assay_runner.agents.base import OUT_OF_MEMORY, AgentOutcome, Workspace
from assay_runner.agents.process import run_process
from assay_runner.agents.trajectory import TrajectoryParser
from assay_runner.agents.workspace import HOME_DIR
from assay_runner.contract import Isolation, Usage
from assay_runner.errors import InputError
from assay_runner.io.plain import NotPlain, opened
from assay_runner.suite.models import Ticket

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
    }
)

OutputParser = Callable[[str], tuple[str | None, Usage | None]]
"""stdout -> (answer text or None, usage or None): for CLIs whose output is structured (JSON events)."""


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


def placeholders_in(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def used_placeholders(spec: CommandSpec) -> set[str]:
    """Every placeholder the spec's argv, environment and files (names and contents) use."""
    texts = [*spec.argv, *spec.env.values(), *spec.files.values(), *spec.files.keys()]
    return set().union(*(placeholders_in(t) for t in texts))


def check_template(spec: CommandSpec) -> None:
    if not spec.argv:
        raise InputError("agent command is empty")
    unknown = sorted(used_placeholders(spec) - PLACEHOLDERS)
    if unknown:
        raise InputError(
            f"agent command uses unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; "
            f"known: {', '.join(sorted(PLACEHOLDERS))}"
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
        self._uses_prompt = "prompt" in used_placeholders(spec)
        self.model = model
        self.gateway = gateway
        self.timeout = timeout
        self._path_prefix = list(spec.path_prefix()) if spec.path_prefix is not None else []

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

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        values = self.values(ticket, repetition, workspace)
        for relative, template in self.spec.files.items():
            target = workspace.root / relative.format(**values)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(template.format(**values), encoding="utf-8")
        argv = [part.format(**values) for part in self.spec.argv]
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
                timeout=self.timeout,
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
            transcript += f"\n--- killed after {self.timeout:g} s ---"
        if done.out_of_memory:
            transcript += f"\n--- {OUT_OF_MEMORY} ---"
        return AgentOutcome(
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
