"""A judge model's reply read as JSON: the whole reply, or the inside of the one code fence that models often
wrap it in."""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def reply_json(text: str) -> object:
    """The reply's JSON value; json.JSONDecodeError when it is not JSON."""
    body = text.strip()
    fenced = _FENCE.match(body)
    return json.loads(fenced.group(1) if fenced else body)
