"""The sixth tuning part (tests/data/policy_corpus/tuning-r6.yaml, issue 42): questions, conditionals and
hypotheticals, lists, mixed-language answers and idioms of necessity in the eight languages, written
before the reader was changed for them. Its format is held here, like the other tuning parts'."""

from __future__ import annotations

import yaml

from assay_runner.text.language import LANGUAGES
from tests.unit.policy_reading import CORPUS

PART = CORPUS / "tuning-r6.yaml"
FORMS = {"question", "conditional", "list", "mixed", "idiom"}


def test_the_part_covers_every_language_and_form_half_forbidden() -> None:
    kinds = yaml.safe_load(PART.read_text("utf-8"))["kinds"]
    rows = [(kind, body, row) for kind, body in kinds.items() for row in body["rows"]]
    assert 120 <= len(rows) <= 200
    for kind, body in kinds.items():
        language, form = kind.split("-", 1)
        assert body.get("language", "en") == language and form in FORMS, kind
        assert body["forbidden"], kind
    by_language: dict[str, list[bool]] = {}
    for kind, _, row in rows:
        by_language.setdefault(kind.split("-")[0], []).append(row["violates"])
    assert set(by_language) == set(LANGUAGES)
    for language, labels in by_language.items():
        assert len(labels) >= 15, language
        assert 0.4 <= sum(labels) / len(labels) <= 0.6, language


def _texts(node: object) -> set[str]:
    """Every row text in a loaded part (rows are mappings with a `text`)."""
    if isinstance(node, dict):
        own = {node["text"]} if isinstance(node.get("text"), str) else set()
        return own.union(*(_texts(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_texts(v) for v in node))
    return set()


def test_no_row_repeats_another_part() -> None:
    mine = _texts(yaml.safe_load(PART.read_text("utf-8")))
    for other in CORPUS.rglob("*.yaml"):
        if other != PART:
            assert not mine & _texts(yaml.safe_load(other.read_text("utf-8"))), other
