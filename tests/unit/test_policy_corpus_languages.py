"""The held-out part per answer language (tests/data/policy_corpus/heldout-languages/, issue 42) is well
formed.

These tests check the files only: their format, their size per language, their balance and spread over
kinds, and that bench/policy_accuracy.py reads them. They do not hold the reader at any figure: the part
was written before the reader changed and is measured with
`bench/policy_accuracy.py --part heldout-languages`.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from assay_runner.text.policy_reader import ForbiddenRule

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "policy_corpus"
FOLDER = CORPUS / "heldout-languages"
MINIMUM_ROWS = {"en": 60, "it": 60, "pt": 60, "nl": 60, "pl": 60, "fr": 30, "de": 30, "es": 30}
KINDS = {
    "plain",
    "negated",
    "question-conditional",
    "reported-speech",
    "do-instead",
    "header-list",
    "double-negative",
    "mixed-language",
    "inflection",
    "address-form",
}
FILE_KEYS = {"language", "forbidden", "cases"}
CASE_KEYS = {"kind", "violates", "text", "forbidden"}


def _files() -> dict[str, dict[str, Any]]:
    return {path.stem: yaml.safe_load(path.read_text("utf-8")) for path in sorted(FOLDER.glob("*.yaml"))}


def _check_rules(specs: object, where: str) -> None:
    assert isinstance(specs, list) and specs, f"{where}: forbidden must be a non-empty list"
    for spec in specs:
        ForbiddenRule.from_spec(spec)  # raises on an item a suite could not hold


def test_every_language_has_a_file() -> None:
    assert set(_files()) == set(MINIMUM_ROWS)


@pytest.mark.parametrize("language", sorted(MINIMUM_ROWS))
def test_a_language_file_is_well_formed(language: str) -> None:
    data = _files()[language]
    assert set(data) == FILE_KEYS, f"{language}.yaml: keys {sorted(data)}"
    assert data["language"] == language
    _check_rules(data["forbidden"], f"{language}.yaml")
    for index, case in enumerate(data["cases"]):
        where = f"{language}.yaml case {index}"
        assert set(case) - {"forbidden"} == CASE_KEYS - {"forbidden"}, f"{where}: keys {sorted(case)}"
        assert set(case) <= CASE_KEYS, f"{where}: keys {sorted(case)}"
        assert case["kind"] in KINDS, f"{where}: unknown kind {case['kind']!r}"
        assert isinstance(case["violates"], bool), where
        assert isinstance(case["text"], str) and case["text"].strip(), where
        if "forbidden" in case:
            _check_rules(case["forbidden"], where)


@pytest.mark.parametrize("language", sorted(MINIMUM_ROWS))
def test_a_language_is_large_balanced_and_spread_over_kinds(language: str) -> None:
    cases = _files()[language]["cases"]
    assert len(cases) >= MINIMUM_ROWS[language]
    blocking = sum(case["violates"] for case in cases)
    assert 0.4 <= blocking / len(cases) <= 0.6, f"{blocking} of {len(cases)} block"
    per_kind = Counter(case["kind"] for case in cases)
    assert set(per_kind) == KINDS, f"missing kinds: {sorted(KINDS - set(per_kind))}"
    assert max(per_kind.values()) <= math.ceil(len(cases) / 3), per_kind.most_common(1)


def test_no_row_repeats_another_part_or_itself() -> None:
    texts = [case["text"] for data in _files().values() for case in data["cases"]]
    assert len(texts) == len(set(texts)), [text for text, n in Counter(texts).items() if n > 1]
    older: set[str] = set()
    for part in ("development", "heldout"):
        data = yaml.safe_load((CORPUS / f"{part}.yaml").read_text("utf-8"))
        for body in data["kinds"].values():
            rows = body["rows"] if isinstance(body, dict) else body
            older.update(row["text"] for row in rows)
    assert not older & set(texts)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("policy_accuracy", ROOT / "bench" / "policy_accuracy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_bench_reads_the_part_with_its_languages_and_kinds() -> None:
    rows = _bench().corpus_rows("heldout-languages")
    files = _files()
    assert len(rows) == sum(len(data["cases"]) for data in files.values())
    assert Counter(row.language for row in rows) == {lang: len(d["cases"]) for lang, d in files.items()}
    assert {row.kind for row in rows} == KINDS
    own = [row for row in rows if row.kind == "mixed-language" and row.language == "en"]
    assert own and all(len(row.rules) == 2 for row in own)  # a case's own key replaces the file's
