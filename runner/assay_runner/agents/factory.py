"""Building the configured agent. Each kind's module is imported only when that kind is asked for."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.agents.base import Agent
from assay_runner.errors import InputError

if TYPE_CHECKING:
    from assay_runner.contract import RunConfig
    from assay_runner.gateway.chat import ChatClient
    from assay_runner.sandbox.policy import Sandbox


def build_agent(config: RunConfig, client: ChatClient | None, sandbox: Sandbox | None = None) -> Agent:
    """`sandbox`: where the agent's program runs (None: unconfined, as for agents that run none)."""
    agent = config.agent
    if agent.kind == "replay":
        if not agent.answers:
            raise InputError(
                "agent kind 'replay' needs the recorded answers directory (agent.answers / --answers)"
            )
        answers = Path(agent.answers)
        if not answers.is_dir():
            raise InputError(f"recorded answers directory not found: {answers}")
        from assay_runner.agents.replay import ReplayAgent

        return ReplayAgent(answers, config.repetitions)
    if agent.model is None:
        raise InputError(f"agent kind {agent.kind!r} needs a model (agent.model / --model)")
    if agent.kind == "chat":
        if client is None:
            raise InputError("the chat agent needs a gateway (--gateway) or cassettes (--cassettes)")
        from assay_runner.agents.chat import ChatAgent

        return ChatAgent(client, agent.model)
    from assay_runner.agents.command import CommandAgent, CommandSpec

    if agent.kind == "command":
        if not agent.command:
            raise InputError("agent kind 'command' needs an argv template (agent.command / --command)")
        spec = CommandSpec(argv=agent.command, continue_argv=agent.continue_command)
    elif agent.continue_command is not None:
        raise InputError(
            f"agent.continueCommand / --continue-command is for agent kind 'command'; the {agent.kind!r} "
            "preset continues its CLI's session its own way"
        )
    else:
        from assay_runner.agents.presets import preset

        spec = preset(agent.kind)
    replaying = config.cassettes is not None and config.cassettes.mode == "replay"
    if config.gateway is None and agent.kind != "command" and not replaying:
        raise InputError(f"agent preset {agent.kind!r} needs a gateway URL (gateway / --gateway)")
    return CommandAgent(
        spec,
        model=agent.model,
        gateway=config.gateway or "",
        timeout=agent.timeout_seconds,
        max_answer_bytes=config.limits.max_answer_bytes,
        sandbox=sandbox,
    )
