"""The bounded RunSummary: what fits in a pod's termination message (at most 4096 bytes).

It is always valid JSON: when the full summary is too large, lists are shortened (failing tickets first,
then rule details) and `truncated` is set — never a byte-cut string that no one can parse.
"""

from __future__ import annotations

import hashlib

from assay_runner.contract import (
    SUMMARY_MAX_BYTES,
    PairedTickets,
    Result,
    RunSummary,
    SummaryCounts,
    SummaryRule,
)
from assay_runner.core.repetitions import ticket_passes_every_time
from assay_runner.core.scoring import gating_judges_passing

FAILING_TICKETS_SHOWN = 10
FLAKY_TICKETS_SHOWN = 10
DETAIL_CHARS = 160
SHADOW_REASON_CHARS = 120


def paired_tickets(result: Result) -> PairedTickets:
    tickets = sorted(result.tickets, key=lambda t: t.id)
    ids = "\n".join(t.id for t in tickets)
    return PairedTickets(
        tickets_digest=f"sha256:{hashlib.sha256(ids.encode()).hexdigest()}",
        scores=[round(t.score, 4) for t in tickets],
        resolved="".join("1" if ticket_passes_every_time(t, result.repetitions.k) else "0" for t in tickets),
    )


def encode(summary: RunSummary) -> bytes:
    return summary.to_json().encode()


def summarise(result: Result, limit: int = SUMMARY_MAX_BYTES) -> RunSummary:
    failing = [t.id for t in result.tickets if not t.passed]
    flaky = result.repetitions.flaky
    summary = RunSummary(
        verdict=result.verdict,
        score=round(result.score, 6),
        judges={name: None if s.mean is None else round(s.mean, 6) for name, s in result.judges.items()},
        rules=[
            SummaryRule(
                name=r.name,
                passed=r.passed,
                detail=r.detail[:DETAIL_CHARS],
                value=None if r.value is None else round(r.value, 6),
                shadow=r.shadow,
            )
            for r in result.rules
        ],
        counts=SummaryCounts(
            tickets=len(result.tickets),
            passed_tickets=sum(1 for t in result.tickets if t.passed),
            cells=sum(len(t.repetitions) for t in result.tickets),
            errors=sum(
                1
                for t in result.tickets
                for r in t.repetitions
                if r.error or any(v.error for v in r.judges.values())
            ),
            judges_passing=gating_judges_passing(result.judges),
            flaky_tickets=len(flaky),
        ),
        failing_tickets=failing[:FAILING_TICKETS_SHOWN],
        repetitions=result.repetitions.model_copy(update={"flaky": flaky[:FLAKY_TICKETS_SHOWN]}),
        usage=result.usage,
        conversations=result.conversations,
        inputs=result.inputs,
        mlflow=result.mlflow,
        truncated=len(failing) > FAILING_TICKETS_SHOWN or len(flaky) > FLAKY_TICKETS_SHOWN,
        paired=paired_tickets(result),
        shadow_judges={
            name: j.shadow[:SHADOW_REASON_CHARS] for name, j in result.judges.items() if j.shadow is not None
        },
    )
    return fit(summary, limit)


def fit(summary: RunSummary, limit: int = SUMMARY_MAX_BYTES) -> RunSummary:
    """Shrink until it fits: fewer failing tickets, fewer flaky ones, shorter details, no per-ticket
    figures, then fewer judges."""
    while len(encode(summary)) > limit:
        figures = summary.repetitions
        if summary.failing_tickets:
            summary = summary.model_copy(
                update={"failing_tickets": summary.failing_tickets[:-1], "truncated": True}
            )
        elif figures is not None and figures.flaky:
            fewer = figures.model_copy(update={"flaky": figures.flaky[:-1]})
            summary = summary.model_copy(update={"repetitions": fewer, "truncated": True})
        elif any(len(r.detail) > 40 for r in summary.rules):
            rules = [r.model_copy(update={"detail": r.detail[:40]}) for r in summary.rules]
            summary = summary.model_copy(update={"rules": rules, "truncated": True})
        elif any(len(why) > 40 for why in summary.shadow_judges.values()):
            shadows = {name: why[:40] for name, why in summary.shadow_judges.items()}
            summary = summary.model_copy(update={"shadow_judges": shadows, "truncated": True})
        elif summary.paired is not None:
            summary = summary.model_copy(update={"paired": None, "truncated": True})
        elif summary.judges:
            judges = dict(list(summary.judges.items())[:-1])
            summary = summary.model_copy(update={"judges": judges, "truncated": True})
        elif summary.mlflow.error:
            summary = summary.model_copy(update={"mlflow": summary.mlflow.model_copy(update={"error": None})})
        else:
            raise ValueError(f"a RunSummary cannot fit in {limit} bytes")
    return summary
