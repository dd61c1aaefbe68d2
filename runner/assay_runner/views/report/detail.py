"""The data behind the detail panel, embedded once as JSON and turned into DOM (as text) on click.

Answers are untrusted model output. They travel as JSON strings inside <script type="application/json">,
with <, > and & written as \\u escapes so no answer can close the element or open a tag; the script reads
them with textContent only.
"""

from __future__ import annotations

import json
from typing import Any

from assay_runner.contract import (
    AgentError,
    ConversationRecord,
    JudgeVerdict,
    ModelTurn,
    RepetitionResult,
    Result,
    TicketResult,
    ToolCall,
    Trajectory,
    Usage,
)
from assay_runner.views.report.marks import cell_mark
from assay_runner.views.report.markup import compact, num
from assay_runner.views.report.tiles import ticket_status

# Bounds that keep a 300 x 5 page at a few MB: a result keeps up to 16 KiB of transcript per cell.
ANSWER_CHARS = 20_000
TRANSCRIPT_CHARS = 1_000
STEP_CHARS = 600
"""Of each trajectory step's text (a tool result, a model turn's text), what the page shows."""
ARGUMENT_CHARS = 300

KEY_LABELS = {
    "kb": "KB articles to cite",
    "mustMention": "Must mention",
    "forbidden": "Forbidden",
    "shouldAbstain": "Should abstain",
    "scopePolicy": "Scope policy",
    "notes": "Notes for the model judge",
}


def _key_value(value: Any) -> str | list[str]:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return [item if isinstance(item, str) else json.dumps(item, ensure_ascii=False) for item in value]
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def key_rows(key: dict[str, Any] | None) -> list[tuple[str, str | list[str]]]:
    """The answer key as (label, text or list) rows; empty fields are left out."""
    rows: list[tuple[str, str | list[str]]] = []
    for name, value in (key or {}).items():
        if value is None or value in ([], ""):
            continue
        if name == "conversation" and isinstance(value, dict):
            rows += _conversation_rows(value)
            continue
        rows.append((KEY_LABELS.get(name, name), _key_value(value)))
    return rows


def _conversation_rows(spec: dict[str, Any]) -> list[tuple[str, str | list[str]]]:
    """A conversation's key in words: the customer, each hidden fact with what counts as asking for it."""
    customer = spec.get("customer") or {}
    facts = [
        f"{fact.get('name')}: “{fact.get('says')}” (asked when: {', '.join(fact.get('askedWhen') or [])})"
        for fact in spec.get("hidden") or []
    ]
    unprompted = spec.get("unprompted")
    if isinstance(unprompted, dict):
        unprompted = f"says “{unprompted.get('reply')}”"
    return [
        ("Customer", f"{customer.get('persona')} · {customer.get('tone')} · {customer.get('playedBy')}"),
        ("Hidden facts", facts),
        ("Not asked", f"{unprompted} · turn limit {spec.get('turnLimit')}"),
    ]


def _raw_note(verdict: JudgeVerdict | None) -> str:
    if verdict is None or verdict.raw is None:
        return ""
    parts = [f"raw {compact(verdict.raw)}"]
    if verdict.samples:
        parts.append("samples " + ", ".join(compact(s) for s in verdict.samples))
    if verdict.spread is not None:
        parts.append(f"spread {compact(verdict.spread)}")
    return " · ".join(parts)


def _judge_entry(rep: RepetitionResult, name: str) -> list[str | None]:
    mark = cell_mark(rep, name)
    verdict = rep.judges.get(name)
    score = num(verdict.score, 2) if verdict is not None and verdict.score is not None else "—"
    reason = verdict.reason if verdict is not None else ""
    error = verdict.error if verdict is not None else (rep.error or "no verdict")
    return [mark.kind.value, mark.symbol, mark.label, score, reason, error, _raw_note(verdict)]


def _head(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"\n\n[… {len(text) - limit:,} more characters in result.json]"


def _tail(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return f"[… {len(text) - limit:,} earlier characters in result.json]\n\n" + text[-limit:]


def _when(start: float | None, end: float | None) -> str:
    if start is None and end is None:
        return ""
    if start is None or end is None or abs(end - start) < 0.0005:
        return f"{(end if start is None else start):.2f} s"
    return f"{start:.2f}–{end:.2f} s"


def _step(step: ModelTurn | ToolCall | AgentError) -> list[object]:
    """[kind, ok, label, when, text, more]: what the panel shows of one step."""
    when = _when(step.start, step.end)
    if isinstance(step, ToolCall):
        target = f" {', '.join(step.paths)}" if step.paths else ""
        arguments = _head(json.dumps(step.arguments, ensure_ascii=False), ARGUMENT_CHARS) or ""
        return [
            "tool",
            step.ok,
            f"{step.tool} · {step.action}{target}",
            when,
            _head(step.result, STEP_CHARS),
            arguments,
        ]
    if isinstance(step, ModelTurn):
        tokens = [
            f"{n:,} {what}"
            for n, what in ((step.input_tokens, "in"), (step.output_tokens, "out"))
            if n is not None
        ]
        label = "model" + (f" · tokens {' / '.join(tokens)}" if tokens else "")
        return ["model", True, label, when, _head(step.text, STEP_CHARS), ""]
    return ["error", False, "error", when, _head(step.message, STEP_CHARS), ""]


def trajectory_entry(trajectory: Trajectory | None) -> dict[str, object] | None:
    if trajectory is None:
        return None
    calls = trajectory.tool_calls()
    failed = sum(1 for call in calls if not call.ok)
    parts = [f"{trajectory.agent}", f"{len(trajectory.steps)} steps", f"{len(calls)} tool calls"]
    if failed:
        parts.append(f"{failed} failed")
    if trajectory.input_tokens is not None or trajectory.output_tokens is not None:
        parts.append(f"tokens {trajectory.input_tokens or 0:,} in / {trajectory.output_tokens or 0:,} out")
    if trajectory.dropped_steps:
        parts.append(f"{trajectory.dropped_steps} later steps not kept")
    if trajectory.model_calls is not None:  # the metering proxy's record, which the judges gate on
        parts.append(f"proxy: {trajectory.model_calls} model calls")
        parts.append(f"read {', '.join(trajectory.articles_read or []) or 'no article'}")
    parts += [f"differs: {difference}" for difference in trajectory.differences]
    return {"sum": " · ".join(parts), "steps": [_step(step) for step in trajectory.steps]}


def _usage(usage: Usage | None) -> str:
    if usage is None:
        return ""
    return f"tokens {usage.input_tokens:,} in / {usage.output_tokens:,} out · ${usage.cost_usd:.4f}"


def conversation_entry(record: ConversationRecord | None) -> dict[str, object] | None:
    """The exchange as the panel shows it: a summary line (turns against the limit, how it ended, each
    side's cost) and each message [speaker, turn, text, what it asked or revealed, its cost, an agent turn's
    own steps (`trajectory_entry`, or None)]."""
    if record is None:
        return None
    customer = "model customer " + (record.customer_model or "") if record.customer == "model" else "scripted"
    parts = [
        f"{record.agent_turns} of {record.turn_limit} agent turns",
        "answered" if record.ended == "answered" else f"ended: {record.reason or record.ended}",
        f"agent {_usage(record.agent_usage)}",
        f"customer ({customer.strip()}) {_usage(record.customer_usage)}",
    ]
    turns = []
    for turn in record.turns:
        marks = [f"asked for {', '.join(turn.asked)}"] if turn.asked else []
        marks += [f"revealed {', '.join(turn.revealed)}"] if turn.revealed else []
        turns.append(
            [
                turn.speaker,
                turn.index,
                _head(turn.text, STEP_CHARS),
                " · ".join(marks),
                _usage(turn.usage),
                trajectory_entry(turn.trajectory),
            ]
        )
    return {"sum": " · ".join(parts), "ok": record.ended == "answered", "turns": turns}


def _rep(rep: RepetitionResult, judges: list[str]) -> dict[str, object]:
    return {
        "n": rep.index,
        "score": num(rep.score, 2),
        "ok": rep.passed,
        "exit": rep.exit_code,
        "err": rep.error,
        "a": _head(rep.answer, ANSWER_CHARS),
        "tr": _tail(rep.transcript, TRANSCRIPT_CHARS),
        "tj": trajectory_entry(rep.trajectory),
        "cv": conversation_entry(rep.conversation),
        "j": [_judge_entry(rep, name) for name in judges],
    }


def _ticket(ticket: TicketResult, judges: list[str], floor: float, k: int) -> dict[str, object]:
    cls, status = ticket_status(ticket, floor, k)
    return {
        "id": ticket.id,
        "split": ticket.split,
        "cls": cls,
        "st": status,
        "score": num(ticket.score, 2),
        "q": ticket.question,
        "key": key_rows(ticket.key),
        "missing": max(0, k - len(ticket.repetitions)),
        "reps": [_rep(rep, judges) for rep in ticket.repetitions],
    }


def payload(result: Result) -> dict[str, object]:
    judges = list(result.judges)
    floor = result.config.gate.ticket_floor
    k = result.repetitions.k
    return {
        "judges": judges,
        "floor": num(floor, 2),
        "k": k,
        "tickets": [_ticket(t, judges, floor, k) for t in result.tickets],
    }


def script_json(data: object) -> str:
    """JSON safe inside a <script> element: no </script>, no <!--, no markup at all."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
