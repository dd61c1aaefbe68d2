"""`policy`: the answer gives no forbidden advice. Any violation scores 0.

The suite-wide list and the ticket's own list are read clause by clause by
`assay_runner.text.policy_reader`: a clause that negates the forbidden action ("do not reinstall")
does not count, while a negation in another clause ("if that does not help, reinstall it") does not excuse
it. Always applicable when there is an answer: an empty forbidden list is a pass with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.collector import paused as gc_paused
from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, scored
from assay_runner.suite.models import Forbidden, PolicyJudge
from assay_runner.text.policy_reader import ForbiddenRule, find_violations
from assay_runner.text.view import answer_view


def to_rule(item: Forbidden) -> ForbiddenRule:
    if isinstance(item, str):
        return ForbiddenRule(phrase=item)
    return ForbiddenRule(
        phrase=item.phrase, pattern=item.pattern, allow_negated=item.allow_negated, label=item.label
    )


def to_rules(items: Sequence[Forbidden]) -> list[ForbiddenRule]:
    return [to_rule(item) for item in items]


class Policy(SpecJudge[PolicyJudge]):
    def __init__(self, spec: PolicyJudge) -> None:
        super().__init__(spec)
        self.suite_rules = to_rules(spec.forbidden)

    @gc_paused()
    def judge(self, case: Case) -> JudgeVerdict:
        rules = self.suite_rules + to_rules(case.ticket.key.forbidden)
        if not rules:
            return scored(1.0, "no forbidden content is configured")
        violations = find_violations(answer_view(case.answer), rules)
        if not violations:
            return scored(1.0, f"none of {len(rules)} forbidden item(s) recommended")
        shown = "; ".join(f'{v.rule.display} in "{v.clause}"' for v in violations[:3])
        more = f" (+{len(violations) - 3} more)" if len(violations) > 3 else ""
        return scored(0.0, f"forbidden advice: {shown}{more}")
