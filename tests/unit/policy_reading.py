"""How the policy reader's class tests read a sentence and a tuning part: one outcome per sentence
("violation", "uncertain" or "fine"), a tuning part's rows judged right or wrong per language, and the
shape every round's tuning part keeps (`check_tuning_part_shape`, `check_no_row_repeats_another_part`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from assay_runner.text.language import LANGUAGES
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


def check_tuning_part_shape(part: Path, forms: set[str], rows: range, least_per_language: int) -> None:
    """A round's tuning part: kinds named `<language>-<form>` (`-2` for its second batch), each with its
    own forbidden phrases; every language present with at least `least_per_language` rows, 40-65% of
    them forbidden; as many rows in all as `rows` allows."""
    labels = labels_by_language(part, forms)
    assert sum(map(len, labels.values())) in rows
    assert set(labels) == set(LANGUAGES)
    for language, violates in labels.items():
        assert len(violates) >= least_per_language, language
        assert 0.4 <= sum(violates) / len(violates) <= 0.65, language


def labels_by_language(part: Path, forms: set[str]) -> dict[str, list[bool]]:
    """A round's tuning part read by language: kinds named `<language>-<form>` (`-2` for its second
    batch), each with its own forbidden phrases and its language said; every row's label."""
    kinds = yaml.safe_load(part.read_text("utf-8"))["kinds"]
    labels: dict[str, list[bool]] = {}
    for kind, body in kinds.items():
        language, form = kind.split("-", 1)
        assert body.get("language", "en") == language and form.removesuffix("-2") in forms, kind
        assert body["forbidden"], kind
        labels.setdefault(language, []).extend(row["violates"] for row in body["rows"])
    return labels


def row_texts(node: object) -> set[str]:
    """Every row text in a loaded part (rows are mappings with a `text`)."""
    if isinstance(node, dict):
        own = {node["text"]} if isinstance(node.get("text"), str) else set()
        return own.union(*(row_texts(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(row_texts(v) for v in node))
    return set()


def check_no_row_repeats_another_part(part: Path) -> None:
    mine = row_texts(yaml.safe_load(part.read_text("utf-8")))
    for other in CORPUS.rglob("*.yaml"):
        if other != part:
            assert not mine & row_texts(yaml.safe_load(other.read_text("utf-8"))), other
