"""Reconciling a tree's sealed usage with the gateway sidecar's ledger, as a table."""

from __future__ import annotations

import pytest

from assay_runner.contract import Usage
from assay_runner.gateway.metering.reconcile import AROUND, reconcile
from assay_runner.gateway.metering.sidecar_ledger import Refusals, SidecarLedger, SpendCount


def ledger(**fields: object) -> SidecarLedger:
    return SidecarLedger.model_validate({"startedAt": "t", "updatedAt": "t", "claimed": True, **fields})


SEALED = {
    "T-1/1": Usage(input_tokens=100, output_tokens=20),
    "T-2/1": Usage(input_tokens=50, output_tokens=5),
}
UNCOUNTED = SpendCount(requests=1, error="no usage")
REFUSED = Refusals(count=2, first=["POST /v1/chat/completions: no key"])


@pytest.mark.parametrize(
    ("book", "whole", "cells"),
    [
        (ledger(cells={"T-1/1": SpendCount(requests=1, input_tokens=100, output_tokens=20)}), None, {}),
        # Replayed exchanges never reach the sidecar: less than sealed is no problem.
        (ledger(), None, {}),
        (
            ledger(cells={"T-2/1": SpendCount(requests=2, input_tokens=50, output_tokens=6)}),
            None,
            {"T-2/1": "counted 50 input and 6 output tokens in 2 call(s) for this cell"},
        ),
        (ledger(cells={"T-1/1": SpendCount(in_flight=1)}), None, {"T-1/1": "in flight"}),
        (ledger(cells={"T-1/1": SpendCount(lost=1)}), None, {"T-1/1": "in flight"}),
        (ledger(cells={"T-1/1": UNCOUNTED}), None, {"T-1/1": "could not count"}),
        (ledger(cells={"": SpendCount(requests=1, input_tokens=1)}), "for no cell", {}),
        (ledger(cells={"T-3/1": SpendCount(requests=1)}), "'T-3/1', which is no cell of this tree", {}),
        (ledger(cells={"T-3/1": SpendCount()}), None, {}),  # named, never spent: nothing to account for
        (ledger(refused=REFUSED), "without the runner's key", {}),
        (ledger(shard=(1, 2)), "ledger is shard (1, 2)'s", {}),
    ],
    ids=[
        "equal", "replayed", "more", "in-flight", "lost", "uncounted", "no-cell", "other-cell",
        "other-cell-idle", "refused", "other-shard",
    ],
)  # fmt: skip
def test_reconcile(book: SidecarLedger, whole: str | None, cells: dict[str, str]) -> None:
    found = reconcile(book, SEALED, None)
    if whole is None:
        assert found.whole is None
    else:
        assert found.whole is not None and whole in found.whole
    assert set(found.cells) == set(cells)
    for cell, text in cells.items():
        assert text in found.cells[cell]
    if "counted" in str(cells) or (whole and "no cell" in whole) or (whole and "key" in whole):
        assert AROUND in (found.whole or "") + "".join(found.cells.values())
