"""Conversations that read before they answer: the scripted model lists the knowledge base with the CLI's
own tool, reads the articles that listing named, searches the KB, and only then writes its answer — built
from what those tools returned. A tool that did not run, failed, or whose result never reached the model
leaves the answer without what it needed, and the conversation writes its fallback instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay_dev.servers.model_server.script import (
    ListFiles,
    ReadFile,
    Say,
    Script,
    Search,
    Step,
    Then,
    WriteFile,
)

ARTICLE_FILE = re.compile(r"(?:^|[\s/:\"'])([A-Za-z0-9][\w.-]*)\.md\b", re.MULTILINE)
"""An article's file name in a listing (`kb/KB-1001.md`, `KB-1001.md`): group 1 is its id."""


@dataclass(frozen=True)
class Results:
    """What the tools returned, by the step that asked: the listing, each read (article id -> text), the
    search."""

    listing: str
    reads: dict[str, str]
    search: str | None


def listed_articles(listing: str) -> list[str]:
    """Article ids in the order the listing named them, each once."""
    return list(dict.fromkeys(match.group(1) for match in ARTICLE_FILE.finditer(listing)))


@dataclass(frozen=True)
class KbLookup:
    """list kb/ -> read each listed article `wanted` accepts -> search kb/ for `search` -> write answer.md
    with `answer(results)` (or `fallback` when it returns None) -> end with `closing`."""

    answer: Callable[[Results], str | None]
    fallback: str
    search: str
    wanted: Callable[[str], bool] = lambda _article: True
    closing: str = "I wrote my reply to the customer to answer.md."
    directory: str = "kb"

    def next_step(self, results: Sequence[str]) -> Step:
        if not results:
            return ListFiles(self.directory)
        reads = [a for a in listed_articles(results[0]) if self.wanted(a)]
        done = len(results) - 1
        if done < len(reads):
            return ReadFile(f"{self.directory}/{reads[done]}.md")
        if done == len(reads):
            return Search(self.search, self.directory)
        if done == len(reads) + 1:
            found = Results(results[0], dict(zip(reads, results[1:], strict=False)), results[-1])
            return WriteFile("answer.md", self.answer(found) or self.fallback)
        return Say(self.closing)

    def script(self, max_turns: int = 16) -> Script:
        """The conversation as a script: every turn decided from the tool results so far."""
        return [Then(self.next_step)] * max_turns


@dataclass(frozen=True)
class CustomerTurns:
    """A conversation with a customer who answers back: `turns[t]` is what the model does on the agent's
    turn t — tool steps, then one `Say` that ends the turn; turns past the last play the last one again.
    Each later turn's message holds `opened_by`
    once (the agent's framing of the customer's reply, e.g. the presets' "# The customer replied"), so a
    request is at the turn that counts how often its history holds it — whatever the customer said, the
    same words on every turn included.

    The server plays the step numbered by the tool results in the whole history, the earlier turns'
    included, so the script of turn t is every earlier turn's tool steps followed by turn t's own: a CLI
    that continued its session (its history holds the earlier turns) is at the right step, and one that
    restarted (only the reply) is not — it plays the opening turn's steps again, which a test sees."""

    turns: Sequence[Script]
    opened_by: str

    def __post_init__(self) -> None:
        if not self.opened_by.strip():
            raise ValueError("opened_by must be a text each later turn's message holds")
        for index, turn in enumerate(self.turns):
            if not turn or not isinstance(turn[-1], Say) or any(isinstance(s, Say) for s in turn[:-1]):
                raise ValueError(f"turn {index} must end with its one Say")

    def turn_of(self, text: str) -> int:
        return text.count(self.opened_by)

    def script_of(self, turn: int) -> Script:
        return self.turns[min(turn, len(self.turns) - 1)]

    def __call__(self, text: str) -> Script:
        """A `ScriptChooser`: the script for the turn the request's text is at."""
        turn = self.turn_of(text)
        earlier = [step for index in range(turn) for step in self.script_of(index)[:-1]]
        return [*earlier, *self.script_of(turn)]
