"""A judge that is not the judged: a model judge on the agent's own model grades its own style kindly.

The workflow Assay reproduces judges with a different model than the one under the agent. The same model is
a warning in the result and the report, or an error when the suite says `requireDistinctJudgeModel: true`.
"The same model" is read through a gateway's usual aliases: the suite's `modelAliases` (a name the gateway
routes to another), a provider prefix (`openai/acme-large`), a trailing date (`acme-large-20260501`,
`acme-large@2026-05-01`) or `-latest`, and case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from assay_runner.errors import InputError
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import ModelJudge

_VERSION_TAIL = re.compile(r"(?:-latest|[-@]\d{8}|[-@]\d{4}-\d{2}-\d{2})$")


def _plain(name: str) -> str:
    name = name.strip().lower().rsplit("/", 1)[-1]
    return _VERSION_TAIL.sub("", name)


def canonical_model(name: str, aliases: Mapping[str, str]) -> str:
    """The model a name stands for: through the suite's aliases (followed to the end, a loop stops), then
    without a provider prefix, date or `-latest`."""
    table = {_plain(alias): target for alias, target in aliases.items()}
    seen: set[str] = set()
    current = name
    while _plain(current) in table and _plain(current) not in seen:
        seen.add(_plain(current))
        current = table[_plain(current)]
    return _plain(current)


def judge_model_warnings(suite: Suite, judge_model: str | None, agent_model: str | None) -> list[str]:
    """Model judges, and model customers (who play a conversational ticket's customer), on the agent's own
    model: a warning each, or an error when the suite sets `requireDistinctJudgeModel`."""
    if agent_model is None:
        return []
    aliases = suite.spec.model_aliases
    agent = canonical_model(agent_model, aliases)

    def same_as_agent(model: str | None) -> bool:
        return model is not None and canonical_model(model, aliases) == agent

    judges = [
        spec.name
        for spec in suite.spec.judges
        if isinstance(spec, ModelJudge) and same_as_agent(spec.model or judge_model)
    ]
    customers = [
        ticket.id
        for ticket in suite.tickets
        if ticket.key.conversation is not None
        and ticket.key.conversation.customer.played_by == "model"
        and same_as_agent(ticket.key.conversation.customer.model or judge_model)
    ]
    messages = []
    if judges:
        messages.append(
            f"model judge(s) {', '.join(judges)} use the agent's own model {agent_model!r} (or a name for "
            "it): a model grading its own answers is not an independent judge"
        )
    if customers:
        messages.append(
            f"the model customer(s) of {', '.join(customers)} use the agent's own model {agent_model!r} (or "
            "a name for it): a model playing the customer to itself is not an independent customer"
        )
    if messages and suite.spec.require_distinct_judge_model:
        raise InputError(f"{'; '.join(messages)} (suite {suite.name!r} sets requireDistinctJudgeModel)")
    return messages
