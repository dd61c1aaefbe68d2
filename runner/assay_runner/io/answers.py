"""Answers already on disk: `DIR/<ticket-id>/answer.md`, or `DIR/<ticket-id>/<rep>/answer.md` with k > 1.

Next to each answer, an optional `exit_code` file (an integer; 0 when absent) and an optional `transcript`.
Other text files in the cell folder are passed to code judges as `outputs.files`. A missing answer is not
skipped: the cell is recorded with an error, which blocks the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from assay_runner.errors import InputError, Problem

ANSWER_FILE = "answer.md"
EXIT_CODE_FILE = "exit_code"
TRANSCRIPT_FILE = "transcript"
MAX_FILE_BYTES = 1 << 20  # files handed to code judges; larger ones are listed, not read


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


def cell_dir(root: Path, ticket_id: str, repetition: int, k: int) -> Path:
    flat = root / ticket_id
    if k == 1 and (flat / ANSWER_FILE).exists():
        return flat
    return flat / str(repetition)


def _text_files(folder: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in (EXIT_CODE_FILE, TRANSCRIPT_FILE):
            continue
        relative = str(path.relative_to(folder))
        if relative.split("/", 1)[0].isdigit():
            continue  # a repetition folder of its own
        if path.stat().st_size > MAX_FILE_BYTES:
            files[relative] = f"<{path.stat().st_size} bytes, not read>"
            continue
        files[relative] = path.read_text(encoding="utf-8", errors="replace")
    return files


def read_cell(root: Path, ticket_id: str, repetition: int, k: int) -> RecordedAnswer:
    folder = cell_dir(root, ticket_id, repetition, k)
    answer_path = folder / ANSWER_FILE
    if not answer_path.is_file():
        return RecordedAnswer(ticket_id, repetition, None, None, source=str(answer_path))
    exit_code: int | None = 0
    exit_path = folder / EXIT_CODE_FILE
    if exit_path.is_file():
        text = exit_path.read_text(encoding="utf-8").strip()
        try:
            exit_code = int(text)
        except ValueError:
            raise InputError(
                [Problem(str(exit_path), "", f"exit code must be an integer, got {text!r}")]
            ) from None
    transcript_path = folder / TRANSCRIPT_FILE
    transcript = (
        transcript_path.read_text(encoding="utf-8", errors="replace") if transcript_path.is_file() else ""
    )
    return RecordedAnswer(
        ticket_id=ticket_id,
        repetition=repetition,
        answer=answer_path.read_text(encoding="utf-8", errors="replace"),
        exit_code=exit_code,
        transcript=transcript,
        files=_text_files(folder),
        source=str(answer_path),
    )


def load_answers(root: Path, ticket_ids: list[str], k: int) -> list[RecordedAnswer]:
    if not root.is_dir():
        raise InputError([Problem(str(root), "", "answers directory not found")])
    return [read_cell(root, tid, rep, k) for tid in ticket_ids for rep in range(1, k + 1)]


def unknown_folders(root: Path, ticket_ids: list[str]) -> list[str]:
    """Folders that look like answers to tickets the suite does not have (probably a typo)."""
    known = set(ticket_ids)
    return sorted(
        p.name for p in root.iterdir() if p.is_dir() and p.name not in known and not p.name.startswith(".")
    )
