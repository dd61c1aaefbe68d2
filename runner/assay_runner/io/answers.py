"""Answers already on disk: `DIR/<ticket-id>/answer.md`, or `DIR/<ticket-id>/<rep>/answer.md` with k > 1.

Next to each answer, an optional `exit_code` file (an integer; 0 when absent) and an optional `transcript`.
Other text files in the cell folder are passed to code judges as `outputs.files`. A missing answer is not
skipped: the cell is recorded with an error, which blocks the verdict.

`assay answer` (the answer phase) writes this layout, always with repetition folders, plus two optional
files older trees do not have: `cell.json` next to each answer (exit code, the reason a cell could not be
answered, wall time, start time, usage) and `answers.json` at the top (what was answered, and why the
phase stopped early if it did). A cell with neither answer nor `cell.json` was never reached.

An answers tree that could be read two ways is bad input (exit 2) naming the path, never guessed at: a
folder for a ticket the suite does not have (a typo), a repetition folder outside 1..k (a stray `0`), a
ticket with both a flat `answer.md` and repetition folders, an `answer.md` or `exit_code` that is not
UTF-8 (a UTF-16 answer read as UTF-8 is garbage the judges would misread; write answers as UTF-8).
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, ValidationError, field_validator

from assay_runner.contract import Usage, WireModel
from assay_runner.errors import InputError, Problem

ANSWER_FILE = "answer.md"
EXIT_CODE_FILE = "exit_code"
TRANSCRIPT_FILE = "transcript"
CELL_FILE = "cell.json"
MANIFEST_FILE = "answers.json"
MAX_FILE_BYTES = 1 << 20  # files handed to code judges; larger ones are listed, not read
NOT_REACHED = "the answer phase never reached this cell"


class CellRecord(WireModel):
    """`cell.json`: what the answer phase knows about one cell besides its answer. Checked in type and range
    (an exit code is a byte, times are finite and not negative, usage is counted): a record outside them
    was not written by the answer phase."""

    exit_code: int | None = Field(default=None, ge=0, le=255)
    error: str | None = None
    wall_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    started_at: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    usage: Usage | None = None

    @field_validator("usage")
    @classmethod
    def _counted(cls, usage: Usage | None) -> Usage | None:
        if usage is not None and (
            usage.input_tokens < 0
            or usage.output_tokens < 0
            or not math.isfinite(usage.cost_usd)
            or usage.cost_usd < 0
        ):
            raise ValueError(f"usage must be counted tokens and a finite cost, not negative: {usage}")
        return usage


class AnswersManifest(WireModel):
    """`answers.json`: written when the answer phase starts, rewritten when it ends."""

    schema_version: int = 1
    suite: str
    tickets: list[str]
    repetitions: int = Field(ge=1)
    agent: str
    model: str | None = None
    started_at: str
    finished_at: str | None = None
    """None while the phase runs; a tree without it was cut short (killed, out of memory)."""
    stopped: str | None = None
    """Why the phase ended before every cell was answered (deadline, signal, error)."""
    cells: dict[str, dict[str, str]] | None = None
    """The seals: `<ticket>/<repetition>` -> {file name: sha256}, written when the phase ends (run.seal)."""
    tree_digest: str | None = None
    """sha256 over `cells`: binds the whole tree (result.json carries it)."""


@dataclass(frozen=True)
class RecordedAnswer:
    ticket_id: str
    repetition: int
    answer: str | None
    """None when answer.md is missing."""
    exit_code: int | None = 0
    transcript: str = ""
    files: dict[str, str] = field(default_factory=dict)
    source: str = ""
    record: CellRecord | None = None
    """The answer phase's `cell.json`, when the tree came from `assay answer`."""


def cell_dir(root: Path, ticket_id: str, repetition: int, k: int) -> Path:
    flat = root / ticket_id
    if k == 1 and (flat / ANSWER_FILE).exists():
        return flat
    return flat / str(repetition)


def _text_files(folder: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in (EXIT_CODE_FILE, TRANSCRIPT_FILE, CELL_FILE):
            continue
        # A name that is not UTF-8 reaches Python with surrogates, which no result can hold: its bytes
        # are shown as escapes ("bad\\xff.txt").
        relative = os.fsencode(path.relative_to(folder)).decode("utf-8", "backslashreplace")
        if relative.split("/", 1)[0].isdigit():
            continue  # a repetition folder of its own
        if path.stat().st_size > MAX_FILE_BYTES:
            files[relative] = f"<{path.stat().st_size} bytes, not read>"
            continue
        files[relative] = path.read_text(encoding="utf-8", errors="replace")
    return files


class Refused(Exception):
    """A cell the judges must not read: it names what is wrong, and the cell blocks with that reason."""


def _read_record(folder: Path) -> CellRecord | None:
    path = folder / CELL_FILE
    if not path.is_file():
        return None
    try:
        return CellRecord.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise Refused(f"{path} is not a cell record ({where}: {first['msg']})") from None


def _exit_code(folder: Path, record: CellRecord | None) -> int | None:
    """The exit code the `exit_code` file gives (0 when absent, as hand-made trees have it), checked against
    the cell record's when both exist."""
    path = folder / EXIT_CODE_FILE
    if not path.is_file():
        return record.exit_code if record is not None else 0
    text = _utf8(path).strip()
    try:
        code = int(text)
    except ValueError:
        raise InputError([Problem(str(path), "", f"exit code must be an integer, got {text!r}")]) from None
    if not 0 <= code <= 255:
        raise Refused(f"{path} holds {code}, not an exit code (0-255)")
    if record is not None and record.exit_code != code:
        raise Refused(f"{path} says {code} but {CELL_FILE} says {record.exit_code}: the cell was edited")
    return code


def _not_plain(root: Path, folder: Path) -> str | None:
    """Why a cell folder cannot be trusted, if it cannot: a symbolic link (or a pipe, a device, a hard link)
    on the way from the tree's root or inside it. The answer phase's agents can write into the tree, and a
    link is resolved where the judge reads it — where the answer keys are mounted — so a link named
    answer.md could hand the key to the judges as the answer. The tree must hold plain files and folders
    only."""
    path = root
    for part in folder.relative_to(root).parts:
        path = path / part
        if path.is_symlink():
            return str(path)
    if not folder.is_dir():
        return None
    for entry in folder.rglob("*"):
        info = entry.lstat()
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            return str(entry)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            return f"{entry} (a hard link: it may be another file, the answer keys' say)"
    return None


def plain_files(folder: Path) -> dict[str, Path]:
    """A cell folder's regular files, by their name within it (repetition folders of their own left out)."""
    return {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.relative_to(folder).parts[0].isdigit()
    }


def _utf8(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        hint = " (it starts with a UTF-16 byte-order mark)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise InputError(
            [Problem(str(path), "", f"not UTF-8 text{hint}: {exc.reason} at byte {exc.start}")]
        ) from None


def read_cell(root: Path, ticket_id: str, repetition: int, k: int) -> RecordedAnswer:
    folder = cell_dir(root, ticket_id, repetition, k)
    answer_path = folder / ANSWER_FILE
    tampered = _not_plain(root, folder)
    if tampered is not None:
        refused = CellRecord(error=f"refused: {tampered} is not a plain file or folder (a link?)")
        return RecordedAnswer(ticket_id, repetition, None, None, source=str(answer_path), record=refused)
    try:
        record = _read_record(folder)
        if not answer_path.is_file():
            code = record.exit_code if record is not None else None
            return RecordedAnswer(ticket_id, repetition, None, code, source=str(answer_path), record=record)
        exit_code = _exit_code(folder, record)
    except Refused as exc:
        refused = CellRecord(error=f"refused: {exc}")
        return RecordedAnswer(ticket_id, repetition, None, None, source=str(answer_path), record=refused)
    transcript_path = folder / TRANSCRIPT_FILE
    transcript = (
        transcript_path.read_text(encoding="utf-8", errors="replace") if transcript_path.is_file() else ""
    )
    return RecordedAnswer(
        ticket_id=ticket_id,
        repetition=repetition,
        answer=_utf8(answer_path).removeprefix("\ufeff"),
        exit_code=exit_code,
        transcript=transcript,
        files=_text_files(folder),
        source=str(answer_path),
        record=record,
    )


def load_answers(
    root: Path, ticket_ids: list[str], k: int, suite_ids: list[str] | None = None
) -> list[RecordedAnswer]:
    if not root.is_dir():
        raise InputError([Problem(str(root), "", "answers directory not found")])
    problems = ambiguities(root, ticket_ids, k, suite_ids if suite_ids is not None else ticket_ids)
    if problems:
        raise InputError(problems)
    return [read_cell(root, tid, rep, k) for tid in ticket_ids for rep in range(1, k + 1)]


def write_cell(
    root: Path,
    ticket_id: str,
    repetition: int,
    *,
    answer: str | None,
    transcript: str,
    record: CellRecord,
) -> dict[str, bytes]:
    """One cell of an answer phase's tree (always `<ticket>/<rep>/`, which `read_cell` reads for any k);
    returns what it wrote, file name -> bytes (the cell's seal is made from these, not read back)."""
    folder = root / ticket_id / str(repetition)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, bytes] = {}
    if answer is not None:
        written[ANSWER_FILE] = answer.encode("utf-8")
    if transcript:
        written[TRANSCRIPT_FILE] = transcript.encode("utf-8")
    if record.exit_code is not None:
        written[EXIT_CODE_FILE] = f"{record.exit_code}\n".encode()
    # Written last: its presence says the cell is complete.
    written[CELL_FILE] = (record.to_json() + "\n").encode()
    for name, data in written.items():
        (folder / name).write_bytes(data)
    return written


def write_manifest(root: Path, manifest: AnswersManifest) -> None:
    root.mkdir(parents=True, exist_ok=True)
    partial = root / f".{MANIFEST_FILE}.tmp"
    partial.write_text(manifest.to_json(indent=2) + "\n", encoding="utf-8")
    partial.replace(root / MANIFEST_FILE)


def read_manifest(root: Path) -> AnswersManifest | None:
    path = root / MANIFEST_FILE
    if path.is_symlink():
        raise InputError([Problem(str(path), "", "is a link: an answers tree holds plain files only")])
    if not path.is_file():
        return None
    try:
        return AnswersManifest.model_validate(json.loads(path.read_bytes()))
    except (ValueError, ValidationError) as exc:
        raise InputError([Problem(str(path), "", f"not an answers manifest: {exc}")]) from None


def ambiguities(root: Path, ticket_ids: list[str], k: int, suite_ids: list[str]) -> list[Problem]:
    """What makes the tree readable two ways (see the module docstring)."""
    problems = [
        Problem(str(root / name), "", "no ticket of the suite has this id (a typo?); remove or rename it")
        for name in unknown_folders(root, suite_ids)
    ]
    for ticket_id in ticket_ids:
        folder = root / ticket_id
        if not folder.is_dir():
            continue
        numbered = sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name.isdigit())
        for name in numbered:
            if not 1 <= int(name) <= k:
                problems.append(
                    Problem(str(folder / name), "", f"repetition folder outside 1..{k} (they count from 1)")
                )
        if (folder / ANSWER_FILE).exists() and numbered:
            problems.append(
                Problem(str(folder), "", f"has both {ANSWER_FILE} and repetition folders; keep one layout")
            )
        if (folder / ANSWER_FILE).exists() and k > 1:
            problems.append(
                Problem(str(folder / ANSWER_FILE), "", f"a flat answer with k={k}; use {ticket_id}/1 .. /{k}")
            )
    return problems


def unknown_folders(root: Path, ticket_ids: list[str]) -> list[str]:
    """Folders that look like answers to tickets the suite does not have (probably a typo)."""
    known = set(ticket_ids)
    return sorted(
        p.name for p in root.iterdir() if p.is_dir() and p.name not in known and not p.name.startswith(".")
    )
