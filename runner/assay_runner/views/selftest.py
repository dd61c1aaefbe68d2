"""The judges' self-test on a terminal: one row per probe and judge, then what was skipped."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assay_runner.judges.selftest import SelfTestReport
from assay_runner.views.table import default_console


def print_report(report: SelfTestReport, console: Console | None = None) -> None:
    console = console or default_console()
    table = Table(box=None, header_style="bold", title="judges self-test")
    for column in ("probe", "judge", "expected", "score", "", "reason"):
        table.add_column(column)
    for o in report.outcomes:
        mark = Text("✔", style="green") if o.ok else Text("✘", style="bold red")
        table.add_row(
            o.probe, o.judge, o.expected, "error" if o.score is None else f"{o.score:.2f}", mark, o.reason
        )
    console.print(table)
    for line in report.skipped:
        console.print(Text(f"skipped: {line}", style="yellow"))
    failed = sum(1 for o in report.outcomes if not o.ok)
    summary = f"{len(report.outcomes) - failed} of {len(report.outcomes)} checks as expected"
    console.print(Text(summary, style="bold green" if report.ok else "bold red"))
