"""What the agent did, step by step: the trajectory a cell of `result.json` carries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from assay_runner.contract.wire import WireModel

ToolAction = Literal["list", "read", "search", "write", "edit", "shell", "web", "delegate", "other"]
"""What a tool call did, whichever CLI made it: the words a trajectory judge's `allowedTools` uses."""
TRAJECTORY_TEXT_CHARS = 2000
"""Each text in a trajectory (a tool result, a model turn's text, a long argument) keeps at most this
many characters; the rest is cut and the step says how many were cut."""
TRAJECTORY_MAX_STEPS = 300


class ModelTurn(WireModel):
    """One reply of the model, as the CLI reported it: its text (narration or the final message)."""

    type: Literal["model"] = "model"
    start: float | None = None
    """Seconds from the agent's start to when the turn began (when the runner saw the step before it)."""
    end: float | None = None
    """Seconds from the agent's start to when the runner saw the turn's output."""
    text: str = ""
    input_tokens: int | None = None
    """Prompt tokens of this turn, cached included, when the CLI reports them per turn."""
    output_tokens: int | None = None
    cut: int = 0
    """Characters cut from `text` (see TRAJECTORY_TEXT_CHARS)."""


class ToolCall(WireModel):
    """One tool call with its arguments and what it returned."""

    type: Literal["tool"] = "tool"
    start: float | None = None
    end: float | None = None
    tool: str
    """The CLI's own name for the tool (`read`, `Read`, `exec_command`)."""
    action: ToolAction
    """What the call did, in words shared by the three CLIs (a shell command is read for what it ran)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    paths: list[str] = Field(default_factory=list)
    """Files and folders the call named, relative to the workspace (`kb/KB-1001.md`)."""
    result: str = ""
    ok: bool = True
    """False when the tool reported an error (the error text is the result)."""
    cut: int = 0
    """Characters cut from the result and the arguments' texts."""


class AgentError(WireModel):
    """An error the CLI reported outside any tool call (an API failure, a turn limit)."""

    type: Literal["error"] = "error"
    start: float | None = None
    end: float | None = None
    message: str


TrajectoryStep = Annotated[ModelTurn | ToolCall | AgentError, Field(discriminator="type")]


class Trajectory(WireModel):
    """What the agent did, step by step, normalised from its CLI's own transcript (docs/agents.md)."""

    agent: str
    """The preset whose transcript this was read from (`opencode`, `claude-code`, `codex`)."""
    steps: list[TrajectoryStep] = Field(default_factory=list)
    dropped_steps: int = 0
    """Steps left out past TRAJECTORY_MAX_STEPS (the first ones are kept)."""
    input_tokens: int | None = None
    """The run's prompt tokens as the CLI reported them (per turn where it reports them per turn)."""
    output_tokens: int | None = None
    # What the metering proxy saw (gateway.metering.witness), None without one: what the judges gate on.
    model_calls: int | None = None
    """Model calls the proxy relayed for this cell."""
    articles_read: list[str] | None = None
    """KB articles whose content reached the model in a tool result (`text.excerpt`)."""
    differences: list[str] = Field(default_factory=list)
    """Where the steps above (the CLI's own account) and the proxy's record disagree, each named."""

    def tool_calls(self) -> list[ToolCall]:
        return [step for step in self.steps if isinstance(step, ToolCall)]
