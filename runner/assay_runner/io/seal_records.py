"""Seal records: each cell's seal on disk as soon as the cell is sealed, so a killed answer phase's retry
keeps what it sealed.

The manifest (`answers.json`) receives every cell's seal when the phase ends, or when a signal stops it.
A phase killed outright (SIGKILL: the OOM killer, a lost node, a kubelet stopped) never gets there, so the
answer phase also writes each cell's seal, the moment the cell is sealed, to a record of its own:
`.sealed/<ticket>.<repetition>.json` in the tree, written aside, flushed to disk and renamed into place
(a record is whole or absent, never torn). The cell's files are flushed before it, so a record on disk
always finds its files there. A record carries its cell, its seal, the attempt that answered it, the inputs
it was answered from and the key's id, and a MAC over all of them under the run's evidence key
(`run.seal`): `answer --resume` keeps the cells whose record verifies; one that does not (edited, or
written without the key) is refused, naming the cell.

The records only stand in for a manifest that was never finished: the phase removes them once it has
written the sealed manifest, and the judge phase never reads them.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from assay_runner.contract import WireModel
from assay_runner.io import durable, plain
from assay_runner.io.answers import SEAL_RECORDS

FOLDER = SEAL_RECORDS


class SealRecord(WireModel):
    """One sealed cell, as `answers.json` would list it."""

    cell: str
    """`<ticket>/<repetition>`."""
    files: dict[str, str]
    """The cell's seal: file name -> its MAC under the run's evidence key (`run.seal`)."""
    answered_by: str | None = None
    """The uid of the answer pod whose attempt answered it (None outside a cluster)."""
    inputs_digest: str
    """What the cell was answered from (`answers.json` `inputsDigest`)."""
    evidence_key_id: str
    mac: str | None = None
    """The MAC of the rest of the record under the run's evidence key."""


class RecordUnreadable(Exception):
    """A record that is not one (not plain, not JSON, not a seal record): the message says what it is."""


def record_name(cell: str) -> str:
    """`T-1/2` -> `T-1.2.json`: the repetition is always the last dotted part, so no two cells share one."""
    ticket, _, repetition = cell.rpartition("/")
    return f"{ticket}.{repetition}.json"


def write_record(root: Path, record: SealRecord) -> None:
    """The record, durably: written aside and flushed, renamed into place, the folder flushed."""
    folder = root / FOLDER
    if not folder.is_dir():
        folder.mkdir(exist_ok=True)
        durable.fsync_folder(root)
    durable.replace_flushed(folder / record_name(record.cell), (record.to_json() + "\n").encode())


def read_record(root: Path, cell: str) -> SealRecord | None:
    """The cell's record, None when it has none; raises RecordUnreadable for a record that is not one (a
    link, a folder, not JSON, another shape)."""
    try:
        data = plain.read(root, f"{FOLDER}/{record_name(cell)}")
    except (plain.NotPlain, OSError) as exc:
        raise RecordUnreadable(str(exc)) from None
    if data is None:
        return None
    try:
        return SealRecord.model_validate_json(data)
    except ValidationError as exc:
        raise RecordUnreadable(f"not a seal record: {exc.errors()[0]['msg']}") from None


def keep_only(root: Path, cells: Iterable[str]) -> None:
    """Remove every record but those of `cells` (and whatever else was left in the folder)."""
    folder = root / FOLDER
    if not folder.exists() and not folder.is_symlink():
        return
    if folder.is_symlink() or not folder.is_dir():
        folder.unlink()
        return
    wanted = {record_name(cell) for cell in cells}
    for entry in folder.iterdir():
        if entry.name in wanted and not entry.is_symlink() and entry.is_file():
            continue
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


def remove_all(root: Path) -> None:
    """The records, once the sealed manifest holds every seal."""
    keep_only(root, ())
    with contextlib.suppress(FileNotFoundError):
        (root / FOLDER).rmdir()
