"""Counting repetitions honestly: pass rate, pass@k and pass^k are different questions.

- pass rate: of all ticket x repetition cells, the share that pass;
- pass@k: the share of tickets that pass at least once in k tries (what a lenient demo shows);
- pass^k: the share of tickets that pass every time (what a release needs: users meet every repetition);
- flaky: the tickets between the two, passing in some repetitions and not in others.
A missing repetition counts as a failure, never as absent.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.contract import RepetitionFigures, TicketResult


def ticket_passes_every_time(ticket: TicketResult, k: int) -> bool:
    return len(ticket.repetitions) >= k and all(r.passed for r in ticket.repetitions)


def figures(tickets: Sequence[TicketResult], k: int) -> RepetitionFigures:
    cells = len(tickets) * k
    passing_cells = sum(sum(1 for r in t.repetitions[:k] if r.passed) for t in tickets)
    at_least_once = sum(1 for t in tickets if any(r.passed for r in t.repetitions))
    every_time = sum(1 for t in tickets if ticket_passes_every_time(t, k))
    flaky = [
        t.id for t in tickets if any(r.passed for r in t.repetitions) and not ticket_passes_every_time(t, k)
    ]
    count = len(tickets)
    return RepetitionFigures(
        k=k,
        pass_rate=passing_cells / cells if cells else 0.0,
        pass_at_k=at_least_once / count if count else 0.0,
        pass_hat_k=every_time / count if count else 0.0,
        fully_resolved=every_time,
        cells=cells,
        passing_cells=passing_cells,
        flaky=flaky,
    )
