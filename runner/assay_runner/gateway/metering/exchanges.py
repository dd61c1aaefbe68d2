"""Agents' model calls recorded as they pass the proxy, and replayed to the same CLIs offline.

An agent CLI's requests are not byte-for-byte repeatable (session ids, dates in its system prompt), so an
exchange is keyed by where it happened, not by its bytes: the cell (`<ticket>/<repetition>`), the endpoint,
and its turn among that cell's calls to that endpoint. A replayed CLI that makes the same calls in the same
order gets the same replies; one that asks for something else (another endpoint, another model, one call
too many) gets an error naming what is missing, never a reply recorded for something else.

Layout: `<cassettes>/exchanges/<ticket>/<repetition>/<endpoint>-<turn>.json`, each holding the request's
model and digest (for a person to read), and the reply: status, content type, body (UTF-8 text, which SSE
streams and JSON are). Beside them `workspace.json` names the cell's workspace as recorded: a CLI's replies
name absolute paths in it (the file a tool call writes), so a replayed cell runs there again
(`agents.workspace.WorkspaceFactory`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

EXCHANGES_DIR = "exchanges"
WORKSPACE_FILE = "workspace.json"


class MissingExchange(LookupError):
    """Replay found no recording for this call."""


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    body: bytes


def _endpoint(path: str) -> str:
    return path.split("?", 1)[0].strip("/").replace("/", "_") or "root"


class Exchanges:
    def __init__(self, directory: Path) -> None:
        self.root = directory / EXCHANGES_DIR

    def _path(self, cell: str, path: str, turn: int) -> Path:
        return self.root / cell / f"{_endpoint(path)}-{turn:04d}.json"

    def load(self, cell: str, path: str, turn: int, model: str | None) -> Reply:
        file = self._path(cell, path, turn)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MissingExchange(
                f"no recorded exchange for cell {cell}, {path} call {turn} (in {file.parent})"
            ) from None
        recorded_model = data["request"].get("model")
        if recorded_model != model:
            raise MissingExchange(
                f"cell {cell}, {path} call {turn} was recorded for model {recorded_model!r}, not {model!r}"
            )
        reply = data["reply"]
        return Reply(int(reply["status"]), str(reply["contentType"]), reply["body"].encode("utf-8"))

    def save_workspace(self, cell: str, root: Path) -> None:
        folder = self.root / cell
        folder.mkdir(parents=True, exist_ok=True)
        (folder / WORKSPACE_FILE).write_text(json.dumps({"root": str(root)}), encoding="utf-8")

    def workspace_of(self, cell: str) -> Path | None:
        """Where the cell's workspace was when it was recorded (None: not recorded, or not readable)."""
        try:
            root = json.loads((self.root / cell / WORKSPACE_FILE).read_text(encoding="utf-8"))["root"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return Path(root) if isinstance(root, str) else None

    def save(self, cell: str, path: str, turn: int, model: str | None, request: bytes, reply: Reply) -> None:
        file = self._path(cell, path, turn)
        file.parent.mkdir(parents=True, exist_ok=True)
        document = {
            "request": {"path": path, "model": model, "sha256": hashlib.sha256(request).hexdigest()},
            "reply": {
                "status": reply.status,
                "contentType": reply.content_type,
                "body": reply.body.decode("utf-8", errors="replace"),
            },
        }
        # Written whole, then moved into place: a replay never reads half an exchange.
        handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=".", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(document, stream, indent=1, ensure_ascii=False)
        os.replace(temporary, file)
