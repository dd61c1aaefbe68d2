"""Whether an agent can play a conversational ticket: asked once, before the first cell
(`conversation.customers.check_conversing`), so that an agent that cannot continue its session is refused
with the reason (exit 2) rather than failing on its second turn.

An agent converses when it has `turn` (`base.ConversingAgent`) and does not say why it cannot: a command
agent without a continue template says so (`CommandAgent.cannot_converse`).
"""

from __future__ import annotations

from assay_runner.agents.base import Agent


def cannot_converse(agent: Agent) -> str | None:
    """Why `agent` cannot continue a conversation from turn to turn (`it ...`); None when it can."""
    if not callable(getattr(agent, "turn", None)):
        return "it answers a ticket once"
    reason = getattr(agent, "cannot_converse", None)
    return reason if isinstance(reason, str) else None
