"""The judge phase's check of an answers tree against the gateway sidecar's ledger (on the cluster).

Where the answer pod had a gateway sidecar, the judge is told where its ledgers are (`GATEWAY_LEDGER_ENV`),
and each tree it judges must reconcile with its own (`gateway.metering.reconcile`): a ledger that is
missing or unreadable blocks every cell of the tree (the spend cannot be accounted for), spend no sealed
cell accounts for blocks as the reconciliation says.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from assay_runner.contract import GATEWAY_LEDGER_ENV, Usage
from assay_runner.gateway.metering.reconcile import reconcile_attempts
from assay_runner.gateway.metering.sidecar_ledger import (
    LedgerUnreadable,
    SidecarLedger,
    ledger_path,
    read_ledger,
)
from assay_runner.io.answers import AnswersManifest
from assay_runner.run.cell import Answered, Cell, cell_key


@dataclass(frozen=True)
class Retried:
    """What the gateway billed for a tree beyond its sealed cells, part of the run's usage: the earlier,
    retried attempts' spend on cells answered again, and calls around the cells' proxies (`around`)."""

    usage: Usage
    unknown_calls: int
    attempts: int
    around: Usage = field(default_factory=Usage)
    """Spend the sidecar counted that no sealed cell accounts for (the judge blocks the tree for it)."""

    @property
    def extra(self) -> Usage:
        """All of it: what the run's usage adds to its cells' own."""
        return self.usage.plus(self.around)

    def note(self, shard: tuple[int, int] | None) -> str:
        where = f"answer shard {shard[0]}" if shard is not None else "the answer pod"
        notes = [self._around(where)] if self.around != Usage() else []
        if self.attempts:
            notes.append(self._retried(where))
        return "; ".join(notes)

    def _around(self, where: str) -> str:
        around = self.around
        return (
            f"the gateway sidecar of {where} counted {around.input_tokens} input and {around.output_tokens} "
            f"output tokens (${around.cost_usd:.6f}) that no sealed cell accounts for (calls around the "
            "cells' proxies, which block the verdict): billed all the same, counted in the run's usage"
        )

    def _retried(self, where: str) -> str:
        unknown = (
            f"; {self.unknown_calls} call(s) were in flight when an earlier pod ended: the gateway may have "
            "billed them, and what they spent is not known"
            if self.unknown_calls
            else ""
        )
        return (
            f"{where} was retried: {self.attempts} earlier attempt(s) spent {self.usage.input_tokens} input "
            f"and {self.usage.output_tokens} output tokens (${self.usage.cost_usd:.6f}) on answers answered "
            f"again, counted in the run's usage{unknown}"
        )


def ledgers_dir() -> Path | None:
    value = os.environ.get(GATEWAY_LEDGER_ENV)
    return Path(value) if value else None


def _blocked(answered: Answered, problem: str) -> Answered:
    """The cell as sealed (it is still judged, and its usage counted), with an error that blocks it."""
    return replace(answered, error=f"{answered.error}; {problem}" if answered.error else problem)


def read_ledgers(path: Path) -> tuple[SidecarLedger, list[SidecarLedger]]:
    """The ledger at `path` and those of the earlier attempts it set aside, beside it."""
    current = read_ledger(path)
    return current, [read_ledger(path.with_name(name)) for name in current.set_aside]


def check_sidecar_spend(
    recorded: dict[Cell, Answered],
    directory: Path,
    shard: tuple[int, int] | None,
    manifest: AnswersManifest | None,
) -> tuple[dict[Cell, Answered], Retried | None]:
    """The tree's cells, each blocked where the ledgers of its answer pods do not account for its spend; and
    what earlier attempts spent on cells answered again (None when the pod was never retried)."""
    path = ledger_path(directory, shard[0] if shard is not None else None)
    try:
        current, earlier = read_ledgers(path)
    except LedgerUnreadable as exc:
        problem = f"{exc}: what the answer pod spent at the gateway cannot be accounted for"
        return {cell: _blocked(answered, problem) for cell, answered in recorded.items()}, None
    sealed = {cell_key(*cell): answered.usage for cell, answered in recorded.items()}
    answered_by = (manifest.answered_by if manifest is not None else None) or {}
    found = reconcile_attempts(current, earlier, sealed, answered_by, shard)
    checked = {}
    for cell, answered in recorded.items():
        problems = [p for p in (found.cells.get(cell_key(*cell)), found.whole) if p is not None]
        checked[cell] = _blocked(answered, "; ".join(problems)) if problems else answered
    billed = earlier or found.around != Usage()
    retried = Retried(found.retried, found.unknown_calls, len(earlier), found.around) if billed else None
    return checked, retried
