"""Tiny HTML helpers: every piece of text goes through `esc`, numbers through one formatter."""

from __future__ import annotations

import html
import re

from assay_runner.views.report.marks import Kind, Mark

_SAFE_URL = re.compile(r"^https?://[^\s\"'<>]+$", re.IGNORECASE)


def esc(text: object) -> str:
    """Text for element content or a quoted attribute value: &, <, >, " and ' are escaped."""
    return html.escape(str(text), quote=True)


def num(value: float | None, digits: int = 3) -> str:
    """A score for people, with `digits` decimals; None as a dash."""
    return "—" if value is None else f"{value:.{digits}f}"


def compact(value: float | None) -> str:
    """A threshold or count as configured: 0.9, 1, 4, 6 (at most three decimals)."""
    if value is None:
        return "—"
    return f"{value:.3f}".rstrip("0").rstrip(".") or "0"


def pct(value: float, low: float = 0.0, high: float = 1.0) -> str:
    """Position of `value` on [low, high] as a CSS percentage, clamped."""
    share = 0.0 if high <= low else (value - low) / (high - low)
    return f"{max(0.0, min(1.0, share)) * 100:.1f}%"


def safe_link(url: str | None) -> str | None:
    """Only plain http(s) URLs become links (never javascript: or data:); anything else stays text."""
    if url and _SAFE_URL.match(url):
        return url
    return None


def mark_html(mark: Mark, title: str = "") -> str:
    """A mark chip: the symbol, and a partial score on a second line (so chips line up in columns)."""
    label = f"{title}: {mark.label}" if title else mark.label
    value = f"<small>{mark.score:.2f}</small>" if mark.kind is Kind.PARTIAL and mark.score is not None else ""
    return f'<span class="m {mark.kind.value}" title="{esc(label)}">{mark.symbol}{value}</span>'


def status_html(passed: bool, yes: str = "pass", no: str = "fail") -> str:
    """A pass/fail badge that reads the same without colour: a symbol and a word."""
    if passed:
        return f'<span class="st ok"><span aria-hidden="true">✔</span> {esc(yes)}</span>'
    return f'<span class="st ko"><span aria-hidden="true">✘</span> {esc(no)}</span>'
