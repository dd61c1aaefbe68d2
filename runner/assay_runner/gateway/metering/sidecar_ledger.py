"""The gateway sidecar's ledger: what the whole answer pod spent at the gateway, as the sidecar counted it.

The sidecar (`gateway.metering.sidecar`) keeps it in a directory the answer container does not mount, as two
files: `ledger.json`, the whole ledger, written whole and moved into place when the sidecar starts, hands
out its key, records a refused attempt or stops; and beside it a journal, `ledger.jsonl`, to which every
call it admits and every reply it settles appends one line — the cell's counts as they now stand (not a
difference: a line read twice changes nothing). Rewriting the whole ledger twice a call cost the sidecar
more than the rest of its hop. The whole ledger says how many bytes of the journal it already holds
(`journal_bytes`); a reader folds in the lines after them (`read_ledger`), and so does a restarted sidecar.
A last line the sidecar did not finish (it was killed while writing it) is not dropped: it is counted in
`torn`, and the judge phase blocks on it, since some call's spend is then unknown.

The judge phase reads it (`GATEWAY_LEDGER_ENV`) and reconciles it with the sealed
cells (`gateway.metering.reconcile`).

Counts are by the cell the runner named with each call; a call that reached the sidecar without the
runner's key is not forwarded, only counted under `refused`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from assay_runner.contract import SHARD_DIR, Finite, PriceConfig, Usage, WireModel

LEDGER_FILE = "ledger.json"
NO_CELL = ""
"""Where calls the runner made for no cell are counted (none today: every call of the answer phase is a
cell's)."""
MAX_REFUSALS_KEPT = 20


class SpendCount(WireModel):
    requests: int = Field(default=0, ge=0)
    """Calls forwarded (a reply came, whatever its status)."""
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cost_usd: Finite = Field(default=0.0, ge=0)
    in_flight: int = Field(default=0, ge=0)
    """Calls admitted whose reply had not ended when the ledger was written."""
    lost: int = Field(default=0, ge=0)
    """Calls in flight when the sidecar stopped or restarted: the gateway may have billed them, and they were
    never counted."""
    error: str | None = None
    """Why a reply's usage could not be counted."""

    def usage(self) -> Usage:
        """The settled calls' tokens and cost, as a result counts usage."""
        return Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens, cost_usd=self.cost_usd)


class Refusals(WireModel):
    count: int = Field(default=0, ge=0)
    """Calls that reached the sidecar without the runner's key (or asked for the key once it was taken)."""
    first: list[str] = Field(default_factory=list, max_length=MAX_REFUSALS_KEPT)
    """What the first of them asked for."""


class SidecarLedger(WireModel):
    schema_version: Literal[2] = 2
    """2: the journal (`journal_bytes`, `torn`) and the earlier attempts' spend (`spent_before`)."""
    gateway: str | None = None
    """The upstream the sidecar forwards to."""
    started_at: str
    updated_at: str
    pod: str | None = None
    """The uid of the pod whose sidecar keeps it (None outside a cluster): a restart in that pod carries on,
    another pod (a retried shard) sets it aside."""
    set_aside: list[str] = Field(default_factory=list)
    """The ledgers of earlier pods of this shard found here and moved beside it (`ledger-<pod>.json`)."""
    spent_before: Finite = Field(default=0.0, ge=0)
    """What those earlier pods spent (USD): counted against this pod's budget, which is the shard's."""
    restarts: int = Field(default=0, ge=0)
    claimed: bool = False
    """Whether the runner took the sidecar's key: it is handed out once."""
    key_digest: str | None = None
    """sha256 of the key: a restarted sidecar still knows the runner's key, and hands out no other."""
    prices: dict[str, PriceConfig] = Field(default_factory=dict)
    max_cost_usd: Finite | None = Field(default=None, gt=0)
    """The budget the runner's claim gave (the shard's): the sidecar refuses calls past it."""
    shard: tuple[int, int] | None = None
    """(index, count) of the answer pod's shard, as its claim said; None for a whole run's pod."""
    stopped: str | None = None
    """Why the sidecar admits no call any more (the budget is spent, or cannot be kept)."""
    cells: dict[str, SpendCount] = Field(default_factory=dict)
    """By cell (`<ticket>/<repetition>`), as the runner named it with each call."""
    refused: Refusals = Field(default_factory=Refusals)
    journal_bytes: int = Field(default=0, ge=0)
    """How much of the journal beside it this whole ledger already holds: a reader folds in what follows."""
    torn: int = Field(default=0, ge=0)
    """Journal lines that could not be read (the sidecar stopped while writing one): some call's spend is
    not known."""

    def spent(self) -> float:
        """What this pod's cells spent (USD)."""
        return sum(count.cost_usd for count in self.cells.values())


class JournalEntry(WireModel):
    """One line of the journal: a cell's counts as they stand after a call was admitted or settled."""

    cell: str
    count: SpendCount
    stopped: str | None = None


class LedgerUnreadable(Exception):
    """The ledger is missing or not a ledger."""


def ledger_path(directory: Path, shard: int | None = None) -> Path:
    """Where the judge phase finds the ledger of a whole run's pod, or of shard `shard`'s."""
    return (
        directory / LEDGER_FILE if shard is None else directory / SHARD_DIR.format(index=shard) / LEDGER_FILE
    )


def journal_path(path: Path) -> Path:
    """The journal beside the whole ledger at `path` (`ledger.jsonl`, `ledger-<pod>.jsonl`)."""
    return path.with_suffix(".jsonl")


def read_ledger(path: Path) -> SidecarLedger:
    """The whole ledger at `path` with the journal lines written after it folded in."""
    try:
        ledger = SidecarLedger.model_validate_json(path.read_bytes())
        return _fold(ledger, _journal_tail(path, ledger.journal_bytes))
    except FileNotFoundError:
        raise LedgerUnreadable(f"the gateway sidecar's ledger {path} is missing") from None
    except (OSError, ValidationError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LedgerUnreadable(f"the gateway sidecar's ledger {path} is not readable: {first}") from None


def _journal_tail(path: Path, start: int) -> bytes:
    journal = journal_path(path)
    try:
        with journal.open("rb") as stream:
            stream.seek(start)
            tail = stream.read()
            end = stream.tell()
    except FileNotFoundError:
        if start == 0:
            return b""  # nothing was appended yet
        raise ValueError(f"its journal {journal.name} is missing") from None
    if end < start:
        raise ValueError(f"its journal {journal.name} is shorter than the {start} bytes the ledger holds")
    return tail


def _fold(ledger: SidecarLedger, tail: bytes) -> SidecarLedger:
    """`ledger` with the journal's later lines applied: each line is its cell's latest counts."""
    if not tail:
        return ledger
    cells = dict(ledger.cells)
    stopped = ledger.stopped
    torn = 0
    *lines, rest = tail.split(b"\n")
    torn += bool(rest.strip())  # a last line without its newline: the sidecar stopped while writing it
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = JournalEntry.model_validate_json(line)
        except ValidationError:
            torn += 1
            continue
        cells[entry.cell] = entry.count
        stopped = stopped or entry.stopped
    return ledger.model_copy(update={"cells": cells, "stopped": stopped, "torn": ledger.torn + torn})


def write_ledger(path: Path, ledger: SidecarLedger) -> None:
    """Written whole, then moved into place: a reader never sees half a ledger."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(ledger.to_json(indent=1))
    os.chmod(temporary, 0o644)  # the judge container reads it (another uid, locally)
    os.replace(temporary, path)


class Journal:
    """The journal beside a whole ledger, open for appending: one write of one line per entry."""

    def __init__(self, ledger: Path) -> None:
        path = journal_path(ledger)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        os.chmod(path, 0o644)  # the judge container reads it (another uid, locally)
        self.size = os.fstat(self._fd).st_size
        """Bytes in the journal: what a whole ledger written now holds."""
        if self.size and os.pread(self._fd, 1, self.size - 1) != b"\n":
            self._write(b"\n")  # a torn last line stays torn (a reader counts it): what follows starts afresh

    def append(self, entry: JournalEntry) -> None:
        self._write(entry.to_json().encode() + b"\n")

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        self.size += len(data)

    def close(self) -> None:
        os.close(self._fd)
