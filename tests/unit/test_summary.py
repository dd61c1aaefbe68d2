"""The RunSummary always fits a termination message and always parses."""

from __future__ import annotations

from assay_runner.contract import Inputs, Result, RunSummary
from assay_runner.core.scorecard import assemble
from assay_runner.core.summary import encode, summarise
from tests.unit.builders import cfg, config, rep, tres, v


def big_result(tickets: int, judges: int) -> Result:
    names = [f"judge_with_a_rather_long_name_{i}" for i in range(judges)]
    conf = config([cfg(n, 1.0) for n in names])
    cells = [
        tres(f"TICKET-WITH-A-LONG-IDENTIFIER-{i:05d}", rep(1, {n: v(0.1) for n in names}))
        for i in range(tickets)
    ]
    card = assemble(cells, conf, 1)
    return Result(
        suite="s",
        inputs=Inputs(suite_digest="sha256:" + "0" * 64, judges_digest="sha256:" + "1" * 64),
        config=conf,
        **card.as_update(),
    )  # type: ignore[arg-type]


def test_small_result_is_not_truncated() -> None:
    summary = summarise(big_result(3, 2))
    assert not summary.truncated and len(summary.failing_tickets) == 3


def test_huge_result_still_fits_and_parses() -> None:
    summary = summarise(big_result(500, 40))
    data = encode(summary)
    assert len(data) <= 4096
    parsed = RunSummary.model_validate_json(data)
    assert parsed.truncated and parsed.verdict == "Blocked" and parsed.counts.tickets == 500
