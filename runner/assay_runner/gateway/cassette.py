"""Recording and replaying model calls, keyed by a hash of the request.

A cassette directory holds one JSON file per call: `<sha256>.json` with the request (for a person to read)
and the reply. The key covers the model, the messages, the temperature and the sample index, so three
samples of one grade are three recordings. Modes: `off` (always call), `record` (call and save),
`replay` (never call; a miss is an error naming the request), `replay-or-record` (replay, else call and save).
This lets a team re-score old answers offline after fixing a judge, and lets the example run offline.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from assay_runner.gateway.chat import ChatClient, ChatMessage, ChatReply
from assay_runner.gateway.errors import CassetteMiss, GatewayError
from assay_runner.vocabulary import CassetteMode


def request_key(model: str, messages: list[ChatMessage], temperature: float, sample: int) -> str:
    canonical = json.dumps(
        {
            "model": model,
            "temperature": temperature,
            "sample": sample,
            "messages": [[m.role, m.content] for m in messages],
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


class CassetteClient:
    def __init__(self, directory: Path, mode: CassetteMode, inner: ChatClient | None) -> None:
        if mode in ("record", "replay-or-record", "off") and inner is None:
            raise GatewayError(f"cassette mode {mode!r} needs a gateway to call (give --gateway)")
        self.directory = directory
        self.mode = mode
        self.inner = inner
        self.hits = 0
        self.recorded = 0

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def _load(self, path: Path) -> ChatReply:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            reply = data["reply"]
            return ChatReply(
                text=reply["text"],
                input_tokens=int(reply.get("inputTokens", 0)),
                output_tokens=int(reply.get("outputTokens", 0)),
                model=reply.get("model", ""),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise GatewayError(f"cassette {path} is unreadable: {exc!r}") from None

    def _save(
        self,
        path: Path,
        model: str,
        messages: list[ChatMessage],
        temperature: float,
        sample: int,
        reply: ChatReply,
    ) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        record = {
            "request": {
                "model": model,
                "temperature": temperature,
                "sample": sample,
                "messages": [{"role": m.role, "content": m.content} for m in messages],
            },
            "reply": {
                "text": reply.text,
                "inputTokens": reply.input_tokens,
                "outputTokens": reply.output_tokens,
                "model": reply.model,
            },
        }
        # Write-then-rename: concurrent tickets never leave a half-written cassette behind.
        handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(record, stream, indent=2, ensure_ascii=False)
            stream.write("\n")
        # mkstemp makes 0600 files; a cassette is shared data (committed, mounted into other users' pods).
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)

    async def complete(
        self, *, model: str, messages: list[ChatMessage], temperature: float, sample: int = 0
    ) -> ChatReply:
        key = request_key(model, messages, temperature, sample)
        path = self._path(key)
        if self.mode in ("replay", "replay-or-record") and path.is_file():
            self.hits += 1
            return self._load(path)
        if self.mode == "replay":
            preview = messages[-1].content[:80].replace("\n", " ") if messages else ""
            raise CassetteMiss(
                f"no recording {key[:12]}… in {self.directory} for model {model!r}, sample "
                f"{sample} ({preview!r}); record it with --cassette-mode replay-or-record"
            )
        assert self.inner is not None
        reply = await self.inner.complete(
            model=model, messages=messages, temperature=temperature, sample=sample
        )
        if self.mode != "off":
            self._save(path, model, messages, temperature, sample, reply)
            self.recorded += 1
        return reply
