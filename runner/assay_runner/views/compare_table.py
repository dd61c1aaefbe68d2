"""The terminal view of a comparison: one row per candidate, then the three labels and why."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from assay_runner.core.decision import Decision, Standing
from assay_runner.views.table import default_console


def print_decision(decision: Decision) -> None:
    console = default_console()
    table = Table(box=None, header_style="bold", title="candidates")
    for column in (
        "candidate",
        "mean",
        "pass rate",
        "pass@k",
        "pass^k",
        "fully resolved",
        "coverage",
        "verdict",
        "rank (key)",
        "rank (mean)",
    ):
        table.add_column(column, justify="left" if column in ("candidate", "verdict") else "right")

    def add(c: Standing, incumbent: bool = False) -> None:
        verdict = Text(c.verdict, style="green" if c.verdict == "Pass" else "red")
        table.add_row(
            c.name + (" (incumbent)" if incumbent else ""),
            f"{c.mean:.3f}",
            f"{c.pass_rate:.2f}",
            f"{c.pass_at_k:.2f}",
            f"{c.pass_hat_k:.2f}",
            f"{c.fully_resolved}/{c.tickets}",
            f"{c.coverage:.0%}" + ("" if c.complete else " ✘"),
            verdict,
            "-" if incumbent else str(decision.rank_by_key[c.name]),
            "-" if incumbent else str(decision.rank_by_mean[c.name]),
        )

    for c in decision.candidates:
        add(c)
    if decision.incumbent is not None:
        table.add_section()
        add(decision.incumbent, incumbent=True)
    console.print(table)
    console.print(f"key: {' > '.join(decision.key)}")
    console.print(f"highest mean:       {decision.highest_mean}")
    console.print(f"release-key winner: {decision.winner or 'none'}")
    promote = Text(
        "yes" if decision.promote else "no", style="bold green" if decision.promote else "bold red"
    )
    console.print(Text("promote:            ").append_text(promote))
    for reason in decision.reasons:
        console.print(f"  - {reason}")
