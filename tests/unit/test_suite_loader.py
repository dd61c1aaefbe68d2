"""Suite validation: every problem named with its file, field and line; nothing loads from a bad suite."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay_runner.errors import InputError
from assay_runner.suite import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"

MINIMAL = """\
name: mini
judges:
  - {name: kb, type: kb_citation, weight: 1, threshold: 0.9}
tickets:
  - id: T-1
    split: validation
    question: How?
    key: {kb: [KB-1]}
"""


def write_suite(
    tmp_path: Path, suite: str, tickets: str | None = None, kb: tuple[str, ...] = ("KB-1",)
) -> Path:
    (tmp_path / "kb").mkdir(exist_ok=True)
    for article in kb:
        (tmp_path / "kb" / f"{article}.md").write_text(f"# {article}\n")
    (tmp_path / "suite.yaml").write_text(suite)
    if tickets is not None:
        (tmp_path / "tickets.yaml").write_text(tickets)
    return tmp_path


def problems(tmp_path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_suite(tmp_path)
    return [str(p) for p in info.value.problems]


def test_example_suite_loads() -> None:
    suite = load_suite(EXAMPLE)
    assert len(suite.tickets) >= 12 and len(suite.kb) >= 10
    assert {t.split for t in suite.tickets} == {"training", "validation"}
    weights = {j.name: j.weight for j in suite.spec.judges}
    assert weights == {
        "kb_citation": 0.25,
        "must_mention": 0.25,
        "policy": 0.15,
        "format": 0.15,
        "quality": 0.20,
        "abstention": 0.0,
        "exit_code": 0.0,
        "read_before_citing": 0.0,
        "tool_use": 0.0,
    }


def test_minimal_inline_suite(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path, MINIMAL))
    assert [t.id for t in suite.tickets] == ["T-1"]
    assert suite.spec.gate.min_score == 0.9 and suite.spec.gate.ticket_floor == 0.7


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("threshold: 0.9}", "threshold: 0.9, weigth: 2}"), "suite.yaml:3: judges[0].weigth: unknown key"),
        (("type: kb_citation", "type: kb_cite"), "suite.yaml:3: judges[0]: Input tag 'kb_cite' found"),
        (
            ("threshold: 0.9", "threshold: 1.5"),
            "suite.yaml:3: judges[0].threshold: threshold 1.5 is outside the judge's scale [0, 1]",
        ),
        (
            ("threshold: 0.9", "threshold: high"),
            "suite.yaml:3: judges[0].threshold: Input should be a valid number",
        ),
        (
            ("split: validation", "split: valid"),
            "suite.yaml:6: tickets[0].split: Input should be 'training' or",
        ),
        (("kb: [KB-1]", "kb: [KB-2]"), "suite.yaml:8: tickets[0].key.kb: article 'KB-2' not found"),
        (("    question: How?\n", ""), "tickets[0].question: Field required"),
        (("name: mini", "name: Mini Suite"), "suite.yaml:1: name: String should match pattern"),
        (("weight: 1,", "weight: 0,"), "at least one judge needs a weight above 0"),
        (
            ("    key: {kb: [KB-1]}", "    key: {kb: [KB-1]}\n    key: {kb: []}"),
            "suite.yaml:9: tickets[0].key: duplicate key",
        ),
        (("tickets:", "ticketz:"), "ticketz: unknown key"),
        (("question: How?", "question: [unclosed"), "suite.yaml:8: invalid YAML"),
    ],
    ids=[
        "typo-key",
        "unknown-type",
        "threshold-range",
        "threshold-type",
        "split",
        "unknown-article",
        "missing",
        "name-pattern",
        "no-weight",
        "duplicate-key",
        "unknown-top-key",
        "yaml-syntax",
    ],
)
def test_problems_name_file_line_and_field(tmp_path: Path, edit: tuple[str, str], expected: str) -> None:
    write_suite(tmp_path, MINIMAL.replace(*edit))
    found = problems(tmp_path)
    assert any(expected in p for p in found), found


def test_all_problems_are_reported_together(tmp_path: Path) -> None:
    tickets = """\
tickets:
  - {id: T-1, split: validation, question: a, key: {kb: [KB-1]}}
  - {id: T-1, split: validation, question: b, key: {kb: [KB-9], scopePolicy: KB-1}}
"""
    write_suite(tmp_path, MINIMAL.split("tickets:", maxsplit=1)[0] + "ticketsFile: tickets.yaml\n", tickets)
    found = problems(tmp_path)
    assert any("tickets.yaml:3: tickets[1].id: duplicate ticket id 'T-1'" in p for p in found), found
    assert any("tickets[1].key.kb: article 'KB-9' not found" in p for p in found), found
    assert any("scopePolicy only applies when shouldAbstain is true" in p for p in found), found


def test_model_judge_threshold_must_sit_on_its_scale(tmp_path: Path) -> None:
    suite = MINIMAL.replace(
        "threshold: 0.9}",
        "threshold: 0.9}\n  - {name: q, type: model, weight: 1, threshold: 7, scale: [1, 5], rubric: r}",
    )
    write_suite(tmp_path, suite)
    assert any("threshold 7 is outside the judge's scale [1, 5]" in p for p in problems(tmp_path))


def test_code_judge_file_must_exist_inside_suite(tmp_path: Path) -> None:
    suite = MINIMAL.replace(
        "threshold: 0.9}",
        "threshold: 0.9}\n  - {name: c, type: code, weight: 0, threshold: 1, file: ../outside.py}",
    )
    write_suite(tmp_path, suite)
    assert any("judges[1].file: must stay inside the suite directory" in p for p in problems(tmp_path))


def test_missing_tickets_file_is_named(tmp_path: Path) -> None:
    write_suite(tmp_path, MINIMAL.split("tickets:", maxsplit=1)[0] + "ticketsFile: nowhere.yaml\n")
    assert any("nowhere.yaml: file not found" in p for p in problems(tmp_path))


def test_select_by_split_and_ids() -> None:
    suite = load_suite(EXAMPLE)
    validation = suite.select("validation")
    assert validation and all(t.split == "validation" for t in validation)
    first = suite.tickets[0].id
    assert [t.id for t in suite.select([first])] == [first]
    with pytest.raises(InputError, match="has no ticket"):
        suite.select(["NOPE"])


def test_copy_of_example_still_validates(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "s")
    assert load_suite(tmp_path / "s").name == "support-desk"


def test_fact_without_words_is_rejected(tmp_path: Path) -> None:
    write_suite(tmp_path, MINIMAL.replace("key: {kb: [KB-1]}", "key: {kb: [KB-1], mustMention: [' > ']}"))
    assert any("tickets[0].key.mustMention[0]: fact ' > ' has no words" in p for p in problems(tmp_path))


def test_every_problem_of_a_suite_is_reported_in_one_pass(tmp_path: Path) -> None:
    # Before: a threshold out of range and a ticketsFile outside the suite showed only once the type
    # errors were fixed (a whole-judge check ran only on a valid judge, the tickets only on a valid suite).
    suite = """\
name: onepass
judges:
  - {name: kb, type: kb_citation, weight: "1", threshold: 1.5}
  - {name: kb, type: must_mention, weight: true, threshold: 0.5}
  - {name: c, type: code, weight: 0, threshold: 0, file: ../outside.py}
ticketsFile: ../elsewhere.yaml
"""
    found = problems(write_suite(tmp_path, suite))
    expected = [
        "judges[0].weight: Input should be a valid number (got '1')",
        "judges[0].threshold: threshold 1.5 is outside the judge's scale [0, 1]",
        "judges[1].weight: Input should be a valid number (got True)",
        "judges: judge names must be unique; repeated: kb",
        "ticketsFile: '../elsewhere.yaml' must name a file inside the suite",
        "judges[2].file: must stay inside the suite directory",
    ]
    assert all(any(e in p for p in found) for e in expected), found


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("weight: 1,", 'weight: "1",'), "judges[0].weight: Input should be a valid number"),
        (("weight: 1,", "weight: true,"), "judges[0].weight: Input should be a valid number"),
        (("threshold: 0.9}", "threshold: .inf}"), "judges[0].threshold"),
        (
            ("key: {kb: [KB-1]}", "key: {kb: [KB-1], shouldAbstain: 1}"),
            "shouldAbstain: Input should be a valid boolean",
        ),
        (
            ("key: {kb: [KB-1]}", 'key: {kb: [KB-1], shouldAbstain: "true"}'),
            "shouldAbstain: Input should be a valid boolean",
        ),
    ],
    ids=["string-weight", "bool-weight", "infinite-threshold", "one-for-true", "string-for-true"],
)
def test_suite_values_are_not_coerced(tmp_path: Path, edit: tuple[str, str], expected: str) -> None:
    write_suite(tmp_path, MINIMAL.replace(*edit))
    found = problems(tmp_path)
    assert any(expected in p for p in found), found
