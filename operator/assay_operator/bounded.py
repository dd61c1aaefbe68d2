"""Status values that fit the CRD's bounds by construction: a list cut to its maxItems ends with a line
saying how many were left out and where to find them, and a text cut to its maxLength says it was cut.

Every list and free text the operator writes into a status passes through these where the status is built,
so the apiserver never refuses a status for its size (a refused status patch leaves a resource silently
stuck: kopf logs the error and moves on).
"""

from __future__ import annotations

from collections.abc import Sequence

ELLIPSIS = "…"


def text(value: str, limit: int) -> str:
    """`value` in at most `limit` characters; a cut one ends with an ellipsis."""
    if len(value) <= limit:
        return value
    return value[: max(0, limit - len(ELLIPSIS))] + ELLIPSIS


def lines(items: Sequence[str], limit: int, width: int, where: str) -> list[str]:
    """At most `limit` lines of at most `width` characters. When there are more, the first `limit - 1` are
    kept and the last line says how many were left out and `where` they can be read."""
    if len(items) <= limit:
        return [text(item, width) for item in items]
    kept = [text(item, width) for item in items[: limit - 1]]
    left = len(items) - len(kept)
    return [*kept, text(f"… and {left} more (of {len(items)}): {where}", width)]
