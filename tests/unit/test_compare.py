"""Winner selection by the release rule's own reduction, and the promotion decision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Inputs, Result
from assay_runner.core.decision import decide
from assay_runner.core.result_standing import standing
from assay_runner.core.scorecard import assemble
from assay_runner.core.standing import parse_key
from assay_runner.errors import InputError
from tests.unit.builders import cfg, config, rep, tres, v

CONF = config([cfg("a", 1.0, 0.5)], min_score=0.5, ticket_floor=0.0)


def result(name: str, grid: list[list[float | None]], *, conf=CONF, suite: str = "sha256:s") -> Result:  # type: ignore[no-untyped-def]
    """grid[ticket][rep] = the judge's score; None = the cell is missing (not judged)."""
    k = max(len(row) for row in grid)
    tickets = [
        tres(
            f"T{i}",
            *[
                rep(r + 1, {"a": v(s)}) if s is not None else rep(r + 1, {}, error="no answer")
                for r, s in enumerate(row)
            ],
        )
        for i, row in enumerate(grid)
    ]
    card = assemble(tickets, conf, k)
    return Result(
        run_name=name,
        suite="s",
        inputs=Inputs(suite_digest=suite, judges_digest="sha256:j"),
        config=conf,
        **card.as_update(),
    )  # type: ignore[arg-type]


def c(name: str, grid: list[list[float | None]], **kw: object):  # type: ignore[no-untyped-def]
    return standing(name, result(name, grid, **kw))


# "lucky": passes 4 of 5 tickets once each (isolated), never twice -> high mean, 0 fully resolved.
LUCKY = [[1, 0.9, 0.9], [0.9, 1, 0.9], [0.9, 0.9, 1], [1, 0.9, 0.9], [0.1, 0.1, 0.1]]
# "steady": passes 2 tickets every time, fails the rest -> lower mean, 2 fully resolved.
STEADY = [[1, 1, 1], [1, 1, 1], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]


def test_release_key_winner_differs_from_plain_mean_winner() -> None:
    lucky, steady = c("lucky", LUCKY), c("steady", STEADY)
    assert lucky.mean > steady.mean
    assert (lucky.fully_resolved, steady.fully_resolved) == (0, 2)
    decision = decide([lucky, steady], None)
    assert decision.highest_mean == "lucky" and decision.winner == "steady" and decision.promote
    assert decision.rank_by_mean == {"lucky": 1, "steady": 2} and decision.rank_by_key == {
        "steady": 1,
        "lucky": 2,
    }
    assert any("the plain mean would pick lucky" in r for r in decision.reasons)


def test_tie_on_primary_is_broken_by_the_mean() -> None:
    a = c("a", [[1, 1], [0.6, 0.6]])
    b = c("b", [[1, 1], [0.8, 0.8]])
    decision = decide([a, b], None)
    assert decision.winner == "b"


def test_full_tie_is_reported() -> None:
    decision = decide([c("a", [[1, 1]]), c("b", [[1, 1]])], None)
    assert decision.winner == "b" and any("tied on every key with a" in r for r in decision.reasons)


def test_incomplete_candidate_is_visible_but_ineligible() -> None:
    incomplete = c("incomplete", [[1, 1], [1, None]])  # would lead on the mean of what it has
    complete = c("complete", [[1, 1], [0.6, 0.6]])
    decision = decide([incomplete, complete], None)
    assert decision.winner == "complete" and not incomplete.complete and incomplete.coverage == 0.75
    assert any("incomplete is ineligible" in r for r in decision.reasons)
    assert decision.rank_by_key["incomplete"] == 2


def test_winner_that_fails_its_own_gate_is_not_promoted() -> None:
    strict = config([cfg("a", 1.0, 0.99)], min_score=0.99, ticket_floor=0.0)
    decision = decide([c("only", [[1, 1], [0.6, 0.6]], conf=strict)], None)
    assert decision.winner == "only" and not decision.promote
    assert any("own gate verdict is Blocked" in r for r in decision.reasons)


def test_incumbent_only_matched_is_kept() -> None:
    incumbent = c("incumbent", [[1, 1], [0.6, 0.6]])
    challenger = c("challenger", [[1, 1], [0.7, 0.7]])  # same fully-resolved, better mean
    decision = decide([challenger], incumbent)
    assert decision.winner == "challenger" and not decision.promote
    assert any("only matches it on fully-resolved" in r for r in decision.reasons)
    assert decide([challenger], incumbent, on_tie="full-key").promote


def test_incumbent_beaten_is_replaced() -> None:
    decision = decide([c("new", [[1, 1], [1, 1]])], c("old", [[1, 1], [0.6, 0.6]]))
    assert decision.promote and any("beats the incumbent's 1" in r for r in decision.reasons)


def test_key_may_only_name_gate_reductions() -> None:
    assert parse_key("mean,lowest-ticket") == ("mean", "lowest-ticket")
    with pytest.raises(InputError, match="unknown: vibes"):
        parse_key("vibes")


def test_different_tickets_are_not_comparable() -> None:
    with pytest.raises(InputError, match="other tickets"):
        decide([c("a", [[1]]), c("b", [[1], [1]])], None)
    with pytest.raises(InputError, match="different suites"):
        decide([c("a", [[1]]), c("b", [[1]], suite="sha256:other")], None)


def write(tmp_path: Path, name: str, grid: list[list[float | None]]) -> str:
    folder = tmp_path / name
    folder.mkdir()
    data = result(name, grid).to_wire()
    data["runName"] = None  # named by the folder
    (folder / "result.json").write_text(json.dumps(data))
    return str(folder / "result.json")


def test_cli_json_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lucky, steady = write(tmp_path, "lucky", LUCKY), write(tmp_path, "steady", STEADY)
    assert main(["compare", lucky, steady, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["highestMean"], out["winner"], out["promote"]) == ("lucky", "steady", True)
    assert {
        "name",
        "mean",
        "passRate",
        "passAtK",
        "passHatK",
        "fullyResolved",
        "coverage",
        "verdict",
        "rankByKey",
        "rankByMean",
    } <= set(out["candidates"][0])
    assert main(["compare", lucky, "--incumbent", steady]) == 1
    assert main(["compare", lucky, "--key", "vibes"]) == 2
    assert main(["compare", str(tmp_path / "nope.json")]) == 2


def test_incomplete_incumbent_is_not_beaten_by_default() -> None:
    # The incumbent lost a cell (its run was cut short): a lower count for want of data is no improvement.
    decision = decide([c("new", [[1, 1], [1, 1]])], c("old", [[1, 1], [1, None]]))
    assert decision.winner == "new" and not decision.promote
    assert any("incumbent old's evaluation is incomplete" in r for r in decision.reasons)


def test_every_label_is_stated_even_when_they_agree() -> None:
    decision = decide([c("a", [[1, 1], [1, 1]]), c("b", [[1, 1], [0.6, 0.6]])], None)
    assert (decision.highest_mean, decision.winner, decision.promote) == ("a", "a", True)
    assert [r.split(":")[0] for r in decision.reasons] == ["highest mean", "release-key winner", "promote a"]


def test_key_names_each_reduction_once() -> None:
    with pytest.raises(InputError, match="named twice"):
        parse_key("mean,mean")
    assert parse_key(["judges-passing", "mean"]) == ("judges-passing", "mean")
