"""`assay gate` and `assay compare` on result files edited by hand: bad input (2) or Blocked (1), never 0."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay_runner.cli import main

SUITE = """\
name: tamper
judges:
  - {name: kb, type: kb_citation, weight: 1, threshold: 0.9}
  - {name: policy, type: policy, weight: 1, threshold: 1.0, forbidden: [reinstall]}
  - {name: format, type: format, weight: 0, threshold: 0, sections: [Summary]}
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
  - {id: T-1, split: validation, question: "Sync?", key: {kb: [KB-1]}}
  - {id: T-2, split: validation, question: "Login?", key: {kb: [KB-2]}}
"""
GOOD = {"T-1": "## Summary\nClear the cache, see KB-1.", "T-2": "## Summary\nReset the password, see KB-2."}
BAD = {"T-1": "## Summary\nReinstall the app, see KB-1.", "T-2": GOOD["T-2"]}


def _suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    (root / "kb").mkdir(parents=True)
    for article in ("KB-1", "KB-2"):
        (root / "kb" / f"{article}.md").write_text(f"# {article}\n")
    (root / "suite.yaml").write_text(SUITE)
    return root


def _scored(tmp_path: Path, texts: dict[str, str], name: str) -> Path:
    suite = tmp_path / "suite" if (tmp_path / "suite").exists() else _suite(tmp_path)
    answers = tmp_path / f"answers-{name}"
    for tid, text in texts.items():
        (answers / tid).mkdir(parents=True)
        (answers / tid / "answer.md").write_text(text)
    out = tmp_path / f"out-{name}"
    main(["score", str(suite), "--answers", str(answers), "--out", str(out), "-q", "--run-name", name])
    return out / "result.json"


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    data = json.loads(path.read_text())
    change(data)
    edited = path.with_name("edited.json")
    edited.write_text(json.dumps(data))
    return edited


def _cell(data: dict[str, Any], ticket: int = 0, rep: int = 0) -> dict[str, Any]:
    cell: dict[str, Any] = data["tickets"][ticket]["repetitions"][rep]
    return cell


def test_untouched_results_gate_as_they_are(tmp_path: Path) -> None:
    assert main(["gate", str(_scored(tmp_path, GOOD, "good")), "-q"]) == 0
    assert main(["gate", str(_scored(tmp_path, BAD, "bad")), "-q"]) == 1


def _set_score(value: float) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        _cell(data)["judges"]["kb"]["score"] = value

    return change


def _policy_not_applicable(data: dict[str, Any]) -> None:
    verdict = _cell(data)["judges"]["policy"]
    verdict.update(applicable=False, score=None)


def _schema_99(data: dict[str, Any]) -> None:
    data["schemaVersion"] = 99


def _k(value: int) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["repetitions"]["k"] = value

    return change


def _duplicate_ticket(data: dict[str, Any]) -> None:
    data["tickets"].append(data["tickets"][0])


def _duplicate_judge(data: dict[str, Any]) -> None:
    data["config"]["judges"].append(data["config"]["judges"][0])


def _duplicate_repetition(data: dict[str, Any]) -> None:
    reps = data["tickets"][0]["repetitions"]
    reps.append(dict(reps[0]))


def _drop_policy_and_min_score(data: dict[str, Any]) -> None:
    data["config"]["judges"] = [j for j in data["config"]["judges"] if j["name"] != "policy"]
    data["config"]["gate"]["minScore"] = -1


def _drop_policy_everywhere(data: dict[str, Any]) -> None:
    data["config"]["judges"] = [j for j in data["config"]["judges"] if j["name"] != "policy"]
    for ticket in data["tickets"]:
        for rep in ticket["repetitions"]:
            rep["judges"].pop("policy")
    _verdict_pass(data)
    data["score"] = 1.0


def _verdict_pass(data: dict[str, Any]) -> None:
    data["verdict"] = "Pass"
    data["reasons"] = []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_set_score(5.0), "judges.kb.score"),
        (_set_score(-3.0), "judges.kb.score"),
        (_set_score(7.0), "judges.kb.score"),
        (_policy_not_applicable, "judges.policy.applicable"),
        (_schema_99, "schemaVersion"),
        (_k(-1), "repetitions.k"),
        (_k(10**12), "repetitions.k"),
        (_duplicate_ticket, "tickets[2].id"),
        (_duplicate_judge, "config.judges"),
        (_duplicate_repetition, "tickets[0].repetitions"),
        (_drop_policy_and_min_score, "config.gate.minScore"),
        (_verdict_pass, "verdict"),
    ],
    ids=[
        "score-5",
        "score-minus-3",
        "forged-7",
        "policy-not-applicable",
        "schema-99",
        "k-minus-1",
        "k-10-to-12",
        "duplicate-ticket",
        "duplicate-judge",
        "duplicate-repetition",
        "policy-removed-min-score-minus-1",
        "verdict-edited",
    ],
)
def test_tampered_result_is_bad_input_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Callable[[dict[str, Any]], None], field: str
) -> None:
    edited = _edit(_scored(tmp_path, BAD, "bad"), change)
    assert main(["gate", str(edited), "-q"]) == 2
    err = capsys.readouterr().err
    assert str(edited) in err and field in err
    assert main(["compare", str(edited)]) == 2


def test_forged_score_is_never_promoted_over_an_honest_incumbent(tmp_path: Path) -> None:
    honest = _scored(tmp_path, GOOD, "good")
    forged = _edit(_scored(tmp_path, BAD, "bad"), _set_score(7.0))
    assert main(["compare", str(forged), "--incumbent", str(honest), "--on-tie", "full-key"]) == 2


def test_verify_blocks_a_policy_score_edited_from_0_to_1(tmp_path: Path) -> None:
    def clear_violation(data: dict[str, Any]) -> None:
        _cell(data)["judges"]["policy"]["score"] = 1.0
        _verdict_pass(data)
        data["score"] = 1.0

    edited = _edit(_scored(tmp_path, BAD, "bad"), clear_violation)
    # The scores now agree with each other; only judging the stored answer again shows the edit, and a
    # plain re-gate says that it did not.
    assert main(["gate", str(edited), "-q", "--out", str(tmp_path / "plain")]) == 0
    plain = json.loads((tmp_path / "plain" / "result.json").read_text())
    assert any("--verify" in warning for warning in plain["warnings"])
    # Unauthenticated (a hand-made tree's result) and, whatever its evidence, re-judged: both are said.
    assert _verify(tmp_path, edited) == 1
    assert "T-1 #1 policy: stored 1.0" in _verified_detail(tmp_path)
    assert "no evidence MAC" in _verified_detail(tmp_path)


def test_verify_blocks_a_result_whose_policy_judge_was_removed(tmp_path: Path) -> None:
    edited = _edit(_scored(tmp_path, BAD, "bad"), _drop_policy_everywhere)
    assert main(["gate", str(edited), "-q"]) == 0  # consistent in itself: only the suite tells
    assert _verify(tmp_path, edited) == 1
    assert "the result's judges are not the suite's" in _verified_detail(tmp_path)


def _verify(tmp_path: Path, result: Path) -> int:
    out = tmp_path / "verified"
    return main(
        ["gate", str(result), "-q", "--verify", "--suite", str(tmp_path / "suite"), "--out", str(out)]
    )


def _verified_detail(tmp_path: Path) -> str:
    rules = json.loads((tmp_path / "verified" / "result.json").read_text())["rules"]
    rule = next(r for r in rules if r["name"] == "verified")
    assert not rule["passed"]
    detail: str = rule["detail"]
    return detail


def test_verify_never_releases_a_hand_made_trees_result(tmp_path: Path) -> None:
    """Untouched, and every deterministic judge agrees — but the answers were never sealed by an answer
    phase, so the result is unauthenticated evidence of an agent run: Blocked, saying so. (An honest sealed
    run that verifies: tests/runner/test_evidence.py.)"""
    result = _scored(tmp_path, GOOD, "good")
    assert any("unauthenticated" in w for w in json.loads(result.read_text())["warnings"])
    out = tmp_path / "verified"
    assert (
        main(["gate", str(result), "-q", "--verify", "--suite", str(tmp_path / "suite"), "--out", str(out)])
        == 1
    )
    verified = json.loads((out / "result.json").read_text())
    assert not any("not judged again" in warning for warning in verified["warnings"])
    rule = next(r for r in verified["rules"] if r["name"] == "verified")
    assert not rule["passed"] and "no evidence MAC" in rule["detail"] and "re-judged" not in rule["detail"]


def test_online_result_is_never_a_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = _suite(tmp_path)
    answer = tmp_path / "answer.md"
    answer.write_text("## Summary\nClear the cache.")
    out = tmp_path / "online"
    assert main(["judge", str(suite), "--question", "Sync?", "--answer", str(answer), "--out", str(out)]) == 3
    assert json.loads((out / "result.json").read_text())["mode"] == "online"
    assert main(["gate", str(out / "result.json"), "-q"]) == 2
    assert main(["compare", str(out / "result.json")]) == 2
    assert "never" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": 1}'.encode("utf-16"), "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"schemaVersion": ' + b"9" * 5000 + b"}", "invalid JSON"),
        (b'{"score": NaN}', "invalid JSON"),
    ],
    ids=["utf-16", "deeply-nested", "5000-digits", "nan"],
)
def test_unreadable_result_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(content)
    assert main(["gate", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and message in err and "Traceback" not in err


def test_gate_on_a_directory_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", str(tmp_path), "-q"]) == 2
    assert "is a directory" in capsys.readouterr().err
