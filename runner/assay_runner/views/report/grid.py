"""Repetitions (k > 1): pass rate, pass@k and pass^k side by side, and the ticket x repetition grid.

The three figures answer different questions and a demo tends to quote the kindest one, so they sit next
to each other with their counts; the grid shows where the flaky tickets are.
"""

from __future__ import annotations

from assay_runner.contract import RepetitionFigures, RepetitionResult, Result, TicketResult
from assay_runner.views.report.markup import compact, esc, num, pct


def _figure(name: str, value: float, note: str) -> str:
    return (
        f'<div class="fig"><p class="fig-name">{name}</p><p class="fig-value">{num(value, 2)}</p>'
        f'<div class="bar" aria-hidden="true">'
        f'<span class="fill neutral" style="width:{pct(value)}"></span></div>'
        f'<p class="muted">{esc(note)}</p></div>'
    )


def figures_html(figures: RepetitionFigures, tickets: int) -> str:
    k = figures.k
    at_least_once = round(figures.pass_at_k * tickets)
    return (
        '<div class="figs">'
        + _figure("Pass rate", figures.pass_rate, f"{figures.passing_cells} of {figures.cells} cells pass")
        + _figure(f"pass@{k}", figures.pass_at_k, f"{at_least_once} of {tickets} tickets pass at least once")
        + _figure(
            f"pass^{k}", figures.pass_hat_k, f"{figures.fully_resolved} of {tickets} tickets pass every time"
        )
        + "</div>"
    )


def _cell(rep: RepetitionResult | None) -> str:
    if rep is None:
        return '<td class="g err">!<span class="sr"> missing</span></td>'
    if rep.error is not None or any(v.error is not None for v in rep.judges.values()):
        why = esc(rep.error or "judge error")
        return f'<td class="g err" title="{why}">!<span class="sr"> error</span></td>'
    if rep.passed:
        return '<td class="g ok">✔<span class="sr"> pass</span></td>'
    return f'<td class="g ko" title="score {num(rep.score, 2)}">✘<span class="sr"> fail</span></td>'


def _row(i: int, ticket: TicketResult, k: int) -> str:
    by_index = {rep.index: rep for rep in ticket.repetitions}
    cells = "".join(_cell(by_index.get(index)) for index in range(1, k + 1))
    passing = sum(1 for rep in ticket.repetitions if rep.passed)
    return (
        f'<tr><th scope="row"><a href="#tile-{i}" data-i="{i}">{esc(ticket.id)}</a></th>{cells}'
        f'<td class="n">{passing}/{k}</td><td class="n">{num(ticket.score, 2)}</td></tr>'
    )


def repetitions_section(result: Result) -> str:
    figures = result.repetitions
    if figures.k <= 1:
        return ""
    k = figures.k
    heads = "".join(f'<th scope="col">{index}</th>' for index in range(1, k + 1))
    rows = "".join(_row(i, t, k) for i, t in enumerate(result.tickets))
    criterion = result.config.pass_criterion
    rule = (
        f"ticket score ≥ {compact(criterion.min_ticket_score)}"
        if criterion.kind == "minTicketScore"
        else {"allJudgesTop": "every applicable judge at full marks"}.get(
            criterion.kind, "every applicable judge at its threshold"
        )
    )
    return (
        '<section class="card" aria-labelledby="reps-h">'
        f'<h2 id="reps-h">Repetitions <span class="muted">k = {k}</span></h2>'
        f'<p class="hint">A cell passes when {esc(rule)}.</p>'
        + figures_html(figures, len(result.tickets))
        + '<div class="scroll grid-wrap"><table class="grid"><caption class="sr">Ticket by repetition: '
        'pass or fail</caption><thead><tr><th scope="col">Ticket</th>'
        f'{heads}<th scope="col" class="n">Passes</th><th scope="col" class="n">Score</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div></section>"
    )
