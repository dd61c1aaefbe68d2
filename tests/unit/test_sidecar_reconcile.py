"""Reconciling a tree's sealed usage with the gateway sidecar's ledger, as a table."""

from __future__ import annotations

import pytest

from assay_runner.contract import Usage
from assay_runner.gateway.metering.reconcile import AROUND, reconcile, reconcile_attempts
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


# --- a retried answer pod: its earlier attempts' ledgers beside the current one --------------------------

ONE_CALL = SpendCount(requests=1, input_tokens=100, output_tokens=20, cost_usd=0.2)


def pod(uid: str, **fields: object) -> SidecarLedger:
    return ledger(pod=uid, **fields)


def test_an_earlier_attempts_spend_on_cells_answered_again_is_counted_not_blocked() -> None:
    # pod-a was killed after T-1's first call and with one more in flight; pod-b answered both cells.
    killed = pod("pod-a", cells={"T-1/1": ONE_CALL.model_copy(update={"requests": 2, "in_flight": 1})})
    current = pod(
        "pod-b", cells={"T-1/1": ONE_CALL, "T-2/1": SpendCount(requests=1, input_tokens=50, output_tokens=5)}
    )
    answered_by = {"T-1/1": "pod-b", "T-2/1": "pod-b"}
    found = reconcile_attempts(current, [killed], SEALED, answered_by, None)
    assert (found.whole, found.cells) == (None, {})
    assert found.retried == Usage(input_tokens=100, output_tokens=20, cost_usd=0.2)
    assert found.unknown_calls == 1  # in flight when pod-a was killed: billed or not, no one knows


def test_a_kept_cell_is_reconciled_with_the_ledger_of_the_attempt_that_answered_it() -> None:
    # pod-a answered T-1 (kept by pod-b's resumed phase) and began T-2, which pod-b answered again.
    earlier = pod("pod-a", cells={"T-1/1": ONE_CALL, "T-2/1": ONE_CALL})
    current = pod("pod-b", cells={"T-2/1": SpendCount(requests=1, input_tokens=50, output_tokens=5)})
    answered_by = {"T-1/1": "pod-a", "T-2/1": "pod-b"}
    found = reconcile_attempts(current, [earlier], SEALED, answered_by, None)
    assert (found.whole, found.cells) == (None, {})
    assert found.retried == Usage(input_tokens=100, output_tokens=20, cost_usd=0.2)  # pod-a's T-2 only
    # Taken for the current pod's, T-1's count in pod-a's ledger would be spend on an answer thrown away,
    # and the kept cell's own spend would be unaccounted for: the attribution is what makes the sum right.
    wrong = reconcile_attempts(current, [earlier], SEALED, {}, None)
    assert wrong.retried == Usage(input_tokens=200, output_tokens=40, cost_usd=0.4)


@pytest.mark.parametrize(
    ("earlier", "answered_by", "whole", "cells"),
    [
        # A kept cell's spend is checked against its own attempt's ledger as the current one's is.
        (pod("pod-a", cells={"T-1/1": ONE_CALL.model_copy(update={"output_tokens": 21})}), {"T-1/1": "pod-a"},
         None, {"T-1/1": "counted 100 input and 21 output tokens"}),
        # Going around the proxy in an earlier attempt blocks as it does in the current one.
        (pod("pod-a", refused=REFUSED), {}, "without the runner's key", {}),
        (pod("pod-a", cells={"T-7/1": ONE_CALL}), {}, "'T-7/1', which is no cell of this tree", {}),
        # A cell said to be answered by a pod whose ledger is not here cannot be accounted for.
        (pod("pod-a"), {"T-2/1": "pod-z"}, None, {"T-2/1": "answered by pod pod-z"}),
        # A torn line in a ledger whose attempt left kept answers: their spend is not known, they block.
        (pod("pod-a", cells={"T-1/1": ONE_CALL}, torn=1), {"T-1/1": "pod-a"}, "could not be read", {}),
    ],
    ids=["kept-more", "earlier-refused", "earlier-other-cell", "unknown-pod", "torn-with-kept"],
)  # fmt: skip
def test_what_blocks_in_an_earlier_attempts_ledger(
    earlier: SidecarLedger, answered_by: dict[str, str], whole: str | None, cells: dict[str, str]
) -> None:
    current = pod(
        "pod-b", cells={"T-1/1": ONE_CALL, "T-2/1": SpendCount(requests=1, input_tokens=50, output_tokens=5)}
    )
    answered = {cell: answered_by.get(cell, "pod-b") for cell in SEALED}
    if answered.get("T-1/1") == "pod-a":
        current = pod("pod-b", cells={"T-2/1": SpendCount(requests=1, input_tokens=50, output_tokens=5)})
    found = reconcile_attempts(current, [earlier], SEALED, answered, None)
    if whole is None:
        assert found.whole is None, found.whole
    else:
        assert found.whole is not None and whole in found.whole
    assert set(found.cells) == set(cells), found.cells
    for cell, text in cells.items():
        assert text in found.cells[cell]


def test_a_torn_line_in_an_attempt_none_of_whose_answers_are_kept_is_unknown_spend_not_a_block() -> None:
    killed = pod("pod-a", cells={"T-1/1": ONE_CALL}, torn=1)
    current = pod(
        "pod-b", cells={"T-1/1": ONE_CALL, "T-2/1": SpendCount(requests=1, input_tokens=50, output_tokens=5)}
    )
    found = reconcile_attempts(current, [killed], SEALED, {}, None)
    assert (found.whole, found.cells, found.unknown_calls) == (None, {}, 1)


def test_spend_no_sealed_cell_accounts_for_blocks_and_is_still_billed() -> None:
    """The judge blocks a tree for calls around its cells' proxies; the run's usage still counts them (the
    gateway billed them), beside the cells' own: for no cell, for a name that is no cell, beyond a record."""
    book = ledger(
        cells={
            "": SpendCount(requests=3, input_tokens=3000, output_tokens=300, cost_usd=0.54),
            "T-9/1": SpendCount(requests=1, input_tokens=100, output_tokens=10, cost_usd=0.02),
            "T-2/1": SpendCount(requests=2, input_tokens=80, output_tokens=9, cost_usd=0.05),
            "T-1/1": SpendCount(requests=1, input_tokens=100, output_tokens=20, cost_usd=0.1),
        }
    )
    sealed = {**SEALED, "T-2/1": Usage(input_tokens=50, output_tokens=5, cost_usd=0.03)}  # T-1/1: as counted
    found = reconcile(book, sealed, None)
    assert found.whole is not None and AROUND in found.whole
    assert found.around == Usage(input_tokens=3000 + 100 + 30, output_tokens=300 + 10 + 4, cost_usd=0.58)
    attempts = reconcile_attempts(book, [], sealed, {}, None)
    assert attempts.around == found.around
