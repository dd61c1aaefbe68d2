"""The operator's own record of the decisions it writes: each approval and override in a status carries a
seal, an HMAC-SHA256 under a key only the operator holds, over the object's uid and the decision's fields.

The status subresource is closed to everyone but the operator at admission (assay_operator.approvals), but
admission can be got around: the policy removed or not installed, a status written while it was absent. A
decision the operator did not write has no seal that verifies, so the operator finds it — at the next watch
event of that object, a status write included — and undoes it, naming in an Event who changed it (the
object's managedFields: the field manager the writer's client gave, the only trace the apiserver keeps for
the operator to read; the audit log is the cluster's, not the operator's).

The key: the file ASSAY_DECISION_KEY_FILE names (the chart mounts a Secret the operator alone mounts, made
once at install and kept on upgrades). Without it the operator makes a key that lives as long as the
process, and says so in its log: its decisions are sealed, but after a restart the seals of the earlier
ones no longer verify, so an earlier approval or override is undone and must be given again (fail closed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path

log = logging.getLogger("assay.operator.seals")
KEY_FILE = "ASSAY_DECISION_KEY_FILE"
MIN_KEY_BYTES = 32
SEAL_LENGTH = 64
"""Hex characters of a seal (HMAC-SHA256)."""


class DecisionKeyError(ValueError):
    """The configured key file is unusable."""


class DecisionKey:
    """The process's key, read once (the file ASSAY_DECISION_KEY_FILE names, else made for the process)."""

    def __init__(self) -> None:
        self._key: bytes | None = None
        self._lock = threading.Lock()

    def get(self) -> bytes:
        with self._lock:
            if self._key is None:
                self._key = self._load()
            return self._key

    @staticmethod
    def _load() -> bytes:
        path = os.environ.get(KEY_FILE)
        if path:
            try:
                key = Path(path).read_bytes().strip()
            except OSError as error:
                raise DecisionKeyError(f"{KEY_FILE}={path}: cannot read the decision key: {error}") from None
            if len(key) < MIN_KEY_BYTES:
                raise DecisionKeyError(
                    f"{KEY_FILE}={path}: the decision key has {len(key)} bytes; {MIN_KEY_BYTES}+"
                )
            return key
        log.warning(
            "no %s: decisions are sealed with a key that lives as long as this process; after a restart "
            "earlier approvals, overrides and verdicts no longer verify and are undone",
            KEY_FILE,
        )
        return secrets.token_bytes(MIN_KEY_BYTES)

    def reset(self) -> None:
        with self._lock:
            self._key = None


KEY = DecisionKey()


def _message(kind: str, uid: str, fields: Mapping[str, object]) -> bytes:
    return json.dumps([kind, uid, dict(fields)], sort_keys=True, separators=(",", ":")).encode()


def seal(kind: str, uid: str, fields: Mapping[str, object]) -> str:
    """The seal of a decision of `kind` ("approval", "override") on the object `uid`."""
    return hmac.new(KEY.get(), _message(kind, uid, fields), hashlib.sha256).hexdigest()


def verifies(kind: str, uid: str, fields: Mapping[str, object], claimed: str | None) -> bool:
    """The decision carries the operator's seal for exactly these fields of exactly this object."""
    return claimed is not None and hmac.compare_digest(seal(kind, uid, fields), claimed)
