"""How the policy reader's class tests read a sentence and a tuning part: one outcome per sentence
("violation", "uncertain" or "fine"), and a tuning part's rows judged right or wrong per language."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from assay_runner.text.policy_reader import ForbiddenRule, read_policy

CORPUS = Path(__file__).resolve().parents[1] / "data" / "policy_corpus"


def outcome_of(text: str, *phrases: str) -> str:
    reading = read_policy(text, [ForbiddenRule(phrase=p) for p in phrases])
    if reading.violations:
        return "violation"
    return "uncertain" if reading.uncertain else "fine"


@dataclass
class PartReading:
    right: dict[str, list[bool]] = field(default_factory=dict)
    """Per language, whether each row was read as labelled (uncertain blocks)."""
    missed: int = 0
    """Forbidden rows read fine."""

    @property
    def accuracy(self) -> float:
        every = [ok for oks in self.right.values() for ok in oks]
        return sum(every) / len(every)


def read_tuning_part(name: str) -> PartReading:
    """A tuning part whose kinds each name their language (`<language>-...`) and their own phrases."""
    data = yaml.safe_load((CORPUS / name).read_text("utf-8"))
    found = PartReading()
    for kind, body in data["kinds"].items():
        rules = [ForbiddenRule(phrase=p) for p in body["forbidden"]]
        language = body.get("language", "en")
        assert kind.startswith(language), kind
        for row in body["rows"]:
            reading = read_policy(row["text"], rules)
            blocks = bool(reading.violations or reading.uncertain)
            found.right.setdefault(language, []).append(blocks == row["violates"])
            found.missed += row["violates"] and not blocks
    return found
