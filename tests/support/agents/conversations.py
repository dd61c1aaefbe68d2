"""The conversations the real-agent tests play, by name, from JSON-able parameters (isolated_run.py's spec).

`lookup`: the ticket asks for an export code and a size limit. The KB holds one article, whose id the test
draws at random (so only the listing names it), holding the code (so only reading it gives it) and the limit
(found by the search). The answer cites the article and states both; without the listing, the read or the
search it is the fallback, which states neither.
"""

from __future__ import annotations

import re
from typing import Any

from assay_dev.servers.model_server import KbLookup, Results, Script

FALLBACK = (
    "## Summary\nI could not find an article about exports in the knowledge base.\n\n"
    "## Steps\n1. Please wait while I ask the team.\n\n## Next\nI will come back to you.\n"
)


def lookup_answer(results: Results) -> str | None:
    read = "\n".join(results.reads.values())
    code = re.search(r"\bZX-\d{4}\b", read)
    limit = re.search(r"over (\d+) GB", results.search or "")
    if not results.reads or code is None or limit is None:
        return None
    article = next(iter(results.reads))
    return (
        f"## Summary\nYour export code is {code.group(0)} [{article}].\n\n"
        f"## Steps\n1. Enter {code.group(0)} under Settings > Export.\n"
        f"2. Exports over {limit.group(1)} GB arrive in parts.\n\n## Next\nReply if anything is unclear.\n"
    )


def conversation(name: str, **params: Any) -> Script:
    if name == "lookup":
        return KbLookup(answer=lookup_answer, fallback=FALLBACK, search=r"over \d+ GB", **params).script()
    raise ValueError(f"unknown conversation {name!r}")
