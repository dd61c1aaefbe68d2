"""Who last wrote a field of an object, as its managedFields record it: the field manager's name (which the
writer's client chooses: `kubectl-patch`, `kubectl-edit`, a controller's own), the operation and the time.

The only trace of a writer the apiserver keeps on the object itself; the audit log would name the
authenticated user, but it is the cluster's, not the operator's to read. So an Event that names a manager
says which tool wrote, not who held it — and a writer that lies about its manager lies here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def last_writer(body: Mapping[str, Any], *path: str) -> str:
    """The manager that last wrote the field at `path` (e.g. "status", "approval"), for a message."""
    return last_writer_of_any(body, [path])


def _manages(entry: Mapping[str, Any], path: Sequence[str]) -> bool:
    fields: Any = entry.get("fieldsV1") or {}
    for key in path:
        fields = fields.get(f"f:{key}") if isinstance(fields, Mapping) else None
    return fields is not None


def last_writer_of_any(body: Mapping[str, Any], paths: Sequence[Sequence[str]]) -> str:
    """The manager that last wrote any of the fields at `paths`, for a message."""
    latest: Mapping[str, Any] | None = None
    for entry in (body.get("metadata") or {}).get("managedFields") or []:
        if not any(_manages(entry, path) for path in paths):
            continue
        if latest is None or str(entry.get("time") or "") >= str(latest.get("time") or ""):
            latest = entry
    where = " or ".join(".".join(path) for path in paths)
    if latest is None:
        return f"a writer managedFields does not name ({where})"
    subresource = f"/{latest['subresource']}" if latest.get("subresource") else ""
    return (
        f"field manager {latest.get('manager') or '?'!r} ({latest.get('operation') or '?'}{subresource} "
        f"at {latest.get('time') or '?'})"
    )
