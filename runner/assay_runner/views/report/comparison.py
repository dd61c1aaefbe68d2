"""The comparison page (`assay compare --html`): one self-contained HTML document for a set or grid of
candidates — the decision and its reasons first, then one sortable row per candidate, its verdict coloured,
with the paired figures against the incumbent, and for a grid, the cells laid out on their axes.

Rendered from the decision's typed report (core.decision_report), the same report `assay compare --json`
serialises, so the page shows exactly what the JSON says.
The same Content-Security-Policy as the evaluation report: no fetches, only this page's own script runs.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay_runner.core.decision_report import CandidateRow, DecisionReport, Versus
from assay_runner.core.standing import Standing
from assay_runner.views.report.markup import esc

CSS = """
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;--ok:#116329;--ok-bg:#dafbe1;--ko:#c4151c;
--ko-bg:#ffebe9;--na:#57606a;--na-bg:#eef1f4;--accent:#0b57d0;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:var(--bg);line-height:1.45;font-size:15px}
body{margin:0}
header{background:#fff;border-bottom:1px solid var(--line);padding:.9rem 1.5rem}
header p{margin:0;color:var(--muted);font-size:.85rem;text-transform:uppercase;letter-spacing:.04em}
header h1{margin:.1rem 0 0;font-size:1.45rem}
main{padding:1.25rem 1.5rem 3rem;max-width:1500px;margin:0 auto;display:grid;gap:1.25rem;
grid-template-columns:minmax(0,1fr)}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:1rem 1.25rem}
.decision{border-radius:10px;padding:1.1rem 1.4rem;color:#fff}
.decision.promote{background:var(--ok)}
.decision.keep{background:var(--ko)}
.decision h2{margin:0;font-size:2rem}
.decision ul{margin:.5rem 0 0;padding-left:1.2rem}
h2{font-size:1.15rem;margin:0 0 .4rem}
.hint{color:var(--muted);margin:.1rem 0 .7rem;font-size:.92rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .55rem;border-bottom:1px solid var(--line);white-space:nowrap}
thead th{font-size:.78rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
thead button{all:unset;cursor:pointer;text-decoration:underline dotted}
thead button:focus-visible{outline:3px solid var(--accent)}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
.n{text-align:right;font-variant-numeric:tabular-nums}
td.v{font-weight:700}
.Pass{background:var(--ok-bg);color:var(--ok)}
.Blocked{background:var(--ko-bg);color:var(--ko)}
.none{background:var(--na-bg);color:var(--na)}
tr.winner th{box-shadow:inset 5px 0 0 var(--accent)}
tr.incumbent{font-style:italic}
.fall{color:var(--ko);font-weight:700}
.matrix td{text-align:center;min-width:5.5rem;border:2px solid #fff}
.matrix td small{display:block;font-weight:400}
.matrix td.winner{outline:3px solid var(--accent);outline-offset:-3px}
footer{color:var(--muted);font-size:.85rem;padding:0 1.5rem 1.5rem}
"""

# Sorting: every sortable cell carries its value in data-v (a number, or text); a header button sorts the
# body rows by that column, toggling the direction. textContent and attributes only, no HTML parsing.
JS = """
(function(){
  var table=document.getElementById('candidates');
  if(!table){return;}
  var heads=table.querySelectorAll('thead th');
  heads.forEach(function(th,index){
    var button=th.querySelector('button');
    if(!button){return;}
    button.addEventListener('click',function(){
      var down=th.getAttribute('aria-sort')!=='descending';
      heads.forEach(function(other){other.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort',down?'descending':'ascending');
      var body=table.tBodies[0];
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){
        var x=a.cells[index].getAttribute('data-v'),y=b.cells[index].getAttribute('data-v');
        var nx=parseFloat(x),ny=parseFloat(y),order;
        if(x===''||x===null){return 1;} if(y===''||y===null){return -1;}
        order=(!isNaN(nx)&&!isNaN(ny))?nx-ny:String(x).localeCompare(String(y));
        return down?-order:order;
      });
      rows.forEach(function(row){body.appendChild(row);});
    });
  });
})();
"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True)
class GridLayout:
    """A grid's axes (name -> values, in order) and each cell's coordinates (candidate -> axis -> value)."""

    axes: Mapping[str, Sequence[str]]
    cells: Mapping[str, Mapping[str, str]]


def _fmt(value: object, digits: int = 3, signed: bool = False) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return esc(value)
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def _td(text: str, value: object, css: str = "n") -> str:
    shown = "" if value is None else esc(value)
    return f'<td class="{css}" data-v="{shown}">{text}</td>'


def _verdict(standing: Standing) -> tuple[str, str]:
    """The word and the CSS class: an incomplete candidate is shown as such, never as its partial verdict."""
    if not standing.complete:
        return f"{standing.verdict} (incomplete)", "none"
    return standing.verdict, "Pass" if standing.verdict == "Pass" else "Blocked"


def _columns(axes: Sequence[str]) -> list[str]:
    return [
        "candidate",
        *axes,
        "verdict",
        "mean",
        "fully resolved",
        "pass^k",
        "coverage",
        "cost",
        "rank (key)",
        "Δ score",
        "CI",
        "p",
        "Δ resolved",
        "p (McNemar)",
        "confidence",
        "judges fallen",
    ]


def _paired_cells(versus: Versus | None) -> list[str]:
    paired = versus.paired if versus is not None else None
    if paired is None:
        return [_td("—", None) for _ in range(6)]
    s, p = paired.scores, paired.fully_resolved
    return [
        _td(_fmt(s.effect, signed=True), s.effect),
        _td(f"{_fmt(s.ci_low, signed=True)}..{_fmt(s.ci_high, signed=True)}", s.ci_low),
        _td(_fmt(s.p_value), s.p_value),
        _td(f"+{p.gained}/−{p.lost}", p.effect),
        _td(_fmt(p.p_value), p.p_value),
        _td(f"{paired.confidence:.1%}" if paired.confidence is not None else "—", paired.confidence),
    ]


def _row(row: CandidateRow, coordinates: Mapping[str, str], axes: Sequence[str], winner: str | None) -> str:
    standing, versus = row.standing, row.vs_incumbent
    word, css = _verdict(standing)
    is_winner = row.role == "candidate" and row.name == winner
    classes = " ".join(c for c in (row.role, "winner" if is_winner else "") if c)
    label = (
        esc(row.name)
        + (" ★ winner" if is_winner else "")
        + (" (incumbent)" if row.role == "incumbent" else "")
    )
    fallen = list(versus.fallen) if versus is not None else []
    cells = [
        f'<th scope="row" data-v="{esc(row.name)}">{label}</th>',
        *(_td(esc(coordinates.get(a, "")), coordinates.get(a, ""), "") for a in axes),
        _td(esc(word), word, f"v {css}"),
        _td(_fmt(standing.mean), standing.mean),
        _td(f"{standing.fully_resolved}/{standing.tickets}", standing.fully_resolved),
        _td(_fmt(standing.pass_hat_k, 2), standing.pass_hat_k),
        _td(f"{standing.coverage:.0%}", standing.coverage),
        _td("—" if standing.cost_usd is None else f"${standing.cost_usd:.4f}", standing.cost_usd),
        _td(_fmt(row.rank_by_key, 0) if row.rank_by_key else "—", row.rank_by_key),
        *_paired_cells(versus),
        _td(
            f'<span class="fall">{esc(", ".join(fallen))}</span>' if fallen else "—",
            len(fallen) if versus is not None else None,
            "",
        ),
    ]
    return f'<tr class="{classes}">{"".join(cells)}</tr>'


def _table(report: DecisionReport, grid: GridLayout | None) -> str:
    axes = list(grid.axes) if grid else []
    coordinates = grid.cells if grid else {}
    head = "".join(f'<th scope="col"><button type="button">{esc(c)}</button></th>' for c in _columns(axes))
    body = "".join(_row(row, coordinates.get(row.name, {}), axes, report.winner) for row in report.candidates)
    incumbent = report.incumbent
    foot = f"<tfoot>{_row(incumbent, {}, axes, None)}</tfoot>" if incumbent else ""
    return (
        '<section class="card" aria-labelledby="rows-title"><h2 id="rows-title">Candidates</h2>'
        '<p class="hint">Click a column to sort. Δ and CI: the candidate minus the incumbent, paired over '
        "the same tickets; p: two-sided paired tests; confidence: 1 − p of the deciding test, adjusted for "
        'the number of candidates (Holm).</p><div class="scroll">'
        f'<table id="candidates"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>{foot}</table></div>'
        "</section>"
    )


def _matrix(report: DecisionReport, grid: GridLayout | None) -> str:
    """The grid on its axes: the first axis down, the product of the others across; each cell coloured by
    its verdict and showing its mean."""
    if grid is None or len(grid.axes) < 2:
        return ""
    names = list(grid.axes)
    by_coordinates = {tuple(coords[a] for a in names): name for name, coords in grid.cells.items()}
    rows = {row.name: row for row in report.candidates}
    across = list(itertools.product(*(grid.axes[a] for a in names[1:])))
    head = "".join(f'<th scope="col">{esc(" · ".join(combo))}</th>' for combo in across)
    lines = []
    for value in grid.axes[names[0]]:
        tds = []
        for combo in across:
            name = by_coordinates.get((value, *combo))
            row = rows.get(name or "")
            if row is None:
                tds.append('<td class="none">—</td>')
                continue
            word, css = _verdict(row.standing)
            winner = " winner" if name == report.winner else ""
            tds.append(
                f'<td class="{css}{winner}" title="{esc(name)}: {esc(word)}">{_fmt(row.standing.mean)}'
                f"<small>{esc(word)}</small></td>"
            )
        lines.append(f'<tr><th scope="row">{esc(value)}</th>{"".join(tds)}</tr>')
    return (
        '<section class="card" aria-labelledby="grid-title"><h2 id="grid-title">The grid</h2>'
        f'<p class="hint">{esc(names[0])} down, {esc(" · ".join(names[1:]))} across; each cell its mean and '
        "verdict.</p>"
        f'<div class="scroll"><table class="matrix"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{''.join(lines)}</tbody></table></div></section>"
    )


def _decision(report: DecisionReport) -> str:
    promote, winner = report.promote, report.winner
    title = f"Promote {winner}" if promote else "Keep the incumbent" if report.incumbent else "No promotion"
    rules = {"minConfidence": report.rules.min_confidence, "maxJudgeDrop": report.rules.max_judge_drop}
    stated = [f"key: {' > '.join(report.key)}"] + [
        f"{rule}: {'not set' if value is None else value}" for rule, value in rules.items()
    ]
    reasons = "".join(f"<li>{esc(r)}</li>" for r in report.reasons)
    return (
        f'<section class="decision {"promote" if promote else "keep"}" aria-labelledby="decision-title">'
        f'<h2 id="decision-title">{esc(title)}</h2>'
        f"<p>release-key winner: <b>{esc(winner or 'none')}</b> · highest mean: "
        f"{esc(report.highest_mean or 'none')} · {esc(' · '.join(stated))}</p>"
        f"<ul>{reasons}</ul></section>"
    )


def render_comparison(report: DecisionReport, grid: GridLayout | None = None) -> str:
    """The page as one HTML string: pure, every piece of text escaped."""
    count = len(report.candidates)
    kind = "grid" if grid else "comparison"
    return "".join(
        [
            '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>Assay {kind} — {esc(report.winner or 'no winner')}</title><style>{CSS}</style>",
            "</head><body>",
            f"<header><p>Assay {kind}</p><h1>{count} candidates</h1></header><main>",
            _decision(report),
            _matrix(report, grid),
            _table(report, grid),
            "</main><footer>rendered by <code>assay compare --html</code> · this page loads nothing from the "
            "network</footer>",
            f"<script>{JS}</script></body></html>\n",
        ]
    )
