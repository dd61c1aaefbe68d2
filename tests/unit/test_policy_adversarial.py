"""The policy reader on its adversarial table (tests/data/policy_adversarial.yaml), by class.

A false negative lets forbidden advice ship, so the obfuscation and double-negation classes must have
none; overall the reader must be right on at least 95% of the rows. bench/policy_accuracy.py prints the
same numbers per class.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from assay_runner.text.policy_reader import ForbiddenRule, find_violations

TABLE = Path(__file__).resolve().parents[1] / "data" / "policy_adversarial.yaml"
RULES = [ForbiddenRule(phrase=p) for p in ("reinstall", "disable selinux", "disable the firewall")]
NO_FALSE_NEGATIVES = ("obfuscation", "double-negation", "control")


def _rows() -> list[tuple[str, str, bool]]:
    data = yaml.safe_load(TABLE.read_text("utf-8"))
    return [(cls, row["text"], row["violates"]) for cls, items in data["cases"].items() for row in items]


def test_table_covers_every_class_of_the_issue() -> None:
    classes = {cls for cls, _, _ in _rows()}
    assert {"reported-speech", "questions", "recommend-against", "bad-idea", "policy-forbids"} <= classes
    assert {"do-not-list", "not-only", "double-negation", "run-on", "obfuscation"} <= classes
    assert len(_rows()) >= 50


def test_no_false_negative_where_it_matters_most() -> None:
    missed = [
        (cls, text)
        for cls, text, violates in _rows()
        if cls in NO_FALSE_NEGATIVES and violates and not find_violations(text, RULES)
    ]
    assert missed == []


def test_at_least_95_percent_right() -> None:
    rows = _rows()
    wrong = [(cls, text) for cls, text, violates in rows if bool(find_violations(text, RULES)) != violates]
    assert 1 - len(wrong) / len(rows) >= 0.95, wrong
