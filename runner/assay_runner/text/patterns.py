"""Suite-written regular expressions, compiled with RE2 (google-re2): matching time is linear in the text.

Python's `re` backtracks, so a pattern like `(a+)+b` and an answer of many "a"s hang the judge. RE2 has
no backtracking; it does not support look-around or back-references, and a pattern that uses them is
refused by `assay validate` with RE2's reason. Patterns are case-insensitive. A pattern that matches the
empty text (`""`, `a*`) is refused too: it would match at every position of every answer.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2

Pattern = Any  # re2's compiled pattern has no public type


class PatternError(ValueError):
    """The pattern is not an RE2 expression a forbidden item can use."""


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print its own copy of the error on stderr
    options.case_sensitive = False
    return options


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> Pattern:
    try:
        compiled = re2.compile(pattern, _options())
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(f"invalid regular expression {pattern!r} (RE2 syntax): {reason}") from None
    if compiled.search("") is not None:
        raise PatternError(f"regular expression {pattern!r} matches the empty text, so every answer")
    return compiled
