"""A decision as its readers read it: one typed report for `assay compare` (terminal and `--json`), the HTML
comparison page and the Campaign's status.

The report is built once from a `Decision` (`report_of`); nobody reads the decision back from a camelCase
dict by string keys. `to_json` is the one serialiser of the public `assay compare --json` document.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from assay_runner.core.decision import Decision, JudgeDelta, PromotionRules
from assay_runner.core.standing import Role, Standing
from assay_runner.core.statistics import PassTest, ScoreTest

DecidingTest = str
"""`fullyResolved` (McNemar on the tickets resolved) or `scores` (permutation on the ticket scores)."""


@dataclass(frozen=True)
class JudgeChange:
    """One judge's mean, the candidate's against the incumbent's."""

    judge: str
    candidate: float | None
    incumbent: float | None
    delta: float | None
    regressed: bool | None
    """Whether it fell by more than `maxJudgeDrop` (None: the rule is not set)."""
    shadow: bool = False
    """A shadow judge on either side: compared and shown, never a reason to refuse (not in `fallen`)."""


@dataclass(frozen=True)
class Paired:
    """The paired tests of a candidate against the incumbent, over the same tickets."""

    level: float
    tickets: int
    scores: ScoreTest
    fully_resolved: PassTest
    deciding_test: DecidingTest
    adjusted_p_value: float | None
    """The deciding test's p-value, Holm-adjusted over every compared candidate."""
    confidence: float | None
    """1 - the adjusted p-value."""


@dataclass(frozen=True)
class Versus:
    """A candidate against the incumbent: each judge's change, and the paired tests when both evaluations
    carry per-ticket figures."""

    judges: tuple[JudgeChange, ...]
    paired: Paired | None

    @property
    def fallen(self) -> tuple[str, ...]:
        return tuple(change.judge for change in self.judges if change.regressed and not change.shadow)


@dataclass(frozen=True)
class CandidateRow:
    name: str
    role: Role
    standing: Standing
    key: dict[str, float]
    """The release key's values as stated, by reduction (`cost` in dollars: lower ranks higher; absent when
    not known)."""
    rank_by_key: int | None
    """None for the incumbent: the reference, not a contender."""
    rank_by_mean: int | None
    vs_incumbent: Versus | None
    """None for the incumbent itself, or when there is none."""


@dataclass(frozen=True)
class DecisionReport:
    key: tuple[str, ...]
    highest_mean: str | None
    winner: str | None
    promote: bool
    rules: PromotionRules
    reasons: tuple[str, ...]
    verdict: str
    """The one line that decided."""
    candidates: tuple[CandidateRow, ...]
    incumbent: CandidateRow | None

    def row(self, name: str) -> CandidateRow | None:
        rows = [*self.candidates, *([self.incumbent] if self.incumbent else [])]
        return next((row for row in rows if row.name == name), None)


def report_of(decision: Decision) -> DecisionReport:
    incumbent = decision.incumbent
    return DecisionReport(
        key=decision.key,
        highest_mean=decision.highest_mean,
        winner=decision.winner,
        promote=decision.promote,
        rules=decision.rules,
        reasons=tuple(decision.reasons),
        verdict=decision.verdict,
        candidates=tuple(_row(decision, c, "candidate") for c in decision.candidates),
        incumbent=_row(decision, incumbent, "incumbent") if incumbent is not None else None,
    )


def _row(decision: Decision, standing: Standing, role: Role) -> CandidateRow:
    contender = role == "candidate"
    return CandidateRow(
        name=standing.name,
        role=role,
        standing=standing,
        key={
            name: value
            for name, value in zip(decision.key, standing.figures(decision.key), strict=True)
            if math.isfinite(value)  # a cost not known: ranked last, shown as absent
        },
        rank_by_key=decision.rank_by_key.get(standing.name) if contender else None,
        rank_by_mean=decision.rank_by_mean.get(standing.name) if contender else None,
        vs_incumbent=_versus(decision, standing.name) if contender else None,
    )


def _change(delta: JudgeDelta, tolerance: float | None, shadow: frozenset[str]) -> JudgeChange:
    regressed = delta.regressed(tolerance) if tolerance is not None else None
    return JudgeChange(
        delta.judge, delta.candidate, delta.incumbent, delta.delta, regressed, delta.judge in shadow
    )


def _versus(decision: Decision, name: str) -> Versus | None:
    deltas = decision.judge_deltas.get(name)
    if deltas is None:
        return None
    comparison = decision.comparisons.get(name)
    paired = None
    if comparison is not None:
        paired = Paired(
            level=comparison.level,
            tickets=comparison.scores.tickets,
            scores=comparison.scores,
            fully_resolved=comparison.passes,
            deciding_test="fullyResolved" if decision.deciding_test() == "passes" else "scores",
            adjusted_p_value=decision.adjusted_p.get(name),
            confidence=decision.confidence(name),
        )
    # The same shadow judges the decision left out of maxJudgeDrop (core.decision._extra_rules).
    candidate = next((c for c in decision.candidates if c.name == name), None)
    shadow = (candidate.shadow_judges if candidate else frozenset()) | (
        decision.incumbent.shadow_judges if decision.incumbent else frozenset()
    )
    changes = tuple(_change(d, decision.rules.max_judge_drop, shadow) for d in deltas)
    return Versus(judges=changes, paired=paired)


# --- `assay compare --json` -------------------------------------------------------------------------------


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _versus_json(versus: Versus) -> dict[str, object]:
    out: dict[str, object] = {
        "judges": [
            {
                "judge": c.judge,
                "candidate": _r(c.candidate),
                "incumbent": _r(c.incumbent),
                "delta": _r(c.delta),
                **({"regressed": c.regressed} if c.regressed is not None else {}),
                **({"shadow": True} if c.shadow else {}),
            }
            for c in versus.judges
        ]
    }
    paired = versus.paired
    if paired is not None:
        s, p = paired.scores, paired.fully_resolved
        out.update(
            level=paired.level,
            tickets=paired.tickets,
            scores={
                "effect": _r(s.effect),
                "effectSize": _r(s.effect_size),
                "ciLow": _r(s.ci_low),
                "ciHigh": _r(s.ci_high),
                "pValue": _r(s.p_value),
                "exact": s.exact,
            },
            fullyResolved={
                "gained": p.gained,
                "lost": p.lost,
                "effect": _r(p.effect),
                "ciLow": _r(p.ci_low),
                "ciHigh": _r(p.ci_high),
                "pValue": _r(p.p_value),
            },
            decidingTest=paired.deciding_test,
            adjustedPValue=_r(paired.adjusted_p_value),
            confidence=_r(paired.confidence),
        )
    return out


def row_figures(row: CandidateRow) -> dict[str, object]:
    """A candidate's figures by field name, in the order they are shown: the one list `assay compare
    --json` (camelCase, row_json) and a Campaign's status rows (assay_operator.campaign.standings) both
    read. The comparison with the incumbent is not here: each reader gives it its own shape."""
    s = row.standing
    return {
        "mean": s.mean,
        "pass_rate": s.pass_rate,
        "pass_at_k": s.pass_at_k,
        "pass_hat_k": s.pass_hat_k,
        "fully_resolved": s.fully_resolved,
        "tickets": s.tickets,
        "coverage": s.coverage,
        "complete": s.complete,
        "verdict": s.verdict,
        "eligible": s.eligible,
        "cost_usd": s.cost_usd,
        "key": row.key,
        "rank_by_key": row.rank_by_key,  # None for the incumbent: the reference, not a contender
        "rank_by_mean": row.rank_by_mean,
    }


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def row_json(row: CandidateRow) -> dict[str, object]:
    return {
        "name": row.name,
        **{_camel(name): value for name, value in row_figures(row).items()},
        "vsIncumbent": _versus_json(row.vs_incumbent) if row.vs_incumbent is not None else None,
    }


def to_json(report: DecisionReport) -> dict[str, object]:
    return {
        "key": list(report.key),
        "highestMean": report.highest_mean,
        "winner": report.winner,
        "promote": report.promote,
        "rules": {
            "minConfidence": report.rules.min_confidence,
            "maxJudgeDrop": report.rules.max_judge_drop,
            "seed": report.rules.seed,
        },
        "reasons": list(report.reasons),
        "candidates": [row_json(row) for row in report.candidates],
        "incumbent": row_json(report.incumbent) if report.incumbent else None,
    }
