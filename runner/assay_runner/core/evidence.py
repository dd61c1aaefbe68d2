"""Evidence authenticated by a key no agent holds: HMAC-SHA256 under a per-run evidence key.

A digest proves nothing about who made it: an agent (or anyone with the files) can recompute a sha256 after
editing what it covers. So what a verdict rests on is MACed under the run's evidence key — 32 random bytes
made for one run and held only by the runner and the judge side (where it lives: `io.evidence_keys`,
docs/trust-model.md):

- each cell's seal (a MAC per file of the cell, bound to the cell's name: `run.seal`);
- the answers tree's manifest (`treeDigest`: a MAC over the whole canonical manifest);
- each cell's seal record, written as the cell is sealed for a killed phase's retry (`io.seal_records`);
- result.json (`evidence`: a MAC per cell, so a failure names the cell, and one over the whole result).

Every MAC is domain-separated by a label of its kind, so one kind of evidence can never stand for another,
and compared in constant time. The key is named by `keyId`, derived from it (a lookup id, not a secret): a
tree or result made under another run's key is told apart from one edited under this one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

from assay_runner.contract import Result, ResultEvidence

KEY_BYTES = 32
SHOWN_CELLS = 5
MAC_PREFIX = "hmac-sha256:"


class Label(StrEnum):
    """What a MAC authenticates: part of every MAC's input (domain separation)."""

    KEY_ID = "assay/evidence/v1/key-id"
    CELL_FILE = "assay/evidence/v1/cell-file"
    MANIFEST = "assay/evidence/v1/answers-manifest"
    SEAL_RECORD = "assay/evidence/v1/cell-seal-record"
    RESULT_CELL = "assay/evidence/v1/result-cell"
    RESULT = "assay/evidence/v1/result"


@dataclass(frozen=True, repr=False)
class EvidenceKey:
    """A run's evidence key. Its repr never shows the bytes."""

    secret: bytes

    def __post_init__(self) -> None:
        if len(self.secret) < KEY_BYTES:
            raise ValueError(f"an evidence key has at least {KEY_BYTES} bytes, this one {len(self.secret)}")

    def __repr__(self) -> str:
        return f"EvidenceKey({self.key_id})"

    @classmethod
    def new(cls) -> EvidenceKey:
        return cls(secrets.token_bytes(KEY_BYTES))

    @property
    def key_id(self) -> str:
        return _hmac(self.secret, Label.KEY_ID, b"")[:24]

    def mac(self, label: Label, *parts: str) -> str:
        """The MAC of `parts` (unambiguously joined) under this key, for `label`."""
        return MAC_PREFIX + _hmac(self.secret, label, _joined(parts))

    def verifies(self, mac: str | None, label: Label, *parts: str) -> bool:
        return mac is not None and hmac.compare_digest(mac.encode(), self.mac(label, *parts).encode())


def _hmac(secret: bytes, label: Label, message: bytes) -> str:
    return hmac.new(secret, label.encode() + b"\0" + message, hashlib.sha256).hexdigest()


def _joined(parts: tuple[str, ...]) -> bytes:
    """Each part prefixed by its length: ("ab", "c") and ("a", "bc") never give the same message."""
    return b"".join(f"{len(encoded)}:".encode() + encoded for encoded in (p.encode() for p in parts))


def canonical(document: object) -> str:
    """One text for one JSON document: sorted keys, no spaces, ASCII only."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


# --- result.json ---


@dataclass(frozen=True)
class _ResultMacs:
    cells: dict[str, str]
    """`<ticket>/<repetition>` -> the MAC of the cell as the result records it."""
    whole: str
    """The MAC of the rest of the result, each cell in it standing as its MAC."""


def _result_macs(key: EvidenceKey, result: Result) -> _ResultMacs:
    """Every cell serialised once: its MAC over its canonical text, and the whole result's over the result
    with each cell replaced by that MAC (a result of thousands of cells is not serialised twice)."""
    wire = result.model_copy(update={"evidence": None}).to_wire()
    cells: dict[str, str] = {}
    for ticket in cast(list[dict[str, Any]], wire["tickets"]):
        macs = []
        for rep in ticket["repetitions"]:
            mac = key.mac(Label.RESULT_CELL, ticket["id"], str(rep["index"]), canonical(rep))
            cells[f"{ticket['id']}/{rep['index']}"] = mac
            macs.append(mac)
        ticket["repetitions"] = macs
    return _ResultMacs(cells, key.mac(Label.RESULT, key.key_id, canonical(wire)))


def sign_result(result: Result, key: EvidenceKey) -> Result:
    """The result with its evidence: a MAC per cell and one over everything else."""
    macs = _result_macs(key, result)
    evidence = ResultEvidence(key_id=key.key_id, cells=macs.cells, mac=macs.whole)
    return result.model_copy(update={"evidence": evidence})


NOT_AUTHENTICATED = (
    "result.json carries no evidence MAC (made from a hand-made answers tree, re-gated, by an older Assay, "
    "or its evidence was removed): unauthenticated"
)


def result_problems(result: Result, key: EvidenceKey | None) -> list[str]:
    """Why the result is not authenticated under `key` (the run's, found by its keyId), naming each cell
    whose record does not verify; empty when every MAC holds."""
    evidence = result.evidence
    if evidence is None:
        return [NOT_AUTHENTICATED]
    if key is None:
        return [
            f"no evidence key {evidence.key_id} is available here (give the run's key file with "
            "--evidence-key FILE): unauthenticated"
        ]
    if not hmac.compare_digest(evidence.key_id.encode(), key.key_id.encode()):
        return [
            f"result.json was made under evidence key {evidence.key_id}, not under this run's key "
            f"{key.key_id}: unauthenticated"
        ]
    macs = _result_macs(key, result)
    edited = [
        cell
        for cell, mac in macs.cells.items()
        if not hmac.compare_digest(mac.encode(), evidence.cells.get(cell, "").encode())
    ]
    named = set(evidence.cells) - set(macs.cells)
    problems = []
    if edited:
        problems.append(
            f"{_cells(edited)}: {'its record' if len(edited) == 1 else 'their records'} in result.json "
            f"{'does' if len(edited) == 1 else 'do'} not verify under the run's evidence key (edited after "
            "the run): blocked"
        )
    if named:
        problems.append(
            f"{_cells(sorted(named))}: authenticated but missing from result.json (removed): blocked"
        )
    if not hmac.compare_digest(evidence.mac.encode(), macs.whole.encode()):
        problems.append("result.json does not verify under the run's evidence key (edited after the run)")
    return problems


def _cells(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN_CELLS]) + (
        f" (+{len(names) - SHOWN_CELLS} more)" if len(names) > SHOWN_CELLS else ""
    )
    return f"cell {shown}" if len(names) == 1 else f"cells {shown}"
