"""The contract between the orchestrator and an agent.

An agent runs once per ticket x repetition inside a fresh `Workspace` and returns an `AgentOutcome`. A crash,
a timeout or a missing answer is an outcome like any other — it is judged (and the exit-code judge fails
it), never skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from assay_runner.contract import Isolation, Trajectory, Usage
from assay_runner.suite.models import Ticket
from assay_runner.vocabulary import Containment

EXIT_TIMEOUT = 124  # what coreutils' timeout(1) reports; the exit-code judge names it "timed out"
OUT_OF_MEMORY = (
    "killed by the kernel's out-of-memory killer: the runner's memory limit (spec.resources.memory on the"
    " cluster) is too small for this agent"
)


@dataclass(frozen=True)
class Workspace:
    """A ticket's private working directory. Only `root` is writable; brain/ and kb/ are read-only copies."""

    root: Path
    brain: Path
    kb: Path
    prompt_file: Path
    """The ticket as a prompt: the question and where the brain and KB are."""
    answer_file: Path
    """Where the agent must write its answer (markdown)."""
    gateway: str | None = None
    """This cell's own gateway URL (the metering proxy's, `gateway.metering`); None: the run's gateway."""
    gateway_key: str | None = None
    """The cell's own credential at the metering proxy, which its agent presents as its API key."""


@dataclass(frozen=True)
class AgentOutcome:
    exit_code: int
    answer: str | None
    """None when the agent left no answer."""
    transcript: str = ""
    wall_seconds: float | None = None
    """The agent's own time; None when it is not known (a replayed answer whose tree did not record it:
    a latency rule then blocks rather than read a replay's instant as the agent's speed)."""
    usage: Usage | None = None
    timed_out: bool = False
    error: str | None = None
    """Why the cell cannot be judged at all (e.g. the agent modified the brain)."""
    files: Mapping[str, str] = field(default_factory=dict)
    started_at: float | None = None
    """Seconds since the epoch when the agent started (set by the orchestrator)."""
    trajectory: Trajectory | None = None
    """The agent's steps, read from its transcript (CLI presets), or replayed with its answer."""
    containment: Containment | None = None
    """What ended every process the agent started (a program agent's); None when it ran none."""
    isolation: Isolation | None = None
    """The sandbox the agent's program ran in (assay_runner.sandbox); for agents that run none, why."""
    out_of_memory: bool = False
    """The kernel's out-of-memory killer ended the agent (its memory limit, not the agent, ended the cell)."""
    session: str | None = None
    """How the agent continues this conversation on its next turn (a CLI's session id); None: it cannot."""


@dataclass(frozen=True)
class Turn:
    """One turn of a conversational ticket, as the agent receives it."""

    index: int
    """0 for the opening turn (the ticket's question), then 1, 2, ..."""
    message: str
    """The customer's words for this turn."""
    session: str | None
    """The previous turn's `AgentOutcome.session`; None on the opening turn."""


class Agent(Protocol):
    kind: str

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome: ...


class ConversingAgent(Agent, Protocol):
    """An agent that continues its own session from turn to turn, in the same workspace."""

    async def turn(
        self, ticket: Ticket, repetition: int, workspace: Workspace, turn: Turn
    ) -> AgentOutcome: ...
