"""Digests that bind a verdict to exactly what produced it: the brain, the tickets and KB, the judges and
the effective gate, the ticket selection.

Each digest is a sha256 over a canonical listing (sorted paths, lengths, contents), so renaming a file,
editing a threshold, overriding the gate, selecting another ticket or touching one KB article changes the
digest, and nothing else does.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay_runner.contract import (
    GateSettings,
    SuiteSplitError,
    digest_files,
    is_brain_file,
    public_calibration,
)
from assay_runner.core.limits import LIMIT_SETTINGS
from assay_runner.suite.loader import KB_DIR, Suite
from assay_runner.suite.models import JudgeBase, Ticket

__all__ = ["digest_files", "judges_digest", "read_tree", "suite_digest", "tickets_digest", "tree_digest"]


def read_tree(root: Path) -> dict[str, bytes]:
    """A mounted directory's files (relative path -> bytes), as `contract.is_brain_file` counts them: the
    kubelet's own `..` entries left out, every file the ConfigMap holds (dot-named ones too) kept."""
    return {
        relative: path.read_bytes()
        for path in sorted(root.rglob("*"))
        if is_brain_file(relative := path.relative_to(root).as_posix()) and path.is_file()
    }


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def suite_digest(suite: Suite) -> str:
    files = {path: data for path, data in suite.files.items() if path.startswith(f"{KB_DIR}/")}
    files["tickets.json"] = _canonical([_ticket_wire(t) for t in suite.tickets])
    return digest_files(files)


def _ticket_wire(ticket: Ticket) -> dict[str, Any]:
    """A ticket as its digest covers it: a ticket that is no conversation digests as it did before tickets
    could be conversations (the digests of existing suites, and the verdicts bound to them, still hold)."""
    wire = ticket.model_dump(mode="json", by_alias=True)
    if ticket.key.conversation is None:
        del wire["key"]["conversation"]
    return wire


def tree_digest(root: Path) -> str:
    """A mounted directory as the operator snapshotted it (file name -> bytes, `read_tree`)."""
    return digest_files(read_tree(root))


def tickets_digest(ticket_ids: Sequence[str]) -> str:
    """The resolved selection, in order: `tickets: validation` today and tomorrow may differ."""
    return digest_files({"tickets.json": _canonical(list(ticket_ids))})


def _gate_wire(gate: GateSettings) -> dict[str, object]:
    """The gate as digested: the limits (core.limits) only when set, so a gate without them keeps the
    digest it had before they existed and earlier results still verify."""
    unset_limits = {name for name in LIMIT_SETTINGS if getattr(gate, name) is None}
    if not gate.shadow_rules:  # likewise shadow rules (docs/calibration.md)
        unset_limits.add("shadow_rules")
    return gate.model_dump(mode="json", by_alias=True, exclude=unset_limits)


def _judge_wire(judge: JudgeBase) -> dict[str, object]:
    """A judge as digested: `shadow` only when set, so a suite without shadow judges keeps its digest."""
    return judge.model_dump(mode="json", by_alias=True, exclude=None if judge.shadow else {"shadow"})


def judges_digest(suite: Suite, gate: GateSettings | None = None) -> str:
    """`gate`: the effective gate after the run's overrides (the suite's own when None); per-judge
    threshold overrides are already in the suite's judges (apply_thresholds)."""
    spec = suite.spec
    files = {
        "judges.json": _canonical([_judge_wire(j) for j in spec.judges]),
        "gate.json": _canonical(_gate_wire(gate or spec.gate)),
        "passCriterion.json": _canonical(spec.pass_criterion.model_dump(mode="json", by_alias=True)),
    }
    for judge in spec.judges:
        source = getattr(judge, "file", None)
        if source is not None and source in suite.files:
            files[f"code/{source}"] = suite.files[source]
    # The calibration decides which judges gate, so it is part of what the verdict is bound to: its figures,
    # as the split suite carries them (the review list of labelled answers is not).
    if spec.calibration is not None and spec.calibration.file in suite.files:
        data = suite.files[spec.calibration.file]
        # Not JSON: digested as it is (and not a calibration: its judges run as shadow judges).
        with contextlib.suppress(SuiteSplitError):
            data = public_calibration(data)
        files[f"calibration/{spec.calibration.file}"] = data
    return digest_files(files)
