"""`assay compare --grid`: a grid manifest of result files, the paired figures in --json and the terminal,
the optional rules on the command line, and the comparison page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.core.grid import cells
from assay_runner.errors import InputError
from tests.unit.test_compare import result

AXES = {"brain": ["terse", "cited"], "agent": ["chat", "opencode"], "model": ["m1", "m2"]}
WINNER = "cited-chat-m2"


def ticket_grid(resolved: int, tickets: int = 10) -> list[list[float | None]]:
    """`resolved` tickets pass both repetitions; the rest score 0.5."""
    return [[1.0, 1.0] if i < resolved else [0.5, 0.5] for i in range(tickets)]


def write_grid(tmp_path: Path, *, incumbent: bool = True) -> Path:
    for index, cell in enumerate(cells(AXES)):
        folder = tmp_path / "out" / cell.name
        folder.mkdir(parents=True)
        resolved = 10 if cell.name == WINNER else index % 4 + 2
        (folder / "result.json").write_text(result(cell.name, ticket_grid(resolved)).to_json())
    if incumbent:
        (tmp_path / "out" / "live").mkdir()
        (tmp_path / "out" / "live" / "result.json").write_text(result("live", ticket_grid(3)).to_json())
    manifest = tmp_path / "grid.yaml"
    manifest.write_text(
        "axes:\n  brain: [terse, cited]\n  agent: [chat, opencode]\n  model: [m1, m2]\n"
        "results: out/{brain}-{agent}-{model}/result.json\n"
        + ("incumbent: out/live/result.json\n" if incumbent else "")
    )
    return manifest


def test_cells_are_the_product_of_the_axes() -> None:
    grid = cells(AXES)
    assert len(grid) == 8 and grid[0].name == "terse-chat-m1" and grid[-1].name == "cited-opencode-m2"
    assert grid[1].coordinates == {"brain": "terse", "agent": "chat", "model": "m2"}
    with pytest.raises(InputError, match="names a value twice"):
        cells({"brain": ["a", "a"]})
    with pytest.raises(InputError, match="lowercase"):
        cells({"brain": ["Bad Name"]})
    with pytest.raises(InputError, match="at most 256"):
        cells({"a": [str(i) for i in range(20)], "b": [str(i) for i in range(20)]})


def test_grid_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = write_grid(tmp_path)
    assert main(["compare", "--grid", str(manifest), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winner"] == WINNER and out["promote"]
    assert out["grid"]["axes"] == AXES and out["grid"]["cells"][WINNER] == {
        "brain": "cited",
        "agent": "chat",
        "model": "m2",
    }
    assert len(out["candidates"]) == 8 and out["incumbent"]["name"] == "live"
    row = next(r for r in out["candidates"] if r["name"] == WINNER)
    vs = row["vsIncumbent"]
    # 7 tickets gained, none lost: McNemar p = 2 / 2^7; the scores rose by 0.5 on those 7 tickets.
    assert vs["fullyResolved"] == {
        "gained": 7,
        "lost": 0,
        "effect": 0.7,
        "ciLow": pytest.approx(vs["fullyResolved"]["ciLow"]),
        "ciHigh": 1.0,
        "pValue": pytest.approx(2 / 128),
    }
    assert vs["scores"]["effect"] == pytest.approx(0.35) and vs["scores"]["exact"]
    assert vs["decidingTest"] == "fullyResolved"
    assert vs["adjustedPValue"] >= vs["fullyResolved"]["pValue"]  # Holm over the eight candidates


def test_grid_rules_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = write_grid(tmp_path)
    # Eight candidates: Holm multiplies the winner's p (2/128) by 8 -> confidence 0.875 < 0.95.
    assert main(["compare", "--grid", str(manifest), "--min-confidence", "0.95", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert not out["promote"] and any("may be noise" in r for r in out["reasons"])
    assert out["rules"]["minConfidence"] == 0.95
    assert main(["compare", "--grid", str(manifest), "--min-confidence", "0.8"]) == 0
    table = capsys.readouterr().out
    assert "Δ score" in table and "+0.350" in table and "Holm-adjusted over 8" in table
    assert main(["compare", "--grid", str(manifest), "--min-confidence", "1.5"]) == 2


def test_grid_errors_name_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = write_grid(tmp_path)
    (tmp_path / "out" / "terse-chat-m1" / "result.json").unlink()
    assert main(["compare", "--grid", str(manifest)]) == 2
    assert "terse-chat-m1/result.json" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("axes: {brain: [a, b]}\nresults: out/{agent}/result.json\n")
    assert main(["compare", "--grid", str(bad)]) == 2
    assert "names no axis: ['agent']" in capsys.readouterr().err
    bad.write_text("axes: {brain: [a, b], model: [x]}\nresults: out/{brain}/result.json\n")
    assert main(["compare", "--grid", str(bad)]) == 2
    assert "must use every axis" in capsys.readouterr().err
    assert main(["compare", "--grid", str(manifest), str(manifest)]) == 2


def test_grid_page(tmp_path: Path) -> None:
    manifest = write_grid(tmp_path)
    page = tmp_path / "grid.html"
    assert main(["compare", "--grid", str(manifest), "--html", str(page), "--max-judge-drop", "0.05"]) == 0
    html = page.read_text()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert html.count("<tr") >= 8 + 1 + 1 + 2  # the candidates, the incumbent, the heads, the matrix rows
    assert f"{WINNER} ★ winner" in html and "Promote " + WINNER in html
    assert 'class="matrix"' in html


def test_page_escapes_names(tmp_path: Path) -> None:
    from assay_runner.core.decision import decide
    from assay_runner.core.decision_report import report_of
    from assay_runner.core.standing import Standing
    from assay_runner.views.report.comparison import GridLayout, render_comparison

    evil = "<img src=x onerror=alert(1)>"
    standing = Standing(
        name=evil,
        verdict="Pass",
        mean=0.5,
        lowest_ticket=0.5,
        judges_passing=1,
        complete=True,
        coverage=1.0,
        pass_rate=0.5,
        pass_at_k=0.5,
        pass_hat_k=0.5,
        fully_resolved=1,
        tickets=2,
        k=1,
        suite_digest="sha256:s",
    )
    report = report_of(decide([standing], None, ("mean",)))
    html = render_comparison(
        report, GridLayout(axes={evil: [evil], "b": [evil]}, cells={evil: {evil: evil, "b": evil}})
    )
    assert any(evil in reason for reason in report.reasons)  # the page must escape what it shows
    assert "<img" not in html and "&lt;img src=x" in html
