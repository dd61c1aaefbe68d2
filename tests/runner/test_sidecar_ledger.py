"""The gateway sidecar's ledger as files: the whole ledger, the journal appended to after it, and a journal
whose last line the sidecar did not finish (killed while writing it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay_runner.contract import POD_UID_ENV
from assay_runner.gateway.metering.reconcile import reconcile
from assay_runner.gateway.metering.sidecar import GatewaySidecar
from assay_runner.gateway.metering.sidecar_ledger import (
    LEDGER_FILE,
    Journal,
    JournalEntry,
    LedgerUnreadable,
    SidecarLedger,
    SpendCount,
    journal_path,
    read_ledger,
    write_ledger,
)


def _entry(cell: str, requests: int, in_flight: int = 0) -> JournalEntry:
    count = SpendCount(requests=requests, input_tokens=100 * requests, output_tokens=10 * requests)
    return JournalEntry(cell=cell, count=count.model_copy(update={"in_flight": in_flight}))


def _started(path: Path) -> Journal:
    journal = Journal(path)
    write_ledger(path, SidecarLedger(started_at="t0", updated_at="t0", journal_bytes=journal.size))
    return journal


def test_the_journal_after_the_whole_ledger_is_folded_in_each_line_a_cells_latest_counts(
    tmp_path: Path,
) -> None:
    path = tmp_path / LEDGER_FILE
    journal = _started(path)
    journal.append(_entry("T-1/1", 0, in_flight=1))
    journal.append(_entry("T-2/1", 0, in_flight=1))
    journal.append(_entry("T-1/1", 1))
    ledger = read_ledger(path)
    assert ledger.cells["T-1/1"] == SpendCount(requests=1, input_tokens=100, output_tokens=10)
    assert ledger.cells["T-2/1"].in_flight == 1 and ledger.torn == 0
    # A whole ledger written now holds all of it: the lines before its offset are not applied again.
    write_ledger(path, ledger.model_copy(update={"journal_bytes": journal.size}))
    journal.append(_entry("T-2/1", 1))
    again = read_ledger(path)
    assert again.cells["T-1/1"].requests == 1 and again.cells["T-2/1"] == _entry("T-2/1", 1).count
    journal.close()


def test_a_torn_last_line_is_counted_and_blocks_the_tree_it_is_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    journal = _started(path)
    journal.append(_entry("T-1/1", 1))
    journal.close()
    with journal_path(path).open("ab") as stream:  # the sidecar was killed in the middle of a line
        stream.write(_entry("T-1/1", 2).to_json().encode()[:25])
    ledger = read_ledger(path)
    assert ledger.torn == 1
    assert ledger.cells["T-1/1"].requests == 1  # what the whole lines say, no more
    found = reconcile(ledger, {"T-1/1": None}, None)
    assert found.whole is not None and "could not be read" in found.whole


def test_a_sidecar_restarted_on_a_torn_journal_keeps_it_on_record_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(POD_UID_ENV, raising=False)
    folder = tmp_path / "ledger"
    path = folder / LEDGER_FILE
    journal = _started(path)
    journal.append(_entry("T-1/1", 1, in_flight=1))
    journal.close()
    with journal_path(path).open("ab") as stream:
        stream.write(b'{"cell": "T-1/1", "cou')

    async def life() -> None:
        async with GatewaySidecar(tmp_path / "s.sock", folder, "http://127.0.0.1:9/v1", None):
            pass

    asyncio.run(life())
    ledger = read_ledger(path)
    assert (ledger.torn, ledger.restarts) == (1, 1)
    assert ledger.cells["T-1/1"].lost == 1  # the call in flight when it stopped
    assert journal_path(path).read_bytes().endswith(b"\n")  # what is appended next is a line of its own
    asyncio.run(life())
    assert read_ledger(path).torn == 1  # the same torn line, not counted again


def test_a_journal_missing_behind_a_ledger_that_holds_some_of_it_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    journal = _started(path)
    journal.append(_entry("T-1/1", 1))
    write_ledger(path, read_ledger(path).model_copy(update={"journal_bytes": journal.size}))
    journal.close()
    journal_path(path).unlink()
    with pytest.raises(LedgerUnreadable, match="missing"):
        read_ledger(path)


def test_spend_around_the_cells_is_in_the_runs_usage_and_named(tmp_path: Path) -> None:
    from assay_runner.io.answers import AnswersManifest  # noqa: F401  (the reader's types)
    from assay_runner.run.cell import Answered
    from assay_runner.run.sidecar_spend import check_sidecar_spend

    path = tmp_path / LEDGER_FILE
    journal = _started(path)
    journal.append(_entry("T-1/1", 1))
    journal.append(_entry("", 3))  # a cell's stolen key: calls for no cell
    journal.close()
    sealed = Answered(answer="a", exit_code=0, error=None, usage=_entry("T-1/1", 1).count.usage())
    checked, billed = check_sidecar_spend({("T-1", 1): sealed}, tmp_path, None, None)
    assert checked[("T-1", 1)].error is not None and "for no cell" in checked[("T-1", 1)].error
    assert billed is not None and billed.attempts == 0
    assert (billed.extra.input_tokens, billed.extra.output_tokens) == (300, 30)
    assert "counted 300 input and 30 output tokens" in billed.note(None) and "run's usage" in billed.note(
        None
    )
