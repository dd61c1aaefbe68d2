"""Seal records (io.seal_records, run.seal): each cell's seal on disk, under a MAC that binds it to its cell,
its inputs and the run's evidence key."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_runner.core.evidence import EvidenceKey
from assay_runner.io import answers as answer_store
from assay_runner.io import seal_records
from assay_runner.run.seal import record_problem, seal_of, seal_record

KEY = EvidenceKey(b"k" * 32)


def written(cell: str, answer: bytes = b"an answer") -> seal_records.SealRecord:
    return seal_record(KEY, cell, seal_of(KEY, cell, {"answer.md": answer}), "pod-1", "sha256:inputs")


def test_a_record_written_is_read_back_and_verifies(tmp_path: Path) -> None:
    seal_records.write_record(tmp_path, written("T-1/2"))
    found = seal_records.read_record(tmp_path, "T-1/2")
    assert found == written("T-1/2") and record_problem(found, "T-1/2", KEY) is None
    assert seal_records.read_record(tmp_path, "T-1/1") is None
    assert [p.name for p in (tmp_path / ".sealed").iterdir()] == ["T-1.2.json"]  # no partial file left


def test_a_record_edited_copied_to_another_cell_or_of_another_key_does_not_verify() -> None:
    edited = written("T-1/1").model_copy(update={"answered_by": "pod-2"})
    assert "T-1/1: its seal record does not verify" in (record_problem(edited, "T-1/1", KEY) or "")
    # T-2's genuine record (and files) in T-1's place: the MAC binds the record to its cell.
    assert "T-1/1: its seal record does not verify" in (record_problem(written("T-2/1"), "T-1/1", KEY) or "")
    other = EvidenceKey(b"o" * 32)
    problem = record_problem(written("T-1/1"), "T-1/1", other) or ""
    assert f"made under evidence key {KEY.key_id}, not under this run's key {other.key_id}" in problem


def test_a_record_that_is_a_link_or_not_a_record_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / ".sealed").mkdir()
    (tmp_path / "elsewhere.json").write_text(written("T-1/1").to_json())
    (tmp_path / ".sealed" / "T-1.1.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(seal_records.RecordUnreadable, match="symbolic link"):
        seal_records.read_record(tmp_path, "T-1/1")
    (tmp_path / ".sealed" / "T-2.1.json").write_text('{"cell": "T-2/1"}')
    with pytest.raises(seal_records.RecordUnreadable, match="not a seal record"):
        seal_records.read_record(tmp_path, "T-2/1")


def test_keep_only_removes_the_others_and_a_write_cut_short(tmp_path: Path) -> None:
    for cell in ("T-1/1", "T-2/1"):
        seal_records.write_record(tmp_path, written(cell))
    (tmp_path / ".sealed" / ".T-3.1.json.tmp").write_text("{")  # a write the kill cut short
    seal_records.keep_only(tmp_path, ["T-1/1"])
    assert [p.name for p in (tmp_path / ".sealed").iterdir()] == ["T-1.1.json"]
    seal_records.remove_all(tmp_path)
    assert not (tmp_path / ".sealed").exists()


def test_the_records_folder_is_no_stray_entry_but_a_link_in_its_place_is(tmp_path: Path) -> None:
    seal_records.write_record(tmp_path, written("T-1/1"))
    assert answer_store.stray_entries(tmp_path, []) == []
    seal_records.remove_all(tmp_path)
    (tmp_path / ".sealed").symlink_to(tmp_path.parent)
    assert answer_store.stray_entries(tmp_path, []) == [f".sealed (a symbolic link to {tmp_path.parent})"]
