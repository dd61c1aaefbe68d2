"""The terminal view of a comparison: one row per candidate (with its paired figures against the incumbent),
then the three labels and why."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from assay_runner.core.decision import Decision, Standing
from assay_runner.views.table import default_console

_PAIRED_COLUMNS = ("Δ score", "CI", "p", "Δ resolved", "p (McNemar)", "confidence")


def _paired_cells(decision: Decision, name: str) -> tuple[str, ...]:
    """The candidate against the incumbent; dashes for the incumbent and for candidates not compared."""
    comparison = decision.comparisons.get(name)
    if comparison is None:
        return ("-",) * len(_PAIRED_COLUMNS)
    s, p = comparison.scores, comparison.passes
    confidence = decision.confidence(name)
    return (
        f"{s.effect:+.3f}",
        f"{s.ci_low:+.3f}..{s.ci_high:+.3f}",
        f"{s.p_value:.3g}",
        f"+{p.gained}/-{p.lost}",
        f"{p.p_value:.3g}",
        "-" if confidence is None else f"{confidence:.1%}",
    )


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
    if decision.comparisons and decision.incumbent is not None:
        paired = Table(
            box=None, header_style="bold", title=f"against the incumbent {decision.incumbent.name}"
        )
        paired.add_column("candidate")
        for column in _PAIRED_COLUMNS:
            paired.add_column(column, justify="right")
        for c in decision.candidates:
            paired.add_row(c.name, *_paired_cells(decision, c.name))
        console.print(paired)
    console.print(f"key: {' > '.join(decision.key)}")
    console.print(f"highest mean:       {decision.highest_mean}")
    console.print(f"release-key winner: {decision.winner or 'none'}")
    promote = Text(
        "yes" if decision.promote else "no", style="bold green" if decision.promote else "bold red"
    )
    console.print(Text("promote:            ").append_text(promote))
    for reason in decision.reasons:
        console.print(f"  - {reason}")
    deltas = decision.judge_deltas.get(decision.winner or "")
    if deltas:
        tolerance = decision.rules.max_judge_drop
        shown = []
        for d in deltas:
            value = "not scored" if d.delta is None else f"{d.delta:+.3f}"
            shown.append(
                f"{d.judge} {value}" + (" ✘" if tolerance is not None and d.regressed(tolerance) else "")
            )
        console.print(f"winner's judges vs the incumbent: {', '.join(shown)}")
    if decision.comparisons:
        level = next(iter(decision.comparisons.values())).level
        console.print(
            f"CI: {level:.0%} paired bootstrap over tickets; p: two-sided paired tests; confidence: 1 - p of "
            f"the {'McNemar' if decision.deciding_test() == 'passes' else 'score'} test, Holm-adjusted over "
            f"{len(decision.comparisons)} candidate(s)"
        )
