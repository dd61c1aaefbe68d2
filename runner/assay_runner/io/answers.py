"""Answers already on disk: `DIR/<ticket-id>/answer.md`, or `DIR/<ticket-id>/<rep>/answer.md` with k > 1.

Next to each answer, an optional `exit_code` file (an integer; 0 when absent), an optional `transcript` and
an optional `trajectory.json` (the agent's steps, `contract.Trajectory`). Other text files in the cell folder
are passed to code judges as `outputs.files`. A missing answer is not
skipped: the cell is recorded with an error, which blocks the verdict.

`assay answer` (the answer phase) writes this layout, always with repetition folders, plus two optional
files older trees do not have: `cell.json` next to each answer (exit code, the reason a cell could not be
answered, wall time, start time, usage) and `answers.json` at the top (what was answered, and why the
phase stopped early if it did). A cell with neither answer nor `cell.json` was never reached.

An answers tree that could be read two ways is bad input (exit 2) naming the path, never guessed at: a
folder for a ticket the suite does not have (a typo), a repetition folder outside 1..k (a stray `0`), a
ticket with both a flat `answer.md` and repetition folders, an `answer.md` or `exit_code` that is not
UTF-8 (a UTF-16 answer read as UTF-8 is garbage the judges would misread; write answers as UTF-8). A tree
the answer phase made (it has `answers.json`) is not a person's typo: an entry in it that no cell owns was
left by an agent, and the caller blocks the run naming it (`stray_entries`), every cell judged all the same.

Nothing in a cell is followed: a symbolic link, a hard link, a pipe or a device is refused (the cell blocks,
naming it), and every file is opened without following links (`io.plain`).

Memory is bounded (`Limits`): an `answer.md` or a side file larger than its limit is not read (its size
comes from the file system, so a sparse file of terabytes costs nothing), nor a cell whose side files are
too many or too large in all, and the cell is recorded with an error saying so, naming the cell, which
blocks; the transcript is read up to its limit (its tail). Side files are listed when a cell is read and
read one at a time when a judge asks for one (`SideFiles`), never all at once, so neither a cell of five
hundred side files nor a tree of ten thousand cells is held in memory.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, ValidationError, field_validator

from assay_runner.contract import ConversationRecord, Isolation, LimitsConfig, Trajectory, Usage, WireModel
from assay_runner.errors import InputError, Problem, describe
from assay_runner.io import durable, plain
from assay_runner.vocabulary import Containment

ANSWER_FILE = "answer.md"
EXIT_CODE_FILE = "exit_code"
TRANSCRIPT_FILE = "transcript"
TRAJECTORY_FILE = "trajectory.json"
CELL_FILE = "cell.json"
MANIFEST_FILE = "answers.json"
SEAL_RECORDS = ".sealed"
"""Each sealed cell's seal while the phase runs (`io.seal_records`), removed once the manifest holds them."""
NOT_REACHED = "the answer phase never reached this cell"


@dataclass(frozen=True)
class Limits:
    """The largest files a cell may hold (`RunConfig.limits`, whose fields give the defaults): judging
    costs some 30 MB of memory per MB of answer (bench/judges_cost.py), so these bound what one cell can
    take; a cell over any of them is a cell error (Blocked), its files never read."""

    max_answer_bytes: int = LimitsConfig().max_answer_bytes
    """`answer.md`."""
    max_side_file_bytes: int = LimitsConfig().max_side_file_bytes
    """Each other file of the cell (`outputs.files` of code judges), and the transcript's tail."""
    max_side_files_bytes: int = LimitsConfig().max_side_files_bytes
    """All the cell's side files together."""
    max_side_files: int = LimitsConfig().max_side_files
    """How many side files the cell may hold."""

    @classmethod
    def of(cls, config: LimitsConfig) -> Limits:
        return cls(
            config.max_answer_bytes,
            config.max_side_file_bytes,
            config.max_side_files_bytes,
            config.max_side_files,
        )


DEFAULT_LIMITS = Limits()


class SideFiles(Mapping[str, str]):
    """A cell's other text files, by path relative to the cell: listed when the cell is read, each read
    (as UTF-8, undecodable bytes replaced) only when a judge asks for it, and not kept."""

    def __init__(self, paths: dict[str, Path], folder: Path | None = None) -> None:
        self._paths = paths
        self._folder = folder

    def __getitem__(self, name: str) -> str:
        path = self._paths[name]
        if self._folder is None:
            data: bytes | None = path.read_bytes()
        else:  # by its own name (a name shown with escapes is not the one on disk)
            data = plain.read(self._folder, path.relative_to(self._folder).as_posix())
        if data is None:
            raise KeyError(name)
        return data.decode("utf-8", errors="replace")

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


class CellRecord(WireModel):
    """`cell.json`: what the answer phase knows about one cell besides its answer. Checked in type and range
    (an exit code is a byte, times are finite and not negative, usage is counted): a record outside them
    was not written by the answer phase."""

    exit_code: int | None = Field(default=None, ge=0, le=255)
    error: str | None = None
    wall_seconds: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    started_at: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    usage: Usage | None = None
    containment: Containment | None = None
    """What ended every process the cell's agent started (`vocabulary.Containment`); None when it ran no
    program, or the tree is older."""
    isolation: Isolation | None = None
    """The sandbox the agent's program ran in (assay_runner.sandbox)."""
    conversation: ConversationRecord | None = None
    """A conversational ticket's exchange, turn by turn, as the runner kept it: sealed with the cell."""

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

    schema_version: int = 2
    """2: seals and treeDigest are MACs under the run's evidence key (1: plain digests, not accepted)."""
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
    shard: tuple[int, int] | None = None
    """(index, count) when the answers come in shards; None for a whole run's tree."""
    inputs_digest: str | None = None
    """What the cells were answered from (brain, suite, selection, agent, shard): a resumed answer phase
    keeps cells only when it is the same."""
    cells: dict[str, dict[str, str]] | None = None
    """The seals: `<ticket>/<repetition>` -> {file name: its MAC under the run's evidence key}, written when
    the phase ends (run.seal; until then each cell's is in its seal record, `io.seal_records`)."""
    evidence_key_id: str | None = None
    """Names the run's evidence key (a lookup id, derived from the key; not a secret)."""
    tree_digest: str | None = None
    """The MAC of this whole manifest under the run's evidence key: binds the tree (result.json carries
    it as `inputs.answersDigest`)."""
    answered_by: dict[str, str] | None = None
    """`<ticket>/<repetition>` -> the uid of the answer pod whose attempt answered it (on the cluster, from
    its gateway sidecar): the judge phase tells a retried shard's ledgers apart by it (what an earlier,
    killed attempt spent on a cell answered again is counted, never taken for the cell's own spend)."""


@dataclass(frozen=True)
class RecordedAnswer:
    ticket_id: str
    repetition: int
    answer: str | None
    """None when answer.md is missing."""
    exit_code: int | None = 0
    transcript: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    record: CellRecord | None = None
    """The answer phase's `cell.json`, when the tree came from `assay answer`."""
    trajectory: Trajectory | None = None


def cell_dir(root: Path, ticket_id: str, repetition: int, k: int) -> Path:
    flat = root / ticket_id
    if k == 1 and (flat / ANSWER_FILE).exists():
        return flat
    return flat / str(repetition)


def _side_files(folder: Path, limits: Limits) -> tuple[SideFiles, str | None]:
    """The cell's other files, and why the cell cannot be judged when one is over its limit, or they are
    too many or too large in all. Listed as the folder is walked, and the walk stops at the first limit
    passed: a cell of a million files costs the limit's worth of names, not a million."""
    files: dict[str, Path] = {}
    total = 0
    for path in folder.rglob("*"):
        if not path.is_file() or path.name in (EXIT_CODE_FILE, TRANSCRIPT_FILE, CELL_FILE, TRAJECTORY_FILE):
            continue
        # A name that is not UTF-8 reaches Python with surrogates, which no result can hold: its bytes
        # are shown as escapes ("bad\\xff.txt").
        relative = os.fsencode(path.relative_to(folder)).decode("utf-8", "backslashreplace")
        if relative.split("/", 1)[0].isdigit() or relative == ANSWER_FILE:
            continue  # a repetition folder of its own; the answer, with its own limit
        size = path.lstat().st_size
        if size > limits.max_side_file_bytes:
            return SideFiles({}), _over(relative, size, limits.max_side_file_bytes, "maxSideFileBytes")
        files[relative] = path
        total += size
        if len(files) > limits.max_side_files:
            why = f"{folder} holds more than {limits.max_side_files:,} side files (limits.maxSideFiles)"
            return SideFiles({}), f"{why}; none was read"
        if total > limits.max_side_files_bytes:
            why = (
                f"{folder}'s side files are more than {total:,} bytes in all, over the limit of "
                f"{limits.max_side_files_bytes:,} (limits.maxSideFilesBytes)"
            )
            return SideFiles({}), f"{why}; none was read"
    with_answer = {ANSWER_FILE: folder / ANSWER_FILE} if (folder / ANSWER_FILE).is_file() else {}
    return SideFiles(dict(sorted({**files, **with_answer}.items())), folder), None


def _over(name: str, size: int, limit: int, setting: str) -> str:
    return f"{name} is {size:,} bytes, over the limit of {limit:,} (limits.{setting}); it was not read"


def _tail(folder: Path, name: str, limit: int) -> str:
    """The last `limit` bytes of a text file (a transcript's end is where a crash shows); "" when absent."""
    with plain.opened(folder, name) as handle:
        if handle is None:
            return ""
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - limit))
        data = handle.read(limit)
    text = data.decode("utf-8", errors="replace")
    return text if size <= limit else f"[first {size - limit:,} bytes not read]\n{text}"


class Refused(Exception):
    """A cell the judges must not read: it names what is wrong, and the cell blocks with that reason."""


def _read_record(folder: Path) -> CellRecord | None:
    path = folder / CELL_FILE
    data = plain.read(folder, CELL_FILE)
    if data is None:
        return None
    try:
        return CellRecord.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise Refused(f"{path} is not a cell record ({where}: {first['msg']})") from None


def _exit_code(folder: Path, record: CellRecord | None) -> int | None:
    """The exit code the `exit_code` file gives (0 when absent, as hand-made trees have it), checked against
    the cell record's when both exist."""
    path = folder / EXIT_CODE_FILE
    data = plain.read(folder, EXIT_CODE_FILE)
    if data is None:
        return record.exit_code if record is not None else 0
    text = _utf8(path, data).strip()
    try:
        code = int(text)
    except ValueError:
        raise InputError([Problem(str(path), "", f"exit code must be an integer, got {text!r}")]) from None
    if not 0 <= code <= 255:
        raise Refused(f"{path} holds {code}, not an exit code (0-255)")
    if record is not None and record.exit_code != code:
        raise Refused(f"{path} says {code} but {CELL_FILE} says {record.exit_code}: the cell was edited")
    return code


def _read_trajectory(folder: Path) -> Trajectory | None:
    path = folder / TRAJECTORY_FILE
    data = plain.read(folder, TRAJECTORY_FILE)
    if data is None:
        return None
    try:
        return Trajectory.model_validate_json(data)
    except ValidationError as exc:
        raise InputError([Problem(str(path), "", f"not a trajectory: {exc.errors()[0]['msg']}")]) from None


def _not_plain(root: Path, folder: Path) -> str | None:
    """Why a cell folder cannot be trusted, if it cannot: a symbolic link (or a pipe, a device, a hard link)
    on the way from the tree's root or inside it. The answer phase's agents can write into the tree, and a
    link is resolved where the judge reads it — where the answer keys are mounted — so a link named
    answer.md could hand the key to the judges as the answer. The tree must hold plain files and folders
    only; each file is then read without following anything (`io.plain`), should one be swapped in."""
    path = root
    for part in folder.relative_to(root).parts:
        path = path / part
        if path.is_symlink():
            return f"{path} is a symbolic link to {os.readlink(path)}"
    if not folder.is_dir():
        return None
    for entry in folder.rglob("*"):
        info = entry.lstat()
        if stat.S_ISLNK(info.st_mode):
            return f"{entry} is a symbolic link to {os.readlink(entry)}"
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            return f"{entry} is {describe(info.st_mode)}"
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            names = info.st_nlink
            return f"{entry} is a hard link ({names} names: it may be another file, the answer keys' say)"
    return None


def plain_files(folder: Path) -> dict[str, Path]:
    """A cell folder's regular files, by their name within it (repetition folders of their own left out);
    a link is none, and never followed (a link where a sealed file was is that file removed)."""
    return {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if stat.S_ISREG(path.lstat().st_mode) and not path.relative_to(folder).parts[0].isdigit()
    }


def _utf8(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        hint = " (it starts with a UTF-16 byte-order mark)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise InputError(
            [Problem(str(path), "", f"not UTF-8 text{hint}: {exc.reason} at byte {exc.start}")]
        ) from None


def read_cell(
    root: Path, ticket_id: str, repetition: int, k: int, limits: Limits = DEFAULT_LIMITS
) -> RecordedAnswer:
    folder = cell_dir(root, ticket_id, repetition, k)
    answer_path = folder / ANSWER_FILE
    tampered = _not_plain(root, folder)
    if tampered is not None:
        refused = CellRecord(error=f"refused: {tampered}: an answers tree holds plain files and folders only")
        return RecordedAnswer(ticket_id, repetition, None, None, source=str(answer_path), record=refused)
    try:
        record = _read_record(folder)
        trajectory = _read_trajectory(folder)
        with plain.opened(folder, ANSWER_FILE) as answer_file:
            if answer_file is None:
                code = record.exit_code if record is not None else None
                return RecordedAnswer(
                    ticket_id,
                    repetition,
                    None,
                    code,
                    source=str(answer_path),
                    record=record,
                    trajectory=trajectory,
                )
            exit_code = _exit_code(folder, record)
            transcript = _tail(folder, TRANSCRIPT_FILE, limits.max_side_file_bytes)
            size = os.fstat(answer_file.fileno()).st_size
            files, too_large = _side_files(folder, limits)
            if size > limits.max_answer_bytes:
                too_large = _over(ANSWER_FILE, size, limits.max_answer_bytes, "maxAnswerBytes")
            if too_large is not None:
                refused = (record or CellRecord()).model_copy(update={"error": too_large})
                source = str(answer_path)
                return RecordedAnswer(
                    ticket_id, repetition, None, exit_code, transcript, source=source, record=refused
                )
            data = answer_file.read()
    except (Refused, plain.NotPlain) as exc:
        refused = CellRecord(error=f"refused: {exc}")
        return RecordedAnswer(ticket_id, repetition, None, None, source=str(answer_path), record=refused)
    return RecordedAnswer(
        ticket_id=ticket_id,
        repetition=repetition,
        answer=_utf8(answer_path, data).removeprefix("\ufeff"),
        exit_code=exit_code,
        transcript=transcript,
        files=files,
        source=str(answer_path),
        record=record,
        trajectory=trajectory,
    )


def load_answers(
    root: Path,
    ticket_ids: list[str],
    k: int,
    suite_ids: list[str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    cells: list[tuple[str, int]] | None = None,
    *,
    phase_tree: bool = False,
) -> list[RecordedAnswer]:
    """Every ticket x repetition's cell (or only `cells`: one shard's), in order.

    `phase_tree`: the tree was made by the answer phase (it has a manifest), so what is in it that no cell
    owns was left by an agent, not mistyped by a person: it is not bad input here, and `stray_entries`
    names it for the caller to block the run with. A hand-made tree that could be read two ways is bad
    input (see the module docstring)."""
    if not root.is_dir():
        raise InputError([Problem(str(root), "", "answers directory not found")])
    problems = ambiguities(root, ticket_ids, k, suite_ids if suite_ids is not None else ticket_ids)
    if problems and not phase_tree:
        raise InputError(problems)
    wanted = cells if cells is not None else [(tid, rep) for tid in ticket_ids for rep in range(1, k + 1)]
    return [read_cell(root, tid, rep, k, limits) for tid, rep in wanted]


def write_cell(
    root: Path,
    ticket_id: str,
    repetition: int,
    *,
    answer: str | None,
    transcript: str,
    record: CellRecord,
    trajectory: Trajectory | None = None,
) -> dict[str, bytes]:
    """One cell of an answer phase's tree (always `<ticket>/<rep>/`, which `read_cell` reads for any k);
    returns what it wrote, file name -> bytes (the cell's seal is made from these, not read back)."""
    folder = root / ticket_id / str(repetition)
    made = not folder.is_dir()
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, bytes] = {}
    if answer is not None:
        written[ANSWER_FILE] = answer.encode("utf-8")
    if transcript:
        written[TRANSCRIPT_FILE] = transcript.encode("utf-8")
    if trajectory is not None:
        written[TRAJECTORY_FILE] = (trajectory.to_json() + "\n").encode()
    if record.exit_code is not None:
        written[EXIT_CODE_FILE] = f"{record.exit_code}\n".encode()
    # Written last: its presence says the cell is complete.
    written[CELL_FILE] = (record.to_json() + "\n").encode()
    # On disk before the cell's seal is (`io.seal_records`): a killed phase's retry finds what it sealed.
    for name, data in written.items():
        durable.write_flushed(folder / name, data)
    durable.fsync_folder(folder)
    if made:
        durable.fsync_folder(folder.parent)
        durable.fsync_folder(root)
    return written


def write_manifest(root: Path, manifest: AnswersManifest) -> None:
    root.mkdir(parents=True, exist_ok=True)
    durable.replace_flushed(root / MANIFEST_FILE, (manifest.to_json(indent=2) + "\n").encode())


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


def stray_entries(root: Path, cells: list[tuple[str, int]]) -> list[str]:
    """What an answer phase's tree holds that none of its `cells` owns (`<ticket>/<repetition>/` folders,
    and the manifest): a file, a link or a folder an agent left at the root or in a ticket's folder, by its
    path in the tree, links with their target. A link in place of a ticket's or a cell's folder is one."""
    owned: dict[str, set[str]] = {}
    for ticket_id, repetition in cells:
        owned.setdefault(ticket_id, set()).add(str(repetition))
    found: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.name in (MANIFEST_FILE, f".{MANIFEST_FILE}.tmp"):
            continue
        if entry.name == SEAL_RECORDS and _is_folder(entry):
            continue  # the seal records of a phase killed before its manifest was sealed (`io.seal_records`)
        if entry.name not in owned or not _is_folder(entry):
            found.append(_shown(root, entry))
            continue
        found += [
            _shown(root, inner)
            for inner in sorted(entry.iterdir())
            if inner.name not in owned[entry.name] or not _is_folder(inner)
        ]
    return found


def _is_folder(path: Path) -> bool:
    return stat.S_ISDIR(path.lstat().st_mode)


def _shown(root: Path, entry: Path) -> str:
    shown = os.fsencode(entry.relative_to(root)).decode("utf-8", "backslashreplace")
    if entry.is_symlink():
        return f"{shown} (a symbolic link to {os.readlink(entry)})"
    return f"{shown}/" if _is_folder(entry) else shown
