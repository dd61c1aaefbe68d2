"""The calibration as people review it: a markdown page with each judge's figures, its confusion matrix and
every answer on which it and a person disagree (`assay calibrate --out DIR` writes it as calibration.md)."""

from __future__ import annotations

from assay_runner.suite.calibration import Calibration, JudgeCalibration


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def summary_line(name: str, judge: JudgeCalibration, level: float) -> str:
    """One judge's figures on a line: `policy: kappa 0.873 (95% CI 0.77..0.96), agreement 0.95 on 120`."""
    kind = "weighted kappa" if judge.kind == "ordinal" else "kappa"
    interval = (
        f" ({level:.0%} CI {_number(judge.kappa_low)}..{_number(judge.kappa_high)})"
        if judge.kappa_low is not None
        else ""
    )
    skipped = f", {judge.skipped} skipped (judge error or not applicable)" if judge.skipped else ""
    return (
        f"{name}: {kind} {_number(judge.kappa)}{interval}, agreement {judge.agreement:.3f} on "
        f"{judge.labels} labels, {len(judge.disagreements)} to review{skipped}"
    )


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) or "> (empty answer)"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _judge_section(name: str, judge: JudgeCalibration, level: float) -> list[str]:
    lines = [f"## {name}", "", f"- {summary_line(name, judge, level)}"]
    lines.append(f"- labellers: {', '.join(judge.labellers)}")
    lines.append(f"- definition digest: `{judge.judge_digest}`")
    lines += ["", "Rows: the person; columns: the judge.", ""]
    lines.append("| person \\ judge | " + " | ".join(judge.categories) + " |")
    lines.append("|---|" + "---:|" * len(judge.categories))
    for category, row in zip(judge.categories, judge.confusion, strict=True):
        lines.append(f"| **{category}** | " + " | ".join(str(n) for n in row) + " |")
    lines.append("")
    if not judge.disagreements:
        lines += ["No disagreement.", ""]
        return lines
    lines += [f"### Disagreements ({len(judge.disagreements)})", ""]
    for index, case in enumerate(judge.disagreements, start=1):
        lines.append(
            f"**{index}. {case.ticket}** — {_cell(case.labeller)} says **{case.person}**, the judge says "
            f"**{case.judge}**"
        )
        if case.reason:
            lines.append(f"  judge's reason: {_cell(case.reason)}")
        if case.note:
            lines.append(f"  labeller's note: {_cell(case.note)}")
        lines += ["", _quote(case.answer), ""]
    return lines


def render_calibration(calibration: Calibration) -> str:
    model = f" Judge model: `{calibration.judge_model}`." if calibration.judge_model else ""
    lines = [
        f"# Calibration of suite {calibration.suite}",
        "",
        f"Labels: `{calibration.labels_file}` (`{calibration.labels_digest}`), "
        f"made {calibration.created_at}. Kappa intervals: {calibration.level:.0%} bootstrap percentile, "
        f"{calibration.resamples} resamples, seed {calibration.seed}.{model}",
        "",
    ]
    for name, judge in calibration.judges.items():
        lines += _judge_section(name, judge, calibration.level)
    return "\n".join(lines).rstrip() + "\n"
