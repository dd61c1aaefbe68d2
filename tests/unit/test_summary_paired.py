"""The RunSummary's per-ticket figures (what a Campaign's paired tests read from an Evaluation's status)."""

from __future__ import annotations

import hashlib

from assay_runner.contract import RunSummary
from assay_runner.core.summary import encode, summarise
from tests.unit.test_summary import big_result


def test_per_ticket_figures_in_sorted_ticket_order() -> None:
    result = big_result(30, 2)
    summary = summarise(result)
    assert summary.paired is not None  # kept while only the failing tickets list is shortened
    ids = sorted(t.id for t in result.tickets)
    assert summary.paired.tickets_digest == "sha256:" + hashlib.sha256("\n".join(ids).encode()).hexdigest()
    by_id = {t.id: t for t in result.tickets}
    assert summary.paired.scores == [round(by_id[i].score, 4) for i in ids]
    assert summary.paired.resolved == "".join("1" if by_id[i].passed else "0" for i in ids)
    assert RunSummary.model_validate_json(encode(summary)).paired == summary.paired


def test_per_ticket_figures_give_way_when_they_do_not_fit() -> None:
    summary = summarise(big_result(900, 3))
    assert len(encode(summary)) <= 4096
    assert summary.paired is None and summary.truncated
    assert summary.judges  # the judges' means (the regression rule's input) are kept before them
