"""`assay judges check`: the self-test passes on the example's judges, fails (exit 1) when a judge is broken,
and says what it could not test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.judges import policy
from assay_runner.judges.selftest import run_selftest
from assay_runner.suite import load_suite
from assay_runner.suite.models import DETERMINISTIC_KINDS
from assay_runner.text.policy_reader import ForbiddenRule, PolicyReading, Violation
from assay_runner.text.view import AnswerView

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"


def test_the_example_judges_pass_every_probe(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_selftest(load_suite(str(EXAMPLE)))
    assert report.ok
    tested = {o.judge for o in report.outcomes}
    assert tested == {
        *("kb_citation", "must_mention", "policy", "format", "abstention", "exit_code"),
        *("read_before_citing", "tool_use"),  # the trajectory judges
    }
    probes = {o.probe for o in report.outcomes}
    assert {"good answer", "forbidden advice", "negated advice (fine)", "correct refusal"} <= probes
    aimed = {
        (o.probe, o.judge): o.expected
        for o in report.outcomes
        if o.judge in ("read_before_citing", "tool_use")
    }
    assert aimed == {
        ("good answer", "read_before_citing"): "full",
        ("good answer", "tool_use"): "full",
        ("read_before_citing: cites an article it never read", "read_before_citing"): "fail",
        ("tool_use: calls a tool outside allowedTools", "tool_use"): "fail",
        ("tool_use: more than maxToolCalls", "tool_use"): "fail",
    }
    assert report.skipped == ["quality (model): not self-tested"]
    assert main(["judges", "check", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert f"{len(report.outcomes)} of {len(report.outcomes)} checks as expected" in out


def test_a_judge_that_ignores_negation_fails_the_check(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A regression in the policy reader: any mention counts, "do not reinstall" included.
    def naive(
        answer: AnswerView, rules: list[ForbiddenRule], languages: frozenset[str] | None = None
    ) -> PolicyReading:
        found = [r for r in rules if r.phrase and r.phrase.lower() in answer.raw.lower()]
        return PolicyReading([Violation(rule=r, clause=r.phrase or "", sentence_index=0) for r in found], 1)

    monkeypatch.setattr(policy, "read_policy", naive)
    report = run_selftest(load_suite(str(EXAMPLE)))
    failed = [(o.probe, o.judge) for o in report.outcomes if not o.ok]
    assert failed == [("negated advice (fine)", "policy")]
    assert main(["judges", "check", str(EXAMPLE)]) == 1
    assert "checks as expected" in capsys.readouterr().out


def test_what_cannot_be_probed_is_said(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLE, suite)
    text = (suite / "suite.yaml").read_text()
    start, end = text.index("    forbidden:\n"), text.index("  - name: format")
    (suite / "suite.yaml").write_text(text[:start] + text[end:])
    loaded = load_suite(str(suite))
    report = run_selftest(loaded)
    assert report.ok
    assert "forbidden advice: the policy judge has no suite-wide phrase to probe with" in report.skipped
    assert not [o for o in report.outcomes if o.probe == "forbidden advice"]
    kinds = {judge.name: judge.type_name() for judge in loaded.spec.judges}
    assert {kinds[o.judge] for o in report.outcomes} <= DETERMINISTIC_KINDS
