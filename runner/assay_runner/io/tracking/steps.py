"""The agent's trajectory as spans under its agent span: LLM spans for model turns, TOOL spans for tool
calls with their arguments and results, errors as failed spans, each at the step's own time."""

from __future__ import annotations

from typing import Any

from assay_runner.contract import AgentError, ModelTurn, ToolCall, Trajectory
from assay_runner.io.tracking.spans import TraceSpans


def add_steps(spans: TraceSpans, parent: str, trajectory: Trajectory, start: float, end: float) -> None:
    """One child span of the agent's per step, at its time (seconds from the agent's start; a step the CLI
    did not time sits at the previous step's end), kept inside the agent's span."""
    last = start
    for index, step in enumerate(trajectory.steps, 1):
        begin = start + step.start if step.start is not None else last
        finish = max(begin, start + step.end if step.end is not None else begin)
        begin, finish = min(max(begin, start), end), min(max(finish, start), end)
        name, kind, inputs, outputs, ok = _span_of(step)
        spans.add(
            f"{index:03d} {name}",
            kind,
            parent=parent,
            start=begin,
            end=finish,
            inputs=inputs,
            outputs=outputs,
            ok=ok,
            attributes={"assay.step": index, "assay.agent": trajectory.agent},
        )
        last = finish


def _span_of(
    step: ModelTurn | ToolCall | AgentError,
) -> tuple[str, str, dict[str, Any], dict[str, Any], bool]:
    """(name, span type, inputs, outputs, ok) of one trajectory step."""
    if isinstance(step, ToolCall):
        inputs = {"arguments": step.arguments, "action": step.action, "paths": step.paths}
        return f"tool:{step.tool}", "TOOL", inputs, {"result": step.result, "ok": step.ok}, step.ok
    if isinstance(step, ModelTurn):
        tokens = {"inputTokens": step.input_tokens, "outputTokens": step.output_tokens}
        return "model", "LLM", {}, {"text": step.text, **tokens}, True
    return "error", "UNKNOWN", {}, {"message": step.message}, False
