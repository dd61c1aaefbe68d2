"""The whole page: one self-contained HTML document, rendered in Python.

A Content-Security-Policy in the page forbids every fetch (default-src 'none') and lets only the report's
own script run (by its hash), so even a rendering bug could not make an answer load or execute anything.
"""

from __future__ import annotations

import base64
import hashlib

from assay_runner.contract import Result
from assay_runner.views.report.assets import CSS, JS
from assay_runner.views.report.bars import judges_section
from assay_runner.views.report.detail import payload, script_json
from assay_runner.views.report.grid import repetitions_section
from assay_runner.views.report.markup import esc
from assay_runner.views.report.overview import facts_section, online_banner, rules_section, verdict_section
from assay_runner.views.report.tiles import tiles_section

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)


def _title(result: Result) -> str:
    parts = [result.verdict, result.suite] + ([result.run_name] if result.run_name else [])
    return "Assay report — " + " — ".join(parts)


def _panel() -> str:
    return (
        '<section id="detail" class="panel" aria-labelledby="detail-title" hidden>'
        '<div class="panel-head"><h2 id="detail-title" tabindex="-1">Ticket</h2>'
        '<button type="button" class="close" data-close>'
        '<span aria-hidden="true">✕</span> Close<span class="sr"> ticket details</span></button></div>'
        '<div id="detail-body"></div></section>'
    )


def render_report(result: Result) -> str:
    """The report as one HTML string: pure (no I/O), every piece of result text escaped."""
    heading = esc(result.suite) + (
        f' <span class="muted">· {esc(result.run_name)}</span>' if result.run_name else ""
    )
    return "".join(
        [
            '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{esc(_title(result))}</title><style>{CSS}</style>",
            # The data first: parsed before there is anything to lay out (measured faster on 300 x 5).
            f'<script type="application/json" id="assay-data">{script_json(payload(result))}</script>',
            "</head><body>",
            '<a class="skip" href="#tickets">Skip to the tickets</a>',
            f'<header class="top"><p>Assay evaluation report</p><h1>{heading}</h1></header><main>',
            online_banner(result),
            f'<div class="hero">{verdict_section(result)}{facts_section(result)}</div>',
            rules_section(result),
            judges_section(result),
            repetitions_section(result),
            tiles_section(result),
            "<noscript><p>Ticket details open with JavaScript; everything above is complete without it."
            "</p></noscript></main>",
            f"<footer>result schema v{result.schema_version} · rendered by <code>assay report</code> · "
            "this page loads nothing from the network</footer>",
            _panel(),
            f"<script>{JS}</script></body></html>\n",
        ]
    )
