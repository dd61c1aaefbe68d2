"""Where a run's evidence key lives (`core.evidence`): a key file no agent can read.

- Named: `--evidence-key FILE` or `evidence.keyFile` in the RunConfig (on the cluster, the Evaluation's
  Secret, mounted where no agent's sandbox reaches). It must exist and hold at least 32 bytes; a phase never
  makes it (a key file where the operator promised one, missing, is a misconfiguration: exit 2).
- Otherwise the per-user key store, outside any run folder: `$XDG_STATE_HOME/assay/evidence/`
  (default `~/.local/state/assay/evidence/`, mode 0700), one file per run named by its key id (0600). The
  phase that starts a run (`assay run`, `assay answer`) makes a key there; the phases after it (`assay
  score`, `--resume`, `gate --verify`, `compare --verify`) find it by the keyId the tree or result records.

Inside the per-cell sandbox an agent reads neither: both are protected paths no grant covers
(run/isolation.py), even where the named file sits in a granted folder (the cluster's /etc/assay/evidence/key
under /etc). Without
the sandbox, an agent running as the same user could read the store: a local run without isolation is only
as trustworthy as the machine (the result records each cell's isolation).
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from assay_runner.core.evidence import KEY_BYTES, EvidenceKey
from assay_runner.errors import InputError, Problem, not_a_file

MAX_KEY_BYTES = 4096
STORE_ENV = "XDG_STATE_HOME"


def store_dir() -> Path:
    state = os.environ.get(STORE_ENV) or str(Path.home() / ".local" / "state")
    return Path(state) / "assay" / "evidence"


def read_key_file(path: Path, where: str = "evidence.keyFile") -> EvidenceKey:
    """A named key file: its bytes are the key. Bad input (exit 2) when missing, unreadable or short, or not
    a file (a FIFO would hang the reader)."""
    if path.exists() and (unreadable := not_a_file(path)) is not None:
        raise InputError([Problem(str(path), where, f"the evidence key file {unreadable}")])
    try:
        with path.open("rb") as stream:
            secret = stream.read(MAX_KEY_BYTES + 1)
    except FileNotFoundError:
        raise InputError([Problem(str(path), where, "the evidence key file is missing")]) from None
    except OSError as exc:
        raise InputError(
            [Problem(str(path), where, f"cannot read the evidence key: {exc.strerror}")]
        ) from None
    if not KEY_BYTES <= len(secret) <= MAX_KEY_BYTES:
        raise InputError(
            [
                Problem(
                    str(path),
                    where,
                    f"an evidence key is {KEY_BYTES} to {MAX_KEY_BYTES} bytes, not {len(secret)}",
                )
            ]
        )
    return EvidenceKey(secret)


def new_stored_key() -> EvidenceKey:
    """A fresh key for a new run, saved in the key store (0600 in a 0700 folder of this user)."""
    key = EvidenceKey.new()
    folder = _store()
    descriptor = os.open(folder / key.key_id, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(key.secret)
    return key


def stored_key(key_id: str) -> EvidenceKey | None:
    """The key store's key named `key_id`, or None when this user's store does not have it."""
    if not key_id.isalnum():
        return None  # a key id is hex: anything else names no file of the store
    path = store_dir() / key_id
    try:
        key = read_key_file(path)
    except InputError:
        return None
    return key if key.key_id == key_id else None


def _store() -> Path:
    folder = store_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise InputError([Problem(str(folder), "", "the evidence key store is not a folder of this user")])
    if stat.S_IMODE(info.st_mode) & 0o077:
        folder.chmod(0o700)  # nobody else may list or read the keys
    return folder


def named_key(key_file: str | None) -> EvidenceKey | None:
    """The key a RunConfig (or `--evidence-key`) names, or None when it names none."""
    return read_key_file(Path(key_file)) if key_file is not None else None


def key_for(key_id: str | None, named: EvidenceKey | None) -> EvidenceKey | None:
    """The key to check evidence made under `key_id` with: the named one when there is one (a key of another
    run then fails the check, named), else the key store's."""
    if named is not None:
        return named
    return stored_key(key_id) if key_id else None


def make_key_file(path: Path) -> tuple[EvidenceKey, bool]:
    """The key at `path`, made there first when there is none (0600): written aside, then linked into place,
    so that several makers at once (an Indexed Job's answer pods) end with one key, never a torn one.
    Returns the key and whether it was made now."""
    if path.exists():
        return read_key_file(path, "evidence-key"), False
    key = EvidenceKey.new()
    # A random name, not the pid: the answer pods of one Indexed Job each run their maker as the first
    # process of its container (pid 1), on the same volume at the same moment.
    partial = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise InputError([Problem(str(path), "", f"cannot make the evidence key: {exc.strerror}")]) from None
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(key.secret)
        stream.flush()
        os.fsync(stream.fileno())
    try:
        os.link(partial, path)
    except FileExistsError:  # another maker was first: its key is the run's
        return read_key_file(path, "evidence-key"), False
    finally:
        partial.unlink()
    return key, True
