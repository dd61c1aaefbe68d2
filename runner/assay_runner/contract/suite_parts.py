"""A suite cut at its trust boundary, file by file: the one rule of what is public, which `assay split` (after
validating the suite) and the operator (on a suite ConfigMap's keys, which it does not validate) both call,
so a suite carried either way gives its answer pods the same public part (docs/trust-model.md).

- The public part: `suite.yaml` without its tickets (the judges, gate and pass criterion: the rules of the
  game), `questions.yaml` (each ticket's id, split and question), the `kb/` articles, the files the
  suite's code judges name and, when the suite requires calibrated judges, the calibration's figures (which
  judges may gate: `public_calibration`, without the labelled answers). Nothing else: a README, a
  reviewer's notes or any other file beside the suite stays out, because nothing names it public.
- The key (`keys.yaml`): every ticket's answer key, by id.
- The customers (`customers.yaml`), only for a suite with conversational tickets: each such ticket's
  `conversation` (the customer's persona, the facts they say only when asked, what they do when not asked,
  the turn limit) and nothing else of its key. The answer phase plays the customer from it, outside every
  agent's sandbox (docs/conversations.md, "On the cluster"); it is a copy of what the key holds, so the
  judge phase reads the key alone.

A suite already split (a `keys.yaml` beside a keyless public part) is joined and cut again, so it comes out
as its unsplit self would. Only the structure is read (which files, which tickets, which keys); the runner
validates the suite itself. Like the rest of `contract`: the standard library and YAML, no judge code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SUITE_FILE, QUESTIONS_FILE, KEYS_FILE = "suite.yaml", "questions.yaml", "keys.yaml"
CUSTOMERS_FILE = "customers.yaml"
CONVERSATION_FIELD = "conversation"
"""The one field of an answer key the customers part carries."""
KB_PREFIX = "kb/"
QUESTION_FIELDS = ("id", "split", "question")
"""What of a ticket is public; its `key` is the answer key's, and a ticket has nothing else."""
CALIBRATION_FILE = "calibration.json"
"""Where a suite's `calibration:` requirement finds its calibration when it names no `file`."""
HEADER = "# Split at its trust boundary from suite {name!r}: {what}. Regenerate rather than edit.\n"


class SuiteSplitError(ValueError):
    """The suite's files cannot be split (not YAML, no suite.yaml, tickets not a list, a file it names
    missing...)."""


@dataclass(frozen=True)
class SuiteParts:
    """The parts of a suite: its public files (relative path -> bytes), its key file's bytes and its customers
    file's (None: no ticket is a conversation)."""

    public: dict[str, bytes]
    keys: bytes
    customers: bytes | None = None


def split_suite_files(files: Mapping[str, bytes]) -> SuiteParts:
    """Cut the suite made of `files` (relative path -> bytes: suite.yaml, its tickets file, kb/ articles,
    code-judge files, and whatever else lay beside them) into its public part and its key."""
    if SUITE_FILE not in files:
        raise SuiteSplitError(f"it has no {SUITE_FILE} (files: {', '.join(sorted(files)) or 'none'})")
    suite = _load(files[SUITE_FILE], SUITE_FILE)
    if not isinstance(suite, dict):
        raise SuiteSplitError(f"{SUITE_FILE} must be a mapping")
    tickets = _tickets(files, suite)
    keys = _keys(files, tickets)
    public_suite = {k: v for k, v in suite.items() if k not in ("tickets", "ticketsFile")}
    public_suite["ticketsFile"] = QUESTIONS_FILE
    name = str(suite.get("name"))
    questions = [{k: ticket[k] for k in QUESTION_FIELDS if k in ticket} for ticket in tickets]
    public = {
        SUITE_FILE: _text(name, "its public part", public_suite),
        QUESTIONS_FILE: _text(name, "its questions", {"tickets": questions}),
    }
    for path in sorted(files):
        if path.startswith(KB_PREFIX):
            public[path] = files[path]
    for path in _code_files(suite):
        if path not in files:
            raise SuiteSplitError(f"{SUITE_FILE} names the code judge file {path!r}, which is not in it")
        public[path] = files[path]
    calibration = _calibration_file(suite)
    if calibration is not None and calibration in files:  # absent: its judges run as shadow judges
        public[calibration] = public_calibration(files[calibration], calibration)
    customers = _customers(keys)
    return SuiteParts(
        public=public,
        keys=_text(name, "its answer keys", {"keys": keys}),
        customers=_text(name, "its customers", {"customers": customers}) if customers else None,
    )


def _customers(keys: Mapping[str, Any]) -> dict[str, Any]:
    """Each conversational ticket's `conversation`, by id: the smallest part the answer phase needs to play
    its customers (no expected articles, facts, forbidden items or notes, no judge's options)."""
    return {
        tid: key[CONVERSATION_FIELD]
        for tid, key in keys.items()
        if isinstance(key, dict) and key.get(CONVERSATION_FIELD) is not None
    }


def _tickets(files: Mapping[str, bytes], suite: dict[str, Any]) -> list[dict[str, Any]]:
    tickets_file = suite.get("ticketsFile")
    if tickets_file is None:
        tickets = suite.get("tickets")
    elif not isinstance(tickets_file, str) or tickets_file not in files:
        raise SuiteSplitError(f"{SUITE_FILE} names ticketsFile {tickets_file!r}, which is not in it")
    else:
        document = _load(files[tickets_file], tickets_file)
        tickets = document.get("tickets") if isinstance(document, dict) else None
    if not isinstance(tickets, list) or not all(isinstance(t, dict) and "id" in t for t in tickets):
        raise SuiteSplitError("its tickets must be a list of mappings, each with an id")
    for index, ticket in enumerate(tickets):
        unknown = sorted(str(k) for k in ticket if k not in (*QUESTION_FIELDS, "key"))
        if unknown:  # public or key? Neither: refused, as the runner refuses it
            raise SuiteSplitError(
                f"tickets[{index}] ({ticket['id']!r}) has {', '.join(unknown)}: a ticket has only "
                f"{', '.join(QUESTION_FIELDS)} and key"
            )
    return tickets


def _keys(files: Mapping[str, bytes], tickets: list[dict[str, Any]]) -> dict[str, Any]:
    """Each ticket's key: its own, or, for a suite already split, the one in keys.yaml (never both)."""
    inline = {str(t["id"]): t.get("key") or {} for t in tickets}
    if KEYS_FILE not in files:
        return inline
    document = _load(files[KEYS_FILE], KEYS_FILE)
    given = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(given, dict):
        raise SuiteSplitError(f"{KEYS_FILE} must be a mapping with `keys`, by ticket id")
    both = sorted(tid for tid, key in inline.items() if key and tid in given)
    if both:
        raise SuiteSplitError(f"ticket(s) {', '.join(both)} have a key in the public part and in {KEYS_FILE}")
    return {tid: given.get(tid) or key for tid, key in inline.items()} | {
        str(tid): key for tid, key in given.items() if str(tid) not in inline
    }


def _code_files(suite: dict[str, Any]) -> list[str]:
    judges = suite.get("judges")
    listed = judges if isinstance(judges, list) else []
    return [
        judge["file"]
        for judge in listed
        if isinstance(judge, dict) and judge.get("type") == "code" and isinstance(judge.get("file"), str)
    ]


def _calibration_file(suite: dict[str, Any]) -> str | None:
    calibration = suite.get("calibration")
    if not isinstance(calibration, dict):
        return None
    path = calibration.get("file", CALIBRATION_FILE)
    return path if isinstance(path, str) else None


def public_calibration(data: bytes, where: str = CALIBRATION_FILE) -> bytes:
    """A calibration's figures without the labelled answers it lists for review (each judge's
    `disagreements`): what decides which judges gate, and nothing an agent could learn an answer from. The
    judges digest covers this form, so a suite carried split or whole binds its verdict to the same bytes."""
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SuiteSplitError(f"{where} is not JSON: {exc}") from None
    judges = document.get("judges") if isinstance(document, dict) else None
    if isinstance(judges, dict):
        for entry in judges.values():
            if isinstance(entry, dict):
                entry.pop("disagreements", None)
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()


def _load(data: bytes, where: str) -> Any:
    import yaml

    from assay_runner.contract.yaml_scalars import strict_load

    try:
        return strict_load(data)
    except yaml.YAMLError as exc:
        raise SuiteSplitError(f"{where} is not valid YAML: {exc}") from None


def _text(name: str, what: str, data: object) -> bytes:
    import yaml

    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)
    return (HEADER.format(name=name, what=what) + body).encode()
