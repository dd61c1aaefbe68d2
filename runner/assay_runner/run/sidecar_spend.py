"""The judge phase's check of an answers tree against the gateway sidecar's ledger (on the cluster).

Where the answer pod had a gateway sidecar, the judge is told where its ledgers are (`GATEWAY_LEDGER_ENV`),
and each tree it judges must reconcile with its own (`gateway.metering.reconcile`): a ledger that is
missing or unreadable blocks every cell of the tree (the spend cannot be accounted for), spend no sealed
cell accounts for blocks as the reconciliation says.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from assay_runner.contract import GATEWAY_LEDGER_ENV
from assay_runner.gateway.metering.reconcile import reconcile
from assay_runner.gateway.metering.sidecar_ledger import LedgerUnreadable, ledger_path, read_ledger
from assay_runner.run.cell import Answered, Cell, cell_key


def ledgers_dir() -> Path | None:
    value = os.environ.get(GATEWAY_LEDGER_ENV)
    return Path(value) if value else None


def _blocked(answered: Answered, problem: str) -> Answered:
    """The cell as sealed (it is still judged, and its usage counted), with an error that blocks it."""
    return replace(answered, error=f"{answered.error}; {problem}" if answered.error else problem)


def check_sidecar_spend(
    recorded: dict[Cell, Answered], directory: Path, shard: tuple[int, int] | None
) -> dict[Cell, Answered]:
    """The tree's cells, each blocked where the ledger of its answer pod does not account for its spend."""
    path = ledger_path(directory, shard[0] if shard is not None else None)
    try:
        ledger = read_ledger(path)
    except LedgerUnreadable as exc:
        problem = f"{exc}: what the answer pod spent at the gateway cannot be accounted for"
        return {cell: _blocked(answered, problem) for cell, answered in recorded.items()}
    sealed = {cell_key(*cell): answered.usage for cell, answered in recorded.items()}
    found = reconcile(ledger, sealed, shard)
    checked = {}
    for cell, answered in recorded.items():
        problems = [p for p in (found.cells.get(cell_key(*cell)), found.whole) if p is not None]
        checked[cell] = _blocked(answered, "; ".join(problems)) if problems else answered
    return checked
