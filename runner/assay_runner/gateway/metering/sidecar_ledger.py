"""The gateway sidecar's ledger: what the whole answer pod spent at the gateway, as the sidecar counted it.

The sidecar (`gateway.metering.sidecar`) writes it into a directory the answer container does not mount,
after every call it admits and every reply it settles (written whole, then moved into place), and reads it
back when it restarts. The judge phase reads it (`GATEWAY_LEDGER_ENV`) and reconciles it with the sealed
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

from assay_runner.contract import SHARD_DIR, Finite, PriceConfig, WireModel

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


class Refusals(WireModel):
    count: int = Field(default=0, ge=0)
    """Calls that reached the sidecar without the runner's key (or asked for the key once it was taken)."""
    first: list[str] = Field(default_factory=list, max_length=MAX_REFUSALS_KEPT)
    """What the first of them asked for."""


class SidecarLedger(WireModel):
    schema_version: Literal[1] = 1
    gateway: str | None = None
    """The upstream the sidecar forwards to."""
    started_at: str
    updated_at: str
    pod: str | None = None
    """The uid of the pod whose sidecar keeps it (None outside a cluster): a restart in that pod carries on,
    another pod (a retried shard) sets it aside."""
    set_aside: list[str] = Field(default_factory=list)
    """The ledgers of earlier pods of this shard found here and moved beside it (`ledger-<pod>.json`)."""
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


class LedgerUnreadable(Exception):
    """The ledger is missing or not a ledger."""


def ledger_path(directory: Path, shard: int | None = None) -> Path:
    """Where the judge phase finds the ledger of a whole run's pod, or of shard `shard`'s."""
    return (
        directory / LEDGER_FILE if shard is None else directory / SHARD_DIR.format(index=shard) / LEDGER_FILE
    )


def read_ledger(path: Path) -> SidecarLedger:
    try:
        return SidecarLedger.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise LedgerUnreadable(f"the gateway sidecar's ledger {path} is missing") from None
    except (OSError, ValidationError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LedgerUnreadable(f"the gateway sidecar's ledger {path} is not readable: {first}") from None


def write_ledger(path: Path, ledger: SidecarLedger) -> None:
    """Written whole, then moved into place: a reader never sees half a ledger."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(ledger.to_json(indent=1))
    os.chmod(temporary, 0o644)  # the judge container reads it (another uid, locally)
    os.replace(temporary, path)
