"""A suite split in two at its trust boundary: the public part an agent may see, and the answer key.

- Public part (a directory): `suite.yaml` (judges, gate, pass criterion — the rules of the game),
  `questions.yaml` (each ticket's id, split and question, no key), the `kb/` articles and any code judge
  files. It is itself a valid suite whose tickets carry no key.
- Key (one file, `keys.yaml`): `keys: {ticket id: answer key}` — expected articles, must-mention facts,
  forbidden items, abstention, notes for the model judge.
- Customers (one file, `customers.yaml`, asked for with `customers_file`, written only when a ticket is a
  conversation): `customers: {ticket id: conversation}`, what the answer phase plays the customers from.

What is public is one rule (`contract.suite_parts`), which the operator applies to a suite ConfigMap too: a
suite carried in the image or in a ConfigMap gives its agents the same public part. Here the suite is
validated first, and the two parts are checked to load back as the same suite.

`load_suite(public, keys=keys.yaml)` joins the two again; the merged suite has the same suite and judges
digests as the unsplit one, so a verdict does not depend on how its suite was carried.

Without a key file (an answer pod's split: the key has no use there) the key is never written anywhere; the
public part is then checked to load back as the suite's tickets without their keys.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from assay_runner.contract import (
    CUSTOMERS_FILE,
    KEYS_FILE,
    QUESTIONS_FILE,
    SuiteSplitError,
    split_suite_files,
)
from assay_runner.errors import InputError, Problem
from assay_runner.suite.loader import Suite, load_suite, with_customers
from assay_runner.suite.models import AnswerKey, Ticket

__all__ = ["CUSTOMERS_FILE", "KEYS_FILE", "QUESTIONS_FILE", "split_suite"]


def split_suite(
    source: Path,
    public_dir: Path,
    keys_file: Path | None,
    kb_dir: Path | None = None,
    customers_file: Path | None = None,
) -> Suite:
    """Write the public part of the suite at `source` into `public_dir` (which must be empty or absent), its
    keys into `keys_file` (None: nowhere) and, when a ticket is a conversation and `customers_file` is
    given, its customers there; returns the suite as loaded from the two, checked to be the same suite (and
    the customers, to be the key's). Without a key file, the suite returned is the public part's (its
    tickets carry no key)."""
    suite = load_suite(source, kb_dir)
    if public_dir.exists() and any(public_dir.iterdir()):
        raise InputError([Problem(str(public_dir), "", "must be empty: the public part is written here")])
    for part, what in ((keys_file, "the key"), (customers_file, "the customers")):
        if part is not None and part.resolve().is_relative_to(public_dir.resolve()):
            raise InputError([Problem(str(part), "", f"{what} must not be written inside the public part")])
    try:
        parts = split_suite_files(suite.files)
    except SuiteSplitError as exc:  # a validated suite always splits: say where it did not
        raise InputError([Problem(str(source), "", f"cannot be split: {exc}")]) from None
    public_dir.mkdir(parents=True, exist_ok=True)
    try:
        for relative, data in parts.public.items():
            target = public_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if keys_file is not None:
            keys_file.parent.mkdir(parents=True, exist_ok=True)
            keys_file.write_bytes(parts.keys)
        if customers_file is not None and parts.customers is not None:
            customers_file.parent.mkdir(parents=True, exist_ok=True)
            customers_file.write_bytes(parts.customers)
        rejoined = load_suite(public_dir, keys=keys_file)
        expected = suite.tickets if keys_file is not None else [_keyless(t) for t in suite.tickets]
        played = with_customers(load_suite(public_dir), customers_file) if customers_file else None
    except BaseException:
        shutil.rmtree(public_dir, ignore_errors=True)
        raise
    if rejoined.tickets != expected or rejoined.spec.judges != suite.spec.judges:
        raise InputError(f"splitting {source} did not round-trip: please report this suite")
    if played is not None and _conversations(played) != _conversations(suite):
        raise InputError(f"splitting {source}: its customers are not its key's: please report this suite")
    return rejoined


def _keyless(ticket: Ticket) -> Ticket:
    return ticket.model_copy(update={"key": AnswerKey()})


def _conversations(suite: Suite) -> dict[str, object]:
    return {t.id: t.key.conversation for t in suite.tickets if t.key.conversation is not None}
