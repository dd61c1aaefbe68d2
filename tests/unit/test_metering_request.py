"""A model call's body is read one way only: a body parsers could read two ways is refused, saying why."""

from __future__ import annotations

import json

import pytest

from assay_runner.gateway.metering.request import UnreadableRequest, read_request

CALL = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": []}


def test_a_plain_json_object_is_read_as_it_is() -> None:
    assert read_request(json.dumps(CALL).encode()) == CALL
    assert read_request(json.dumps({"text": "héllo ✓"}, ensure_ascii=False).encode()) == {"text": "héllo ✓"}


@pytest.mark.parametrize(
    ("body", "why"),
    [
        # Python and Go keep the last `tools`, others the first: the hop would see none, the provider one.
        (b'{"model": "m", "tools": [{"type": "web_search"}], "tools": []}', "'tools' appears twice"),
        (b'{"model": "cheap", "messages": [], "model": "dear"}', "'model' appears twice"),
        (b'{"tools": [{"type": "function", "type": "web_search"}]}', "'type' appears twice"),
        (b'{"max_tokens": NaN}', "NaN is not a JSON value"),
        (b'{"temperature": -Infinity}', "-Infinity is not a JSON value"),
        (json.dumps(CALL).encode("utf-16"), "not UTF-8"),
        (b"\xef\xbb\xbf" + json.dumps(CALL).encode(), "not JSON"),  # a UTF-8 byte-order mark
        (b'{"model": "m",}', "not JSON"),
        (b"", "not JSON"),
        (b'[{"model": "m"}]', "a JSON list, not an object"),
        (b'"m"', "a JSON str, not an object"),
    ],
)
def test_a_body_read_two_ways_or_not_at_all_is_refused_saying_why(body: bytes, why: str) -> None:
    with pytest.raises(UnreadableRequest, match=why.replace("(", r"\(")):
        read_request(body)
