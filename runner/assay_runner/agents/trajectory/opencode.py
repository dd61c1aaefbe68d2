"""OpenCode's `run --format json` events as a trajectory.

Events: `step_start` (a model call begins), `text` (the reply's text, a part updated in place by id),
`tool_use` (a finished tool call: `state.input`, `state.output` or `state.error`, `state.time` in epoch
milliseconds), `step_finish` (the call's tokens), `error` (the session failed). A step is one model call and
the tools it asked for: its turn is shown first, then its tool calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay_runner.agents.trajectory.common import (
    Steps,
    clip,
    json_lines,
    positive,
    relative,
    text_of,
    tool_call,
)
from assay_runner.contract import AgentError, ModelTurn, ToolAction, Trajectory

ACTIONS: dict[str, ToolAction] = {
    "read": "read",
    "write": "write",
    "edit": "edit",
    "patch": "edit",
    "multiedit": "edit",
    "glob": "list",
    "list": "list",
    "grep": "search",
    "bash": "shell",
    "webfetch": "web",
    "websearch": "web",
    "codesearch": "web",
    "task": "delegate",
}
PATH_ARGUMENTS = ("filePath", "path")


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class _Reader:
    def __init__(self, root: str) -> None:
        self.root = root
        self.steps = Steps()
        self.turn: ModelTurn | None = None
        self.texts: dict[str, str] = {}
        self.anchor: float | None = None
        """The agent's start on OpenCode's clock (epoch seconds): its tool times are epoch milliseconds."""
        self.prompt = self.output = 0
        self.counted = False

    def seconds(self, value: object) -> float | None:
        """An epoch-millisecond time as seconds from the agent's start."""
        if self.anchor is None or not isinstance(value, int | float) or isinstance(value, bool):
            return None
        return max(0.0, round(value / 1000 - self.anchor, 3))

    def event(self, event: dict[str, Any], when: float | None) -> None:
        stamp = event.get("timestamp")
        if self.anchor is None and when is not None and isinstance(stamp, int | float):
            self.anchor = stamp / 1000 - when
        kind = event.get("type")
        part = _dict(event.get("part"))
        if kind == "step_start":
            self.turn = ModelTurn(start=self.steps.last)
            self.steps.add(self.turn)
            self.texts = {}
        elif kind == "text" and isinstance(part.get("text"), str):
            self.text(part, when)
        elif kind == "tool_use":
            self.tool(part, when)
        elif kind == "step_finish":
            self.finish(_dict(part.get("tokens")), when)
        elif kind == "error":
            error = _dict(event.get("error"))
            message = _dict(error.get("data")).get("message") or error.get("name") or "error"
            self.steps.add(AgentError(start=when, end=when, message=clip(str(message))[0]))
        self.steps.seen(when)

    def text(self, part: dict[str, Any], when: float | None) -> None:
        if self.turn is None:
            self.turn = ModelTurn(start=self.steps.last)
            self.steps.add(self.turn)
        self.texts[str(part.get("id", len(self.texts)))] = part["text"]
        self.turn.text, self.turn.cut = clip("\n\n".join(t for t in self.texts.values() if t.strip()))
        self.turn.end = when

    def tool(self, part: dict[str, Any], when: float | None) -> None:
        state = _dict(part.get("state"))
        arguments = _dict(state.get("input"))
        timing = _dict(state.get("time"))
        name = str(part.get("tool", "?"))
        start = self.seconds(timing.get("start"))
        failed = state.get("status") == "error"
        if self.turn is not None and self.turn.end is None:
            # The reply that asked for the tool ended before the tool began (OpenCode's clock against the
            # runner's: never before the turn's own start).
            begun = self.turn.start
            self.turn.end = max(start, begun) if start is not None and begun is not None else start
        paths = [
            relative(str(arguments[k]), self.root)
            for k in PATH_ARGUMENTS
            if isinstance(arguments.get(k), str)
        ]
        self.steps.add(
            tool_call(
                name,
                ACTIONS.get(name, "other"),
                arguments,
                paths,
                start=start,
                end=self.seconds(timing.get("end")) or when,
                result=text_of(state.get("error") if failed else state.get("output")),
                ok=not failed,
            )
        )

    def finish(self, tokens: dict[str, Any], when: float | None) -> None:
        if tokens:
            cache = _dict(tokens.get("cache"))
            # OpenCode reports input without the cached part; the gateway bills all of it as prompt.
            spent = positive(tokens.get("input")) + positive(cache.get("read")) + positive(cache.get("write"))
            made = positive(tokens.get("output"))
            self.prompt, self.output, self.counted = self.prompt + spent, self.output + made, True
            if self.turn is not None:
                self.turn.input_tokens, self.turn.output_tokens = spent, made
        if self.turn is not None and self.turn.end is None:
            self.turn.end = when
        self.turn = None


def parse(stdout: str, times: Sequence[float | None], root: str) -> Trajectory | None:
    reader = _Reader(root)
    for event, when in json_lines(stdout, times):
        reader.event(event, when)
    counted = reader.counted
    return reader.steps.trajectory(
        "opencode", reader.prompt if counted else None, reader.output if counted else None
    )
