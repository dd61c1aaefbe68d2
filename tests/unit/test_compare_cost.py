"""Cost in the release key: the cheaper of two equally good candidates wins when the key names `cost`, and
cost is shown per candidate (`assay compare`'s table, --json and the comparison page)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result, Usage
from assay_runner.core.decision import decide
from assay_runner.core.result_standing import standing
from assay_runner.core.standing import parse_key
from assay_runner.errors import InputError
from tests.unit.test_compare import result

GOOD = [[1, 1], [1, 1], [0.6, 0.6]]
"""Two tickets resolved every time, one not: the same for both candidates."""
COST_KEY = ("fully-resolved", "mean", "cost")


def priced(name: str, cost_usd: float, grid: list[list[float | None]] = GOOD) -> Result:
    """A result whose only difference from its twin is what its run cost."""
    run = result(name, grid)
    return run.model_copy(update={"usage": Usage(input_tokens=1000, output_tokens=200, cost_usd=cost_usd)})


def test_the_cheaper_of_two_equally_resolved_candidates_wins_on_a_cost_key() -> None:
    cheap, dear = standing("cheap", priced("cheap", 0.0100)), standing("dear", priced("dear", 0.0250))
    assert cheap.key(("fully-resolved", "mean")) == dear.key(("fully-resolved", "mean"))

    # Without cost in the key they tie on every reduction, and the name decides ("dear" > "cheap").
    untold = decide([cheap, dear], None)
    assert untold.winner == "dear" and any("tied on every key with cheap" in r for r in untold.reasons)

    decision = decide([cheap, dear], None, key=COST_KEY)
    assert (decision.winner, decision.promote) == ("cheap", True)
    assert decision.rank_by_key == {"cheap": 1, "dear": 2}
    assert any(r.startswith("release-key winner: cheap (") and "cost $0.0100" in r for r in decision.reasons)
    assert not any("tied" in r for r in decision.reasons)


def test_cost_breaks_ties_only() -> None:
    """A better candidate that costs more still wins: cost is read after the reductions of quality."""
    better = standing("better", priced("better", 0.05, [[1, 1], [1, 1], [1, 1]]))
    cheaper = standing("cheaper", priced("cheaper", 0.01))
    assert decide([better, cheaper], None, key=COST_KEY).winner == "better"
    with pytest.raises(InputError, match="cost only breaks ties"):
        parse_key("cost,mean")
    assert parse_key("fully-resolved,mean,cost") == COST_KEY


def test_a_cost_not_known_ranks_last_on_cost() -> None:
    known = standing("known", priced("known", 0.9))
    unknown = replace(standing("unknown", priced("unknown", 0.0)), cost_usd=None)
    decision = decide([known, unknown], None, key=COST_KEY)
    assert decision.winner == "known"


def test_a_total_edited_below_its_cells_does_not_make_a_candidate_cheaper() -> None:
    run = priced("edited", 0.001)
    cells = [
        t.model_copy(
            update={
                "repetitions": [
                    r.model_copy(update={"usage": Usage(input_tokens=10, output_tokens=1, cost_usd=0.01)})
                    for r in t.repetitions
                ]
            }
        )
        for t in run.tickets
    ]
    assert standing("edited", run.model_copy(update={"tickets": cells})).cost_usd == pytest.approx(0.06)


def _write(tmp_path: Path, name: str, cost_usd: float) -> str:
    folder = tmp_path / name
    folder.mkdir()
    data = priced(name, cost_usd).to_wire()
    data["runName"] = None  # named by the folder
    (folder / "result.json").write_text(json.dumps(data))
    return str(folder / "result.json")


def test_compare_shows_each_candidates_cost_and_decides_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cheap, dear = _write(tmp_path, "cheap", 0.0100), _write(tmp_path, "dear", 0.0250)
    page = tmp_path / "compare.html"
    key = ",".join(COST_KEY)
    assert main(["compare", dear, cheap, "--key", key, "--json", "--html", str(page)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["key"], out["winner"], out["promote"]) == (list(COST_KEY), "cheap", True)
    rows = {row["name"]: row for row in out["candidates"]}
    assert (rows["cheap"]["costUsd"], rows["dear"]["costUsd"]) == (0.01, 0.025)
    assert (rows["cheap"]["key"]["cost"], rows["cheap"]["rankByKey"], rows["dear"]["rankByKey"]) == (
        0.01,
        1,
        2,
    )

    html = page.read_text()
    assert '<button type="button">cost</button>' in html
    assert 'data-v="0.01">$0.0100</td>' in html and 'data-v="0.025">$0.0250</td>' in html
    assert "release-key winner: <b>cheap</b>" in html

    assert main(["compare", dear, cheap, "--key", key]) == 0
    table = capsys.readouterr().out
    assert "$0.0100" in table and "$0.0250" in table and "release-key winner: cheap" in table
    assert main(["compare", dear, cheap, "--key", "cost,mean"]) == 2
    assert "cost only breaks ties" in capsys.readouterr().err
