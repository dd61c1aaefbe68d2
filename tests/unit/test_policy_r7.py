"""The seventh tuning part (tests/data/policy_corpus/tuning-r7.yaml, issue 42): plain recommendations,
double negatives, German and Dutch separable and verb-final verbs, questions that instruct, reported
speech, hypotheticals and headers that negate their list, in the eight languages, written before the
reader was changed for them. Its format is held here, like the other tuning parts'."""

from __future__ import annotations

import yaml

from assay_runner.text.language import LANGUAGES
from tests.unit.policy_reading import CORPUS

PART = CORPUS / "tuning-r7.yaml"
FORMS = {"plain", "double", "verbfinal", "question", "reported", "hypothetical", "header"}


def test_the_part_covers_every_language_and_form_half_forbidden() -> None:
    kinds = yaml.safe_load(PART.read_text("utf-8"))["kinds"]
    rows = [(kind, row) for kind, body in kinds.items() for row in body["rows"]]
    assert 150 <= len(rows) <= 300  # 186 in the first batch
    for kind, body in kinds.items():
        language, form = kind.split("-", 1)
        form = form.removesuffix("-2")  # the second batch
        assert body.get("language", "en") == language and form in FORMS, kind
        assert body["forbidden"], kind
    by_language: dict[str, list[bool]] = {}
    for kind, row in rows:
        by_language.setdefault(kind.split("-")[0], []).append(row["violates"])
    assert set(by_language) == set(LANGUAGES)
    for language, labels in by_language.items():
        assert len(labels) >= 20, language
        assert 0.4 <= sum(labels) / len(labels) <= 0.65, language


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
