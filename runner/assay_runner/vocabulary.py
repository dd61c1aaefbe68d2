"""The closed sets every side spells the same way: the CLI, the suite, the RunConfig, the Evaluation resource,
the operator. One home each; everything else imports them (and a registry keyed by one of them is checked
against it where it is built).

Standard library only, so the command line can offer them as choices without loading pydantic.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args

Verdict = Literal["Pass", "Blocked"]
Split = Literal["training", "validation"]
Selection = Literal["training", "validation", "all"]

PresetKind = Literal["opencode", "claude-code", "codex"]
"""Agent CLIs Assay knows how to drive (agents.presets): each must be installed where it runs."""
PRESET_KINDS: tuple[PresetKind, ...] = get_args(PresetKind)
AgentKind = Literal["chat", "opencode", "claude-code", "codex", "command", "replay"]
AGENT_KINDS: tuple[AgentKind, ...] = get_args(AgentKind)
PROGRAM_KINDS: frozenset[AgentKind] = frozenset({"command", *PRESET_KINDS})
"""Agent kinds that run a program in the workspace (which may read any file it can reach)."""

Containment = Literal["cgroup", "pidfd-tree", "process-group"]
"""What ended everything a cell's agent started (`cell.json`'s `containment`): `cgroup`, the cell's own
cgroup killed (`cgroup.kill`) and then its strays through pidfds; `pidfd-tree`, its process tree and the
strays the runner adopted as their subreaper, each thread group killed through a pidfd; `process-group`,
only the agent's process group (`main()` run in-process, which owns no children: a daemon may survive)."""
CONTAINMENTS: tuple[Containment, ...] = get_args(Containment)


class GateRule(StrEnum):
    """The release gate's rules, by the name results, summaries and statuses carry (core.gate)."""

    SCORE = "score"
    JUDGES = "judges"
    TICKET_FLOOR = "ticketFloor"
    JUDGE_FLOORS = "judgeFloors"
    REPETITIONS = "repetitions"
    MAX_ANSWER_SECONDS = "maxAnswerSeconds"
    """Every cell's agent wall time (`wallSeconds`) at most the limit."""
    ANSWER_SECONDS_PERCENTILE = "answerSecondsPercentile"
    """A percentile (nearest rank) of the cells' agent wall times at most the limit."""
    MAX_TICKET_COST_USD = "maxTicketCostUsd"
    """Every cell's priced cost at most the limit (a ticket's cost is its dearest repetition's)."""
    MAX_RUN_COST_USD = "maxRunCostUsd"
    """The run's total priced cost (agents and model judges) at most the limit."""
    COMPLETE = "complete"
    MLFLOW = "mlflow"
    VERIFIED = "verified"
    """Added by `assay gate --verify`: the deterministic judges agree with the stored verdicts."""


UNSHADOWABLE_RULES: frozenset[GateRule] = frozenset({GateRule.COMPLETE, GateRule.VERIFIED})
"""Rules a suite cannot mark as shadow (`gate.shadowRules`): fail closed stays."""


IsolationLevel = Literal["best-effort", "required"]
"""How much of the kernel's sandbox (assay_runner.sandbox) a run insists on: `best-effort` applies what the
kernel offers and records it per cell; `required` refuses to start (exit 2) where the kernel lacks any of
it."""
ISOLATION_LEVELS: tuple[IsolationLevel, ...] = get_args(IsolationLevel)

CassetteMode = Literal["off", "record", "replay", "replay-or-record"]
CASSETTE_MODES: tuple[CassetteMode, ...] = get_args(CassetteMode)

assert set(PRESET_KINDS) <= set(AGENT_KINDS), "every preset is an agent kind"
