"""The top of the page: verdict, reasons, run facts (digests, usage, MLflow, times) and the gate rules."""

from __future__ import annotations

from datetime import datetime

from assay_runner.contract import MlflowRef, Result, RuleResult, Usage
from assay_runner.views.report.markup import compact, esc, num, safe_link, status_html
from assay_runner.vocabulary import GateRule

RULE_TITLES: dict[str, str] = {
    GateRule.SCORE: "Evaluation score",
    GateRule.JUDGES: "Every judge at its threshold",
    GateRule.TICKET_FLOOR: "Every ticket at or above the floor",
    GateRule.JUDGE_FLOORS: "Judges' per-ticket floors",
    GateRule.REPETITIONS: "Tickets passing every repetition",
    GateRule.COMPLETE: "Every cell judged without error",
    GateRule.MAX_ANSWER_SECONDS: "Every answer within the time limit",
    GateRule.ANSWER_SECONDS_PERCENTILE: "Answer time percentile within its limit",
    GateRule.MAX_TICKET_COST_USD: "Every ticket within the cost limit",
    GateRule.MAX_RUN_COST_USD: "The run within the cost limit",
    GateRule.MLFLOW: "Logged to MLflow",
    GateRule.VERIFIED: "Re-judged: the stored verdicts hold",
}
MAX_OFFENDERS = 40  # the tiles show every failing ticket; the rule lists the first few
MAX_FLAKY = 20  # the grid marks every flaky ticket; the summary names the first few


def _duration(started: str | None, finished: str | None) -> str | None:
    if not started or not finished:
        return None
    try:
        seconds = (datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds()
    except (TypeError, ValueError):
        return None
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"


def verdict_section(result: Result) -> str:
    passed = result.verdict == "Pass"
    cls = "pass" if passed else "blocked"
    symbol = "✔" if passed else "✘"
    failing = sum(1 for t in result.tickets if not t.passed)
    gate = result.config.gate
    eyebrow = "Online verdict — not a release verdict" if result.mode == "online" else "Release verdict"
    lines = [
        f'<section class="verdict {cls}" aria-labelledby="verdict-h">',
        f'<h2 id="verdict-h" class="eyebrow">{eyebrow}</h2>',
        f'<p class="verdict-word"><span class="vsym" aria-hidden="true">{symbol}</span> '
        f"{esc(result.verdict)}</p>",
        f'<p class="verdict-sub">score <strong>{num(result.score)}</strong> (minimum '
        f"{compact(gate.min_score)}) · {len(result.tickets) - failing} of {len(result.tickets)} tickets pass"
        f" · floor {num(gate.ticket_floor, 2)}</p>",
    ]
    lines.append(_flaky_html(result.repetitions.flaky, result.repetitions.k))
    if result.reasons:
        lines.append('<h3 class="sr">Why</h3><ul class="reasons">')
        lines.extend(f"<li>{esc(reason)}</li>" for reason in result.reasons)
        lines.append("</ul>")
    else:
        lines.append('<p class="reasons-none">Every gate rule passed.</p>')
    if result.warnings:
        lines.append('<h3 class="sr">Warnings</h3><ul class="reasons warnings">')
        lines.extend(f"<li>warning: {esc(warning)}</li>" for warning in result.warnings)
        lines.append("</ul>")
    lines.append("</section>")
    return "".join(lines)


def _flaky_html(flaky: list[str], k: int) -> str:
    """The tickets that pass in some repetitions and not in others, named in the summary."""
    if not flaky:
        return ""
    shown = ", ".join(flaky[:MAX_FLAKY]) + (
        f" (+{len(flaky) - MAX_FLAKY} more)" if len(flaky) > MAX_FLAKY else ""
    )
    return (
        f'<p class="verdict-sub flaky">{len(flaky)} flaky ticket(s), passing in some of the {k} repetitions '
        f"and not in others: {esc(shown)}</p>"
    )


def _mlflow_html(ref: MlflowRef) -> str:
    if not (ref.tracking_uri or ref.run_id):
        return "not logged" + (f" ({esc(ref.error)})" if ref.error else "")
    base = safe_link(ref.tracking_uri)
    label = esc(f"run {ref.run_id}" if ref.run_id else ref.tracking_uri or "")
    if base and ref.run_id:
        # The MLflow UI's route to one run; rel=noreferrer so the report leaks nothing when opened.
        href = f"{base.rstrip('/')}/#/experiments/{ref.experiment_id or '0'}/runs/{ref.run_id}"
        text = f'<a href="{esc(href)}" rel="noreferrer noopener">{label}</a>'
    else:
        text = label
    if ref.tracking_uri:
        text += f' <span class="muted">at <code>{esc(ref.tracking_uri)}</code></span>'
    if ref.error:
        text += f' <span class="ko-text">(logging failed: {esc(ref.error)})</span>'
    return text


def _conversation_rows(result: Result) -> list[tuple[str, str]]:
    """The conversations' cost, agent and customer apart (within the usage above)."""
    cost = result.conversations
    if cost is None:
        return []

    def spent(usage: Usage) -> str:
        return f"{usage.input_tokens:,} input · {usage.output_tokens:,} output tokens · ${usage.cost_usd:.4f}"

    return [
        (
            "Conversations",
            f"{cost.conversations} · {cost.turns} agent turns · agent {spent(cost.agent)} · customer "
            f"{spent(cost.customer)}",
        )
    ]


def facts_section(result: Result) -> str:
    usage = result.usage
    rows: list[tuple[str, str]] = [
        ("Run", esc(result.run_name or "—")),
        ("Suite", esc(result.suite)),
        ("Mode", esc(result.mode)),
        ("Started", esc(result.started_at or "—")),
        ("Finished", esc(result.finished_at or "—")),
    ]
    duration = _duration(result.started_at, result.finished_at)
    if duration:
        rows.append(("Duration", esc(duration)))
    rows += [
        ("Repetitions", str(result.repetitions.k)),
        (
            "Usage",
            f"{usage.input_tokens:,} input · {usage.output_tokens:,} output tokens · ${usage.cost_usd:.4f}",
        ),
        *_conversation_rows(result),
        ("MLflow", _mlflow_html(result.mlflow)),
        ("Brain", f"<code>{esc(result.inputs.brain_digest or '—')}</code>"),
        ("Suite digest", f"<code>{esc(result.inputs.suite_digest)}</code>"),
        ("Judges digest", f"<code>{esc(result.inputs.judges_digest)}</code>"),
        (
            "Tickets",
            f"{len(result.selection)} selected · <code>{esc(result.inputs.tickets_digest or '—')}</code>",
        ),
    ]
    body = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows)
    return (
        '<section class="card facts" aria-labelledby="facts-h"><h2 id="facts-h" class="eyebrow">Run</h2>'
        f'<dl class="kv">{body}</dl></section>'
    )


def _offender_html(offender: str, index: dict[str, int]) -> str:
    ticket = offender.split("@", 1)[-1].split("#", 1)[0] if "@" in offender else offender
    if ticket in index:
        i = index[ticket]
        return f'<a class="chip" href="#tile-{i}" data-i="{i}">{esc(offender)}</a>'
    return f'<span class="chip">{esc(offender)}</span>'


def _rule_row(rule: RuleResult, index: dict[str, int]) -> str:
    shown = rule.offenders[:MAX_OFFENDERS]
    offenders = "".join(_offender_html(o, index) for o in shown)
    if len(rule.offenders) > len(shown):
        offenders += f'<span class="muted"> +{len(rule.offenders) - len(shown)} more</span>'
    title = RULE_TITLES.get(rule.name, rule.name) + (" (shadow: not deciding)" if rule.shadow else "")
    status = status_html(rule.passed, "pass (shadow)", "would block (shadow)") if rule.shadow else None
    return (
        f'<tr class="{"ok" if rule.passed else "ko"}">'
        f'<th scope="row">{esc(title)}<br><code class="muted">{esc(rule.name)}</code></th>'
        f"<td>{status or status_html(rule.passed)}</td>"
        f'<td class="n">{compact(rule.value)}</td><td class="n">{compact(rule.threshold)}</td>'
        f"<td>{esc(rule.detail)}{f'<div class=chips>{offenders}</div>' if offenders else ''}</td></tr>"
    )


def rules_section(result: Result) -> str:
    index = {t.id: i for i, t in enumerate(result.tickets)}
    rows = "".join(_rule_row(rule, index) for rule in result.rules)
    return (
        '<section class="card" aria-labelledby="rules-h"><h2 id="rules-h">Gate rules</h2>'
        '<p class="hint">The verdict is Pass only when every rule passes; a shadow rule is evaluated and '
        "shown, and does not decide.</p>"
        '<div class="scroll"><table class="rules"><thead><tr><th scope="col">Rule</th>'
        '<th scope="col">Result</th><th scope="col" class="n">Value</th>'
        '<th scope="col" class="n">Threshold</th><th scope="col">Detail and offenders</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div></section>"
    )


def online_banner(result: Result) -> str:
    if result.mode != "online":
        return ""
    return (
        '<p class="banner" role="note"><strong>Online judging — not a release verdict.</strong> '
        "These answers were judged without an answer key; judges that need one did not run.</p>"
    )
