"""A standing recomputed from a result file (`assay compare`), decided by `assay_runner.core.decision`.

Every number is recomputed from the candidates' judged cells with the same `assemble` the gate uses, so a
result file edited by hand cannot claim a better standing than its cells give.
"""

from __future__ import annotations

from pathlib import Path

from assay_runner.contract import Result
from assay_runner.core.repetitions import ticket_passes_every_time
from assay_runner.core.scorecard import Scorecard, assemble
from assay_runner.core.scoring import gating_judges_passing
from assay_runner.core.standing import Standing
from assay_runner.core.statistics import Paired
from assay_runner.vocabulary import GateRule


def _rule_value(card: Scorecard, name: GateRule) -> float:
    rule = next(r for r in card.rules if r.name == name)
    return float(rule.value or 0.0)


def cost_usd(result: Result) -> float:
    """The run's priced usage: its total, which also holds the model judges' calls, and never less than its
    cells' own (the agent's calls, priced as the proxy metered them) add up to — a total edited down does not
    make a candidate cheaper. `--verify` authenticates the total with the rest of the result."""
    cells = sum(
        rep.usage.cost_usd for ticket in result.tickets for rep in ticket.repetitions if rep.usage is not None
    )
    return max(result.usage.cost_usd, round(cells, 6))


def standing(name: str, result: Result) -> Standing:
    card = assemble(result.tickets, result.config, result.repetitions.k, result.mlflow, usage=result.usage)
    complete = next(r for r in card.rules if r.name == GateRule.COMPLETE)
    figures = card.repetitions
    return Standing(
        name=name,
        verdict=card.verdict,
        mean=_rule_value(card, GateRule.SCORE),
        lowest_ticket=_rule_value(card, GateRule.TICKET_FLOOR),
        judges_passing=gating_judges_passing(card.judges),
        complete=complete.passed,
        coverage=float(complete.value or 0.0),
        pass_rate=figures.pass_rate,
        pass_at_k=figures.pass_at_k,
        pass_hat_k=figures.pass_hat_k,
        fully_resolved=figures.fully_resolved,
        tickets=len(result.tickets),
        k=result.repetitions.k,
        suite_digest=result.inputs.suite_digest,
        ticket_ids=tuple(t.id for t in result.tickets),
        blocked_because=tuple(card.reasons),
        judge_means={judge: j.mean for judge, j in card.judges.items()},
        shadow_judges=frozenset(judge for judge, j in card.judges.items() if j.shadow is not None),
        cost_usd=cost_usd(result),
        paired=Paired(
            scores={t.id: t.score for t in card.tickets},
            resolved={t.id: ticket_passes_every_time(t, result.repetitions.k) for t in card.tickets},
        ),
    )


def candidate_name(result: Result, path: Path) -> str:
    return result.run_name or path.parent.name or path.stem
