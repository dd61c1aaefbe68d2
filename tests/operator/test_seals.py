"""The operator's seals on the decisions it writes (assay_operator.seals) and what an approval or override
annotation names (assay_operator.approvals' bindings): pure, no cluster. On the control plane:
tests/operator_cluster/test_approvals.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_operator import approvals, seals


def test_a_binding_names_who_which_generation_and_what() -> None:
    assert approvals.parse_binding("alice@g1:cited") == approvals.Binding("alice", 1, "cited")
    # User names may hold an @ (OIDC e-mail addresses): the binding is read from the right.
    assert approvals.parse_binding("alice@example.com@g12:Blocked") == approvals.Binding(
        "alice@example.com", 12, "Blocked"
    )
    assert str(approvals.Binding("bob", 3, "v1")) == "bob@g3:v1"
    for value in ("alice", "alice@g1", "alice@gx:v1", "@g1:v1", "alice@g1:", "alice@g1:a:b", None, ""):
        assert approvals.parse_binding(value) is None, value


@pytest.mark.parametrize(
    ("value", "generation", "subject", "problem"),
    [
        ("alice@g2:cited", 2, "cited", None),
        ("alice@g1:cited", 2, "cited", "decides on generation 1, not on generation 2"),
        ("alice@g2:terse", 2, "cited", "decides on terse, but generation 2's promotion is cited"),
        ("alice", 2, "cited", "write <user>@g2:cited"),
        ("alice@g2:cited", 2, None, "generation 2 has no promotion awaiting a decision"),
    ],
)
def test_a_binding_decides_only_what_it_names(
    value: str, generation: int, subject: str | None, problem: str | None
) -> None:
    found = approvals.binding_problem(value, generation, subject, "promotion")
    assert (found is None) if problem is None else (found is not None and problem in found), found


def test_a_seal_covers_the_kind_the_object_and_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seals.KEY_FILE, raising=False)
    fields = {"state": "Approved", "winner": "cited", "generation": 1, "approvedBy": "alice"}
    sealed = seals.seal("approval", "uid-1", fields)
    assert len(sealed) == seals.SEAL_LENGTH
    assert seals.verifies("approval", "uid-1", fields, sealed)
    assert not seals.verifies("override", "uid-1", fields, sealed)
    assert not seals.verifies("approval", "uid-2", fields, sealed)
    assert not seals.verifies("approval", "uid-1", {**fields, "approvedBy": "mallory"}, sealed)
    assert not seals.verifies("approval", "uid-1", fields, None)
    # A key of the process's own: a restarted operator (a new key) no longer verifies the old seals.
    seals.KEY.reset()
    assert not seals.verifies("approval", "uid-1", fields, sealed)


def test_the_key_file_is_the_key_and_a_short_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = tmp_path / "key"
    key.write_text("k" * 40)
    monkeypatch.setenv(seals.KEY_FILE, str(key))
    fields = {"verdict": "Pass"}
    sealed = seals.seal("override", "u", fields)
    seals.KEY.reset()
    assert seals.verifies("override", "u", fields, sealed)  # the same file, read again after a restart
    key.write_text("short")
    seals.KEY.reset()
    with pytest.raises(seals.DecisionKeyError, match="5 bytes"):
        seals.KEY.get()
    monkeypatch.setenv(seals.KEY_FILE, str(tmp_path / "missing"))
    seals.KEY.reset()
    with pytest.raises(seals.DecisionKeyError, match="cannot read"):
        seals.KEY.get()
