"""A model call's request body as a metering hop reads it before forwarding: one JSON object, in UTF-8, with
no key repeated in any object and no constant JSON does not have (NaN, Infinity).

The hop refuses what the provider's tools would run or bill apart (`usage.billed_apart`), so it must read
the request exactly as the provider will. Parsers disagree on a repeated key (Python's and Go's keep the
last, others the first or refuse), on `NaN`, and on bodies in UTF-16: a body that could be read two ways
could hide a `tools` list from the hop and show it to the provider. RFC 8259 asks for UTF-8 and unique
names, so such a body is refused, not guessed at; an honest client never sends one."""

from __future__ import annotations

import json
from typing import Any


class UnreadableRequest(ValueError):
    """The body is not one JSON object the hop and every provider read alike; the message says why."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    read: dict[str, Any] = {}
    for key, value in pairs:
        if key in read:
            raise UnreadableRequest(f"the key {key!r} appears twice in one object")
        read[key] = value
    return read


def _no_constant(name: str) -> Any:
    raise UnreadableRequest(f"{name} is not a JSON value")


def read_request(body: bytes) -> dict[str, Any]:
    """The request as a dict, or `UnreadableRequest` saying what is wrong with it."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableRequest(f"the body is not UTF-8 (byte {exc.start})") from None
    try:
        request = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise UnreadableRequest(
            f"the body is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(request, dict):
        raise UnreadableRequest(f"the body is a JSON {type(request).__name__}, not an object")
    return request
