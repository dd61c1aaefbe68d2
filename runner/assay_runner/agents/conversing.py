"""Whether an agent can play a conversational ticket: asked once, before the first cell, so that an agent
that cannot continue its session is refused with the reason (exit 2) rather than judged on a first turn.

An agent converses when it has `turn` (`base.ConversingAgent`) and does not say why it cannot: a command
agent without a continue template says so (`CommandAgent.cannot_converse`).
"""

from __future__ import annotations

from typing import cast

from assay_runner.agents.base import Agent, ConversingAgent
from assay_runner.errors import InputError


def cannot_converse(agent: Agent) -> str | None:
    """Why `agent` cannot continue a conversation from turn to turn; None when it can."""
    if not callable(getattr(agent, "turn", None)):
        return f"the {agent.kind} agent cannot hold a conversation: it answers a ticket once"
    reason = getattr(agent, "cannot_converse", None)
    return reason if isinstance(reason, str) else None


def conversing(agent: Agent) -> ConversingAgent:
    """The agent as one that converses; InputError saying why when it cannot."""
    reason = cannot_converse(agent)
    if reason is not None:
        raise InputError(f"the suite has conversational tickets, but {reason}")
    return cast(ConversingAgent, agent)
