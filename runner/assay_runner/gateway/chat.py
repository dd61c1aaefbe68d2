"""The one interface between Assay and any model: a chat completion through an OpenAI-compatible gateway.

The scoring core depends only on this Protocol, so judges are tested in memory; the HTTP client, retries
and cassettes implement it elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str


@dataclass(frozen=True)
class ChatReply:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""


class ChatClient(Protocol):
    async def complete(
        self, *, model: str, messages: list[ChatMessage], temperature: float, sample: int = 0
    ) -> ChatReply:
        """One completion. `sample` distinguishes repeated identical requests (for cassettes)."""
        ...
