"""The comparison page of a grid (`assay compare --grid --html`) in a real headless Chromium: it loads offline
with its script allowed by the page's CSP, colours each cell by its verdict, marks the winner, and a real
click on a column head sorts the rows (again: the other way)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_runner.cli import main
from tests.browser.test_report_browser import Browser, browser  # noqa: F401  (the module's fixture)
from tests.unit.test_compare import result
from tests.unit.test_compare_grid import WINNER, write_grid

pytestmark = pytest.mark.browser

MEAN_COLUMN = 6  # candidate, brain, agent, model, verdict, mean
ROWS = "[...document.querySelectorAll('#candidates tbody tr')]"


def test_grid_page_colours_sorts_and_names_the_winner(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    manifest = write_grid(tmp_path)
    blocked = "terse-chat-m1"  # scores 0.2 everywhere: complete, and Blocked by its own gate
    (tmp_path / "out" / blocked / "result.json").write_text(result(blocked, [[0.2, 0.2]] * 10).to_json())
    page = tmp_path / "grid.html"
    assert main(["compare", "--grid", str(manifest), "--html", str(page), "--min-confidence", "0.8"]) == 0
    browser.load(page)

    assert browser.js("document.title") == f"Assay grid — {WINNER}"
    assert f"Promote {WINNER}" in browser.js("document.querySelector('.decision h2').textContent")
    assert browser.js(f"{ROWS}.length") == 8
    winner_row = browser.js("document.querySelector('#candidates tbody tr.winner th').textContent")
    assert winner_row.startswith(WINNER)
    colours = browser.js(
        f"""Object.fromEntries({ROWS}.map(r => [r.cells[0].getAttribute('data-v'),
        getComputedStyle(r.querySelector('td.v')).backgroundColor]))"""
    )
    assert colours[blocked] == "rgb(255, 235, 233)"  # --ko-bg
    assert colours[WINNER] == "rgb(218, 251, 225)"  # --ok-bg
    matrix = browser.js("document.querySelectorAll('.matrix tbody td').length")
    assert matrix == 8 and browser.js("document.querySelector('.matrix td.winner').title").startswith(WINNER)
    browser.screenshot("comparison-grid.png", full_page=True)

    head = f"#candidates thead th:nth-child({MEAN_COLUMN}) button"
    means = f"{ROWS}.map(r => parseFloat(r.cells[{MEAN_COLUMN - 1}].getAttribute('data-v')))"
    browser.click(head)
    descending = browser.js(means)
    assert descending == sorted(descending, reverse=True) and descending[0] == 1.0
    assert browser.js(f"document.querySelector('{head}').parentElement.getAttribute('aria-sort')") == (
        "descending"
    )
    browser.click(head)
    ascending = browser.js(means)
    assert ascending == sorted(ascending) and ascending[0] == pytest.approx(0.2)
    assert browser.js(f"{ROWS}[7].cells[0].getAttribute('data-v')") == WINNER
    assert browser.problems() == []
