"""The third to twenty-third held-out parts per answer language (tests/data/policy_corpus/heldout-3/ to
heldout-23/, issue 42) are well formed: one plan, so one set of checks, run on each part.

These tests check the files only: their format, their size per language, their balance and spread over
kinds, that no row repeats another part, and that bench/policy_accuracy.py reads them. They do not hold the
reader at any figure: each part was written without reading the reader, after the part before it had
been read twice, and is measured with `bench/policy_accuracy.py --part PART`. The checker is tested on
malformed rows too, so that a row with a missing label, a label that is not a boolean, an unknown kind or
a key a suite could not hold fails.
"""

from __future__ import annotations

import copy
import functools
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
PARTS = (
    "heldout-3",
    "heldout-4",
    "heldout-5",
    "heldout-6",
    "heldout-7",
    "heldout-8",
    "heldout-9",
    "heldout-10",
    "heldout-11",
    "heldout-12",
    "heldout-13",
    "heldout-14",
    "heldout-15",
    "heldout-16",
    "heldout-17",
    "heldout-18",
    "heldout-19",
    "heldout-20",
    "heldout-21",
    "heldout-22",
    "heldout-23",
)
LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl", "pl")
MINIMUM_ROWS = 45
MINIMUM_ENGLISH_ROWS = 60
# heldout-8 to heldout-23 were written at two thirds of the others' size
# (36 rows per language, 46 in English)
SMALLER_PARTS = {
    "heldout-8": (36, 46),
    "heldout-9": (36, 46),
    "heldout-10": (36, 46),
    "heldout-11": (36, 46),
    "heldout-12": (36, 46),
    "heldout-13": (36, 46),
    "heldout-14": (36, 46),
    "heldout-15": (36, 46),
    "heldout-16": (36, 46),
    "heldout-17": (36, 46),
    "heldout-18": (36, 46),
    "heldout-19": (36, 46),
    "heldout-20": (36, 46),
    "heldout-21": (36, 46),
    "heldout-22": (36, 46),
    "heldout-23": (36, 46),
}
KINDS = {
    "plain",
    "negated",
    "double-negative",
    "header-list",
    "conditional",
    "reported-speech",
    "question",
    "address-form",
    "mixed-language",
    "same-nouns",
    "hypothetical",
    "warning",
}
FILE_KEYS = {"language", "forbidden", "cases"}
CASE_KEYS = {"kind", "violates", "text"}


@functools.cache
def _read(part: str) -> dict[str, dict[str, Any]]:
    folder = CORPUS / part
    return {path.stem: yaml.safe_load(path.read_text("utf-8")) for path in sorted(folder.glob("*.yaml"))}


def _files(part: str) -> dict[str, dict[str, Any]]:
    """The part's files, a copy a test may change."""
    return copy.deepcopy(_read(part))


by_part = pytest.mark.parametrize("part", PARTS)


def _key_problems(specs: object, where: str) -> list[str]:
    if not isinstance(specs, list) or not specs:
        return [f"{where}: forbidden must be a non-empty list"]
    problems = []
    for spec in specs:
        try:
            ForbiddenRule.from_spec(spec)
        except (TypeError, ValueError) as error:  # an item a suite could not hold
            problems.append(f"{where}: forbidden item {spec!r}: {error}")
    return problems


def problems(data: object, language: str) -> list[str]:
    """Everything wrong with one language file, each problem saying where."""
    name = f"{language}.yaml"
    if not isinstance(data, dict) or set(data) != FILE_KEYS:
        return [f"{name}: keys must be {sorted(FILE_KEYS)}"]
    found = [] if data["language"] == language else [f"{name}: language {data['language']!r}"]
    found += _key_problems(data["forbidden"], name)
    if not isinstance(data["cases"], list):
        return [*found, f"{name}: cases must be a list"]
    for index, case in enumerate(data["cases"]):
        where = f"{name} case {index}"
        if not isinstance(case, dict) or not CASE_KEYS <= set(case) <= CASE_KEYS | {"forbidden"}:
            found.append(f"{where}: keys must be {sorted(CASE_KEYS)} and optionally forbidden")
            continue
        if case["kind"] not in KINDS:
            found.append(f"{where}: unknown kind {case['kind']!r}")
        if not isinstance(case["violates"], bool):
            found.append(f"{where}: violates must be true or false, not {case['violates']!r}")
        if not isinstance(case["text"], str) or not case["text"].strip():
            found.append(f"{where}: text must be a non-empty string")
        if "forbidden" in case:
            found += _key_problems(case["forbidden"], where)
    return found


@by_part
def test_every_language_has_a_file(part: str) -> None:
    assert set(_files(part)) == set(LANGUAGES)


@by_part
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_language_file_is_well_formed(part: str, language: str) -> None:
    assert problems(_files(part)[language], language) == []


MALFORMED = {
    "no label": lambda case: case.pop("violates"),
    "a label that is a string": lambda case: case.update(violates="yes"),
    "an unknown kind": lambda case: case.update(kind="rhetorical"),
    "an empty text": lambda case: case.update(text="  "),
    "an unknown key": lambda case: case.update(verdict=True),
    "an empty own key": lambda case: case.update(forbidden=[]),
    "an own key a suite could not hold": lambda case: case.update(forbidden=[{"label": "no phrase"}]),
}


@by_part
@pytest.mark.parametrize("fault", sorted(MALFORMED))
def test_a_malformed_row_is_found(part: str, fault: str) -> None:
    data = _files(part)["fr"]
    MALFORMED[fault](data["cases"][3])
    found = problems(data, "fr")
    assert found and all(problem.startswith("fr.yaml case 3:") for problem in found), found


@by_part
def test_a_malformed_file_is_found(part: str) -> None:
    data = _files(part)["pl"]
    assert problems(data, "de") == ["de.yaml: language 'pl'"]
    data["forbidden"].append({"phrase": "x", "pattern": "y"})
    assert len(problems(data, "pl")) == 1
    del data["forbidden"]
    assert problems(data, "pl") == [f"pl.yaml: keys must be {sorted(FILE_KEYS)}"]


@by_part
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_language_is_large_balanced_and_spread_over_kinds(part: str, language: str) -> None:
    cases = _files(part)[language]["cases"]
    assert len(cases) >= SMALLER_PARTS.get(part, (MINIMUM_ROWS, MINIMUM_ENGLISH_ROWS))[0]
    blocking = sum(case["violates"] for case in cases)
    assert 0.4 <= blocking / len(cases) <= 0.6, f"{blocking} of {len(cases)} block"
    per_kind = Counter(case["kind"] for case in cases)
    assert set(per_kind) == KINDS, f"missing kinds: {sorted(KINDS - set(per_kind))}"
    assert max(per_kind.values()) <= math.ceil(len(cases) / 3), per_kind.most_common(1)


@by_part
def test_english_has_at_least_as_many_rows_as_any_language(part: str) -> None:
    sizes = {language: len(data["cases"]) for language, data in _files(part).items()}
    minimum = SMALLER_PARTS.get(part, (MINIMUM_ROWS, MINIMUM_ENGLISH_ROWS))[1]
    assert sizes["en"] == max(sizes.values()) and sizes["en"] >= minimum, sizes


@by_part
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_language_quotes_a_third_language_once_under_its_own_key(part: str, language: str) -> None:
    # every mixed-language file quotes a third language once, under a key of its own
    data = _files(part)[language]
    own = [case for case in data["cases"] if "forbidden" in case]
    assert len(own) == 1 and own[0]["kind"] == "mixed-language", own
    labels = {spec["label"] for spec in data["forbidden"]}
    assert {spec["label"] for spec in own[0]["forbidden"]} <= labels


def _texts_of_other_parts(part: str) -> set[str]:
    texts: set[str] = set()
    for path in CORPUS.glob("*.yaml"):
        for body in yaml.safe_load(path.read_text("utf-8"))["kinds"].values():
            texts.update(row["text"] for row in (body["rows"] if isinstance(body, dict) else body))
    for folder in (path for path in CORPUS.iterdir() if path.is_dir() and path.name != part):
        for path in folder.glob("*.yaml"):
            texts.update(case["text"] for case in yaml.safe_load(path.read_text("utf-8"))["cases"])
    return texts


@by_part
def test_no_row_repeats_another_part_or_itself(part: str) -> None:
    texts = [case["text"] for data in _files(part).values() for case in data["cases"]]
    assert len(texts) == len(set(texts)), [text for text, n in Counter(texts).items() if n > 1]
    assert not _texts_of_other_parts(part) & set(texts)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("policy_accuracy", ROOT / "bench" / "policy_accuracy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@by_part
def test_the_bench_reads_the_part_with_its_languages_and_kinds(part: str) -> None:
    bench = _bench()
    assert part in bench.PARTS
    rows = bench.corpus_rows(part)
    files = _files(part)
    assert Counter(row.language for row in rows) == {lang: len(d["cases"]) for lang, d in files.items()}
    assert {row.kind for row in rows} == KINDS
    assert [row.violates for row in rows] == [c["violates"] for d in files.values() for c in d["cases"]]
    own = [row for row in rows if row.kind == "mixed-language" and row.language == "it"]
    # a case's own key (two phrases) replaces the file's (ten)
    assert sorted(len(row.rules) for row in own) == [2, 10, 10]
