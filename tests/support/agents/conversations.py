"""The conversations the real-agent tests play, by name, from JSON-able parameters (isolated_run.py's spec).

`customer` (issue 40): a conversation with the customer of tests/support/conversations.py's ticket, who
answers back. `behaviour`: `asks` (which router the customer has, then answers with the firmware for it),
`guesses` (the same fix on every turn), `asksLate` (first something the ticket does not need, then the
router: one turn too many for a limit of two).

`lookup`: the ticket asks for an export code and a size limit. The KB holds one article, whose id the test
draws at random (so only the listing names it), holding the code (so only reading it gives it) and the limit
(found by the search). The answer cites the article and states both; without the listing, the read or the
search it is the fallback, which states neither.
"""

from __future__ import annotations

import re
from typing import Any

from tests.support import conversations as ticket

from assay_dev.servers.model_server import CustomerTurns, KbLookup, Results, Say, Script, WriteFile
from assay_runner.agents.presets import CUSTOMER_REPLIED

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


CLARIFY = "## Summary\nI am sorry to hear that.\n\nDoes it drop on every device in your home?\n"


def customer(behaviour: str) -> CustomerTurns:
    def turn(text: str, said: str) -> Script:
        return [WriteFile("answer.md", text), Say(said)]

    wrote = "I wrote my reply to answer.md."
    turns = {
        "asks": [turn(ticket.ASKING, "I asked which router the customer has."), turn(ticket.ANSWER, wrote)],
        "guesses": [turn(ticket.GUESS, wrote)],
        "asksLate": [turn(CLARIFY, wrote), turn(ticket.ASKING, wrote)],
    }[behaviour]
    return CustomerTurns(turns, CUSTOMER_REPLIED)


def conversation(name: str, **params: Any) -> Script | CustomerTurns:
    if name == "customer":
        return customer(**params)
    if name == "lookup":
        return KbLookup(answer=lookup_answer, fallback=FALLBACK, search=r"over \d+ GB", **params).script()
    raise ValueError(f"unknown conversation {name!r}")
