"""`assay gate --verify --suite DIR`: judge the stored answers again and compare with the stored verdicts.

A result.json keeps every answer, so the deterministic judges (kb_citation, must_mention, policy, format,
abstention, exit_code) can be re-run on it; a verdict edited by hand (a policy score moved from 0 to 1)
disagrees with the fresh one. The suite must be the one the result was made with (same suite and judges
digests), and the result's judges must be the suite's. Code judges (which may read files the result does
not keep) and the model judge (not deterministic) are not re-run; their stored verdicts are checked for
range and shape only (`assay_runner.core.integrity`).
"""

from __future__ import annotations

from assay_runner.contract import JudgeVerdict, Result, RuleResult
from assay_runner.core.digests import judges_digest, suite_digest
from assay_runner.core.results import result_config
from assay_runner.judges import Case, build_judge
from assay_runner.judges.judging import judge_cell
from assay_runner.suite.loader import Suite
from assay_runner.vocabulary import GateRule

TOLERANCE = 1e-9
SHOWN = 5


def _same(stored: JudgeVerdict, fresh: JudgeVerdict) -> bool:
    if stored.applicable != fresh.applicable or (stored.error is None) != (fresh.error is None):
        return False
    if stored.score is None or fresh.score is None:
        return stored.score is fresh.score
    return abs(stored.score - fresh.score) <= TOLERANCE


def _provenance(result: Result, suite: Suite) -> list[str]:
    problems = []
    if result.inputs.judges_digest != judges_digest(suite):
        problems.append("the judges digest differs from the suite's (other judges, or the config was edited)")
    if result.inputs.suite_digest != suite_digest(suite):
        problems.append("the suite digest differs from the suite's (other tickets or KB)")
    expected = [(j.name, j.type, j.weight, j.floor, j.scale) for j in result_config(suite).judges]
    stored = [(j.name, j.type, j.weight, j.floor, j.scale) for j in result.config.judges]
    if expected != stored:
        problems.append("the result's judges are not the suite's (a judge removed, added or re-weighted)")
    known = {t.id for t in suite.tickets}
    unknown = [t.id for t in result.tickets if t.id not in known]
    if unknown:
        problems.append(f"ticket(s) not in the suite: {', '.join(unknown[:SHOWN])}")
    return problems


async def disagreements(result: Result, suite: Suite) -> list[str]:
    """Everything that does not match when the deterministic judges look at the stored answers again."""
    problems = _provenance(result, suite)
    if problems:
        return problems
    judges = [build_judge(spec, suite) for spec in suite.spec.judges if spec.deterministic]
    for ticket_result in result.tickets:
        ticket = suite.ticket(ticket_result.id)
        for rep in ticket_result.repetitions:
            if rep.answer is None or rep.error is not None:
                continue
            case = Case(ticket=ticket, repetition=rep.index, answer=rep.answer, exit_code=rep.exit_code)
            fresh = await judge_cell(judges, case)
            for name, verdict in fresh.items():
                stored = rep.judges.get(name)
                if stored is None or not _same(stored, verdict):
                    was = "missing" if stored is None else f"{stored.score} ({stored.reason})"
                    problems.append(
                        f"{ticket.id} #{rep.index} {name}: stored {was}, re-judged "
                        f"{verdict.score} ({verdict.reason})"
                    )
    return problems


def verified(result: Result, problems: list[str]) -> Result:
    """The result with a `verified` rule: failing (Blocked) on any disagreement."""
    if problems:
        shown = "; ".join(problems[:SHOWN]) + (
            f" (+{len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
        )
        rule = RuleResult(
            name=GateRule.VERIFIED,
            passed=False,
            value=None,
            threshold=None,
            detail=f"re-judging disagrees: {shown}",
        )
        return result.model_copy(
            update={
                "rules": [*result.rules, rule],
                "verdict": "Blocked",
                "reasons": [*result.reasons, f"verified: {rule.detail}"],
            }
        )
    rule = RuleResult(
        name=GateRule.VERIFIED,
        passed=True,
        value=None,
        threshold=None,
        detail="the deterministic judges give the stored verdicts on the stored answers",
    )
    return result.model_copy(update={"rules": [*result.rules, rule]})
