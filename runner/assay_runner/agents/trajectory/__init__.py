"""Each CLI's transcript read as one `contract.Trajectory`: model turns, tool calls with their arguments and
results, errors, timing and tokens, in the same words whichever CLI made them.

A parser gets the CLI's standard output, the time the runner read each line (`process.run_process`'s
stamps: the one clock all three CLIs can be timed with) and the workspace root (paths become relative to
it). What a CLI does not report is left empty, never guessed: Codex's JSON has no per-call model turns or
token counts (its trajectory has its messages and tool calls, and the run's tokens), OpenCode and Claude Code
report each model reply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assay_runner.contract import Trajectory

TrajectoryParser = Callable[[str, Sequence[float | None], str], Trajectory | None]
"""(stdout, line times, workspace root) -> the trajectory, or None when the output holds no step at all."""
