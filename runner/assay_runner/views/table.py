"""The human view on a terminal: one row per ticket, one column per judge, then the rules and the verdict.

Marks carry a symbol as well as a colour, so the table reads the same without colour:
  ✔ full marks   ◐ partial   ✘ failed   · not applicable   ! error
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assay_runner.contract import JudgeVerdict, Result, TicketResult

FULL, PARTIAL, FAILED, NOT_APPLICABLE, ERROR = "✔", "◐", "✘", "·", "!"


def mark(verdict: JudgeVerdict | None) -> Text:
    if verdict is None:
        return Text(ERROR, style="bold red")
    if verdict.error is not None:
        return Text(ERROR, style="bold red")
    if not verdict.applicable or verdict.score is None:
        return Text(NOT_APPLICABLE, style="dim")
    if verdict.score >= 1.0 - 1e-9:
        return Text(FULL, style="green")
    if verdict.score <= 0.0:
        return Text(FAILED, style="red")
    return Text(f"{PARTIAL}{verdict.score:.2f}", style="yellow")


def _ticket_marks(ticket: TicketResult, judge: str) -> Text:
    marks = Text()
    for index, rep in enumerate(ticket.repetitions):
        if index:
            marks.append(" ")
        if rep.error is not None and not rep.judges:
            marks.append(ERROR, style="bold red")
        else:
            marks.append_text(mark(rep.judges.get(judge)))
    return marks


def ticket_table(result: Result) -> Table:
    table = Table(
        title=f"{result.suite}" + (f" — {result.run_name}" if result.run_name else ""),
        box=None,
        header_style="bold",
    )
    table.add_column("ticket")
    table.add_column("split", style="dim")
    for name, summary in result.judges.items():
        table.add_column(f"{name} (shadow)" if summary.shadow is not None else name, justify="center")
    table.add_column("score", justify="right")
    table.add_column("", justify="center")
    for ticket in result.tickets:
        status = Text(FULL, style="green") if ticket.passed else Text(FAILED, style="bold red")
        table.add_row(
            ticket.id,
            ticket.split,
            *(_ticket_marks(ticket, name) for name in result.judges),
            f"{ticket.score:.2f}",
            status,
        )
    table.add_section()
    means = []
    for summary in result.judges.values():
        shown = summary.raw_mean if summary.raw_mean is not None else summary.mean
        style = "green" if summary.passed else "yellow" if summary.shadow is not None else "bold red"
        means.append(Text("n/a" if shown is None else f"{shown:.2f}", style=style))
    table.add_row("mean", "", *means, f"{result.score:.2f}", "")
    table.add_row("threshold", "", *(f"{s.threshold:g}" for s in result.judges.values()), "", "")
    return table


def rules_table(result: Result) -> Table:
    table = Table(box=None, header_style="bold", show_header=True)
    table.add_column("rule")
    table.add_column("", justify="center")
    table.add_column("detail")
    for rule in result.rules:
        if rule.shadow:  # evaluated, not deciding: a failure reads "would block"
            mark = Text(FULL, style="green") if rule.passed else Text(f"{FAILED} would block", style="yellow")
            table.add_row(f"{rule.name} (shadow)", mark, rule.detail)
            continue
        table.add_row(
            rule.name,
            Text(FULL, style="green") if rule.passed else Text(FAILED, style="bold red"),
            rule.detail,
        )
    return table


def verdict_line(result: Result) -> Text:
    style = "bold green" if result.verdict == "Pass" else "bold red"
    text = Text("verdict: ")
    text.append(result.verdict, style=style)
    text.append(f"   score {result.score:.3f}")
    figures = result.repetitions
    if figures.k > 1:
        text.append(
            f"   k={figures.k} pass rate {figures.pass_rate:.2f} pass@k {figures.pass_at_k:.2f} "
            f"pass^k {figures.pass_hat_k:.2f}"
        )
    if result.mode == "online":
        text.append("   (online judging: not a release verdict)", style="yellow")
    return text


def default_console() -> Console:
    probe = Console()
    # Piped output (CI logs, `make demo | tee`) gets a wide table rather than rich's 80-column default.
    return probe if probe.is_terminal else Console(width=150)


def print_result(result: Result, console: Console | None = None) -> None:
    console = console or default_console()
    console.print(ticket_table(result))
    console.print()
    console.print(rules_table(result))
    console.print(verdict_line(result))
    for warning in result.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))
    console.print(
        Text(
            f"marks: {FULL} full  {PARTIAL} partial  {FAILED} failed  {NOT_APPLICABLE} not applicable"
            f"  {ERROR} error",
            style="dim",
        )
    )
