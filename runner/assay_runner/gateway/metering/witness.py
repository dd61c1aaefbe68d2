"""What reached the model, as the metering proxy relayed it: the tool results in each cell's requests.

A model call carries the conversation so far, the tool results included — Chat Completions as `tool`
messages, Responses as `*_output` input items (`function_call_output`, `custom_tool_call_output`...),
Anthropic Messages as `tool_result` blocks. What the model was shown is the evidence trajectory judges
gate on (an article was read when its content reached the model: `text.excerpt`), not what a CLI prints
about itself. Each cell's distinct results are kept (a later call repeats the earlier ones), normalised, up
to `MAX_CELL_CHARS`; past it the rest is not kept and the cell says so (fail closed: a read not kept does not
count).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from assay_runner.gateway.metering.usage import Protocol
from assay_runner.text.excerpt import normalised

MAX_CELL_CHARS = 4 << 20
"""Normalised tool-result characters kept per cell (some 4 MB: a cell's KB reads fit many times over)."""


def _text(value: Any) -> str:
    """A tool result's text: a string (a JSON document in it read for its strings), or the texts of a list
    of content parts."""
    if isinstance(value, str):
        if not value.lstrip().startswith(("{", "[")):
            return value
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return value if isinstance(parsed, str) else _text(parsed)
    if isinstance(value, list):
        return "\n".join(_text(item) for item in value)
    if isinstance(value, dict):
        return "\n".join(_text(item) for item in value.values() if isinstance(item, str | list | dict))
    return ""


def tool_results(protocol: Protocol, body: bytes) -> list[str]:
    """The tool results a model-call request carries, as text."""
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return []
    if not isinstance(request, dict):
        return []
    found: list[Any] = []
    if protocol == "chat":
        messages = request.get("messages")
        for message in messages if isinstance(messages, list) else []:
            if isinstance(message, dict) and message.get("role") in ("tool", "function"):
                found.append(message.get("content"))
    elif protocol == "responses":
        items = request.get("input")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and str(item.get("type", "")).endswith("_output"):
                found.append(item.get("output"))
    else:
        messages = request.get("messages")
        for message in messages if isinstance(messages, list) else []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(block.get("content"))
    return [_text(value) for value in found]


@dataclass
class CellRecord:
    results: list[str] = field(default_factory=list)
    """Distinct tool results, normalised, in the order the model first saw them."""
    chars: int = 0
    not_kept: int = 0
    """Results past MAX_CELL_CHARS, not kept."""
    _seen: set[bytes] = field(default_factory=set)


class Witness:
    """The tool results each cell's requests carried to the model."""

    def __init__(self, max_cell_chars: int = MAX_CELL_CHARS) -> None:
        self.max_cell_chars = max_cell_chars
        self._cells: dict[str, CellRecord] = {}

    def relayed(self, cell: str, protocol: Protocol, body: bytes) -> None:
        """A request of `cell` reached the model."""
        record = self._cells.setdefault(cell, CellRecord())
        for result in tool_results(protocol, body):
            digest = hashlib.sha256(result.encode("utf-8", errors="replace")).digest()
            if digest in record._seen:
                continue
            record._seen.add(digest)
            text = normalised(result)
            if record.chars + len(text) > self.max_cell_chars:
                record.not_kept += 1
                continue
            record.results.append(text)
            record.chars += len(text)

    def of(self, cell: str) -> CellRecord:
        return self._cells.get(cell) or CellRecord()

    def forget(self, cell: str) -> None:
        self._cells.pop(cell, None)
