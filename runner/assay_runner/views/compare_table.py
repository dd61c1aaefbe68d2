"""The terminal view of a comparison: one row per candidate (with its paired figures against the incumbent),
then the three labels and why. Read from the decision's typed report (core.decision_report)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from assay_runner.core.decision_report import CandidateRow, DecisionReport, Versus
from assay_runner.views.table import default_console

_PAIRED_COLUMNS = ("Δ score", "CI", "p", "Δ resolved", "p (McNemar)", "confidence")


def _paired_cells(versus: Versus | None) -> tuple[str, ...]:
    """The candidate against the incumbent; dashes for the incumbent and for candidates not compared."""
    paired = versus.paired if versus is not None else None
    if paired is None:
        return ("-",) * len(_PAIRED_COLUMNS)
    s, p = paired.scores, paired.fully_resolved
    return (
        f"{s.effect:+.3f}",
        f"{s.ci_low:+.3f}..{s.ci_high:+.3f}",
        f"{s.p_value:.3g}",
        f"+{p.gained}/-{p.lost}",
        f"{p.p_value:.3g}",
        "-" if paired.confidence is None else f"{paired.confidence:.1%}",
    )


def print_decision(report: DecisionReport) -> None:
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
        "cost",
        "verdict",
        "rank (key)",
        "rank (mean)",
    ):
        table.add_column(column, justify="left" if column in ("candidate", "verdict") else "right")

    def add(row: CandidateRow) -> None:
        c = row.standing
        verdict = Text(c.verdict, style="green" if c.verdict == "Pass" else "red")
        table.add_row(
            c.name + (" (incumbent)" if row.role == "incumbent" else ""),
            f"{c.mean:.3f}",
            f"{c.pass_rate:.2f}",
            f"{c.pass_at_k:.2f}",
            f"{c.pass_hat_k:.2f}",
            f"{c.fully_resolved}/{c.tickets}",
            f"{c.coverage:.0%}" + ("" if c.complete else " ✘"),
            "-" if c.cost_usd is None else f"${c.cost_usd:.4f}",
            verdict,
            "-" if row.rank_by_key is None else str(row.rank_by_key),
            "-" if row.rank_by_mean is None else str(row.rank_by_mean),
        )

    for row in report.candidates:
        add(row)
    if report.incumbent is not None:
        table.add_section()
        add(report.incumbent)
    console.print(table)
    compared = [row for row in report.candidates if row.vs_incumbent and row.vs_incumbent.paired]
    if compared and report.incumbent is not None:
        paired = Table(box=None, header_style="bold", title=f"against the incumbent {report.incumbent.name}")
        paired.add_column("candidate")
        for column in _PAIRED_COLUMNS:
            paired.add_column(column, justify="right")
        for row in report.candidates:
            paired.add_row(row.name, *_paired_cells(row.vs_incumbent))
        console.print(paired)
    console.print(f"key: {' > '.join(report.key)}")
    console.print(f"highest mean:       {report.highest_mean}")
    console.print(f"release-key winner: {report.winner or 'none'}")
    promote = Text("yes" if report.promote else "no", style="bold green" if report.promote else "bold red")
    console.print(Text("promote:            ").append_text(promote))
    for reason in report.reasons:
        console.print(f"  - {reason}")
    winner = report.row(report.winner) if report.winner else None
    if winner is not None and winner.vs_incumbent is not None and winner.vs_incumbent.judges:
        shown = [
            f"{c.judge} {'not scored' if c.delta is None else f'{c.delta:+.3f}'}"
            + (" (shadow)" if c.shadow else " ✘" if c.regressed else "")
            for c in winner.vs_incumbent.judges
        ]
        console.print(f"winner's judges vs the incumbent: {', '.join(shown)}")
    if compared:
        first = compared[0].vs_incumbent
        assert first is not None and first.paired is not None
        test = "McNemar" if first.paired.deciding_test == "fullyResolved" else "score"
        console.print(
            f"CI: {first.paired.level:.0%} paired bootstrap over tickets; p: two-sided paired tests; "
            f"confidence: 1 - p of the {test} test, Holm-adjusted over {len(compared)} candidate(s)"
        )
