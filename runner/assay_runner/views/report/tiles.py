"""One tile per ticket: id, status, score against the floor, and one mark per judge.

Tiles are buttons (keyboard operable, aria-expanded/aria-controls on the shared detail panel). The panel's
content is built from the embedded JSON on click, so the page holds one small button per ticket.
"""

from __future__ import annotations

from assay_runner.contract import Result, TicketResult
from assay_runner.core.scoring import at_least
from assay_runner.views.report.marks import SYMBOLS, Kind, Mark, ticket_mark
from assay_runner.views.report.markup import esc, mark_html, num, pct


def ticket_status(ticket: TicketResult, floor: float, k: int) -> tuple[str, str]:
    """(css class, words) saying why a ticket passes or not; words start with a symbol."""
    if ticket.passed:
        return "ok", "✔ passes"
    errored = any(
        rep.error is not None or any(v.error is not None for v in rep.judges.values())
        for rep in ticket.repetitions
    )
    if errored:
        return "err", "! not judged"
    if len(ticket.repetitions) < k:
        return "err", "! repetitions missing"
    if not at_least(ticket.score, floor):
        return "ko", "✘ below floor"
    return "ko", "✘ judge floor broken"


def _tile(i: int, ticket: TicketResult, judges: list[str], floor: float, k: int) -> str:
    cls, status = ticket_status(ticket, floor, k)
    marks: list[tuple[str, Mark]] = [(name, ticket_mark(ticket, name)) for name in judges]
    failed = [name for name, m in marks if m.kind is Kind.FAILED]
    errored = [name for name, m in marks if m.kind is Kind.ERROR]
    passing_reps = sum(1 for r in ticket.repetitions if r.passed)
    reps = f" · {passing_reps}/{k}" if k > 1 else ""
    spoken_reps = f", {passing_reps} of {k} repetitions pass" if k > 1 else ""
    # The button's accessible name: everything the tile shows, in words (status[2:] drops the symbol).
    label = (
        f"{ticket.id}, {ticket.split}, {status[2:]}: score {num(ticket.score, 2)}, floor {num(floor, 2)}"
        f"{spoken_reps}. " + ", ".join(f"{name} {m.label}" for name, m in marks)
    )
    # Name what broke, so a failing tile reads without hovering over its marks.
    broke = " ".join(
        f"{SYMBOLS[kind]} {', '.join(names)}"
        for kind, names in ((Kind.ERROR, errored), (Kind.FAILED, failed))
        if names
    )
    fails = f'<span class="t-fails">{esc(broke)}</span>' if broke and cls != "ok" else ""
    fill = "ok" if at_least(ticket.score, floor) else "ko"
    return (
        f'<li class="{cls}"><button type="button" class="tile {cls}" id="tile-{i}" data-i="{i}" '
        f'aria-expanded="false" aria-controls="detail" aria-label="{esc(label)}">'
        f'<span class="t-top"><span class="t-id">{esc(ticket.id)}</span>'
        f'<span class="t-st">{esc(status)}</span></span>'
        f'<span class="t-score"><span><b>{num(ticket.score, 2)}</b> / floor {num(floor, 2)}</span>'
        f'<span class="muted">{esc(ticket.split)}{reps}</span></span>'
        f'<span class="t-bar"><span class="fill {fill}" style="width:{pct(ticket.score)}"></span>'
        f'<span class="thr" style="left:{pct(floor)}"></span></span>'
        f'<span class="t-marks">{"".join(mark_html(m, name) for name, m in marks)}</span>{fails}'
        "</button></li>"
    )


def legend() -> str:
    items = "".join(
        f'<li><span class="m {kind.value}">{SYMBOLS[kind]}</span> {esc(text)}</li>'
        for kind, text in (
            (Kind.FULL, "full marks"),
            (Kind.PARTIAL, "partial (with its score)"),
            (Kind.FAILED, "failed"),
            (Kind.NOT_APPLICABLE, "not applicable"),
            (Kind.ERROR, "error (blocks)"),
        )
    )
    return f'<ul class="legend" aria-label="Legend">{items}</ul>'


def tiles_section(result: Result) -> str:
    judges = list(result.judges)
    floor = result.config.gate.ticket_floor
    k = result.repetitions.k
    failing = sum(1 for t in result.tickets if not t.passed)
    tiles = "".join(_tile(i, t, judges, floor, k) for i, t in enumerate(result.tickets))
    order = "".join(f"<li>{esc(name)}</li>" for name in judges)
    mean_note = " (the mean over repetitions)" if k > 1 else ""
    return (
        '<section class="card" id="tickets" aria-labelledby="tickets-h">'
        '<div class="sec-head"><h2 id="tickets-h">Tickets</h2>'
        f'<p class="hint">{len(result.tickets)} tickets, {failing} failing. '
        "Select a ticket for its question, answer, judges' reasons and answer key.</p>"
        '<label class="filter"><input type="checkbox" id="only-failing"> Show failing tickets only</label>'
        f"</div>{legend()}"
        f'<p class="hint">One mark per judge{mean_note}, left to right:</p><ol class="order">{order}</ol>'
        f'<ul class="tiles" id="tiles">{tiles}</ul></section>'
    )
