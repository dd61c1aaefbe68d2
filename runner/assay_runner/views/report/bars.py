"""Per-judge bars: the judge's mean against its own threshold, on the judge's own scale.

Model judges are shown on their raw scale (rawMean vs threshold on e.g. 1–5), as they are configured; the
others on [0, 1]. The bar is decoration: every number it draws is also in the table as text.
"""

from __future__ import annotations

from assay_runner.contract import JudgeConfigSummary, JudgeSummary, Result
from assay_runner.views.report.markup import compact, esc, num, pct, status_html


def _scale(config: JudgeConfigSummary | None) -> tuple[float, float]:
    return config.scale if config is not None and config.scale is not None else (0.0, 1.0)


def _row(name: str, summary: JudgeSummary, config: JudgeConfigSummary | None) -> str:
    low, high = _scale(config)
    raw = config is not None and config.scale is not None
    shown = summary.raw_mean if raw else summary.mean
    if shown is None and raw and summary.mean is not None:
        shown = low + summary.mean * (high - low)
    scale_note = f' <span class="muted">on {compact(low)}–{compact(high)}</span>' if raw else ""
    if shown is None:
        bar = '<span class="muted">applied to no ticket</span>'
    else:
        fill = "ok" if summary.passed else "ko"
        bar = (
            f'<div class="bar" aria-hidden="true">'
            f'<span class="fill {fill}" style="width:{pct(shown, low, high)}"></span>'
            f'<span class="thr" style="left:{pct(summary.threshold, low, high)}"></span></div>'
        )
    floor = compact(config.floor) if config is not None and config.floor is not None else "—"
    kind = "" if summary.type == name else f"{esc(summary.type)} · "
    errors = f'<span class="ko-text">! {summary.errors}</span>' if summary.errors else "0"
    if summary.shadow is not None:
        # Its figures as a gating judge's, its result read as what it would do: it decides nothing.
        status = status_html(summary.passed, "pass (shadow)", "would fail (shadow)")
        shadow = f'<br><span class="muted shadow">shadow, not gating: {esc(summary.shadow)}</span>'
    else:
        status, shadow = status_html(summary.passed), ""
    return (
        f'<tr class="{"ok" if summary.passed else "ko"}"><th scope="row">{esc(name)}'
        f'<br><span class="muted">{kind}weight {compact(summary.weight)}</span>{shadow}</th>'
        f'<td class="n">{num(shown)}{scale_note}</td><td class="n">{compact(summary.threshold)}</td>'
        f'<td class="barcell">{bar}</td><td>{status}</td>'
        f'<td class="n">{summary.applicable_tickets}</td><td class="n">{floor}</td>'
        f'<td class="n">{errors}</td>'
        "</tr>"
    )


def judges_section(result: Result) -> str:
    configs = {c.name: c for c in result.config.judges}
    rows = "".join(_row(name, s, configs.get(name)) for name, s in result.judges.items())
    return (
        '<section class="card" aria-labelledby="judges-h"><h2 id="judges-h">Judges</h2>'
        '<p class="hint">Each judge\'s mean over the tickets it applies to, against its own threshold '
        "(the dark tick). Model judges on their own scale. A shadow judge is shown like the others and "
        "decides nothing.</p>"
        '<div class="scroll"><table class="judges"><thead><tr><th scope="col">Judge</th>'
        '<th scope="col" class="n">Mean</th><th scope="col" class="n">Threshold</th>'
        '<th scope="col"><span class="sr">Mean against threshold</span></th><th scope="col">Result</th>'
        '<th scope="col" class="n">Tickets</th><th scope="col" class="n">Floor</th>'
        '<th scope="col" class="n">Errors</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div></section>"
    )
