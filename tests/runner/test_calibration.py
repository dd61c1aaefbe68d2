"""Shadow judges and calibration on the example suite, through the command line: `assay calibrate` on the
example's labelled set (examples/support-desk/calibration), a suite that requires calibration, and a shadow
judge that fails every ticket while the verdict stays Pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.core.summary import summarise
from assay_runner.views.report import render_report

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
LABELS = EXAMPLE / "calibration" / "labels.jsonl"
REPLAY = ["--cassettes", str(EXAMPLE / "cassettes"), "--judge-model", "example-judge", "-q"]


def suite_copy(tmp_path: Path, **changes: object) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLE, suite, ignore=shutil.ignore_patterns("answers", "brains", "calibration"))
    spec = yaml.safe_load((suite / "suite.yaml").read_text())
    for key, value in changes.items():
        if key == "judges":
            spec["judges"] = [*spec["judges"], *value]  # type: ignore[misc]
        else:
            spec[key] = value
    (suite / "suite.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return suite


def score(suite: Path, brain: str, out: Path) -> tuple[int, Result]:
    code = main(
        ["score", str(suite), "--answers", str(EXAMPLE / "answers" / brain), *REPLAY, "--out", str(out)]
    )
    return code, Result.model_validate_json((out / "result.json").read_text())


def calibrate(suite: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, object], str]:
    assert main(["calibrate", str(suite), str(LABELS), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    print(printed)  # the figures, for the log
    return json.loads((out / "calibration.json").read_text()), printed


def test_calibrate_the_example_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calibration, printed = calibrate(EXAMPLE, tmp_path, capsys)
    judges = calibration["judges"]
    assert isinstance(judges, dict)
    policy, form = judges["policy"], judges["format"]
    # 128 labels each; the policy judge disagrees exactly on the 8 labels flipped on purpose.
    assert policy["labels"] == 128 and len(policy["disagreements"]) == 8
    assert all("deliberately flipped" in case["note"] for case in policy["disagreements"])
    assert policy["kappa"] > 0.8 and policy["kappaLow"] < policy["kappa"] < policy["kappaHigh"]
    assert form["labels"] == 128 and form["kappa"] < 0.2
    assert sum(map(sum, policy["confusion"])) == 128
    assert calibration["resamples"] == 2000 and calibration["seed"] == 0
    assert "policy: kappa 0.871" in printed  # seeded: the same labels give the same figures
    page = (tmp_path / "calibration.md").read_text()
    assert "## policy" in page and "### Disagreements (8)" in page and "| **fail** | 71 | 7 |" in page


def test_a_suite_requiring_calibration_gates_the_judge_that_agrees_and_shadows_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requirement = {"judges": ["policy", "format"], "minKappa": 0.6, "minLabels": 50}
    suite = suite_copy(tmp_path, calibration=requirement)
    code, before = score(suite, "v1", tmp_path / "uncalibrated")
    assert before.judges["policy"].shadow == "not calibrated: calibration.json is not in the suite"
    calibrate(suite, suite, capsys)  # written into the suite: calibration.json beside suite.yaml
    code, result = score(suite, "v1", tmp_path / "calibrated")
    assert code == 0 and result.verdict == "Pass"
    assert result.judges["policy"].shadow is None  # kappa 0.87 >= 0.6 on 128 labels: it gates
    assert (result.judges["format"].shadow or "").startswith("kappa -0.52 < minKappa 0.6 on 128 labels")
    assert "shadow, not deciding: format" in next(r.detail for r in result.rules if r.name == "judges")
    assert result.inputs.judges_digest != before.inputs.judges_digest  # the calibration is bound in
    # Split at its trust boundary (as the operator splits a suite ConfigMap): the public part carries the
    # calibration's figures without the labelled answers, and the verdict is the whole suite's.
    public, keys = tmp_path / "public", tmp_path / "keys.yaml"
    assert main(["split", str(suite), "--public", str(public), "--keys", str(keys)]) == 0
    carried = json.loads((public / "calibration.json").read_text())
    assert carried["judges"]["policy"]["kappa"] == pytest.approx(0.871486)
    assert "disagreements" not in carried["judges"]["policy"]
    assert "reinstall the app" not in (public / "calibration.json").read_text()
    out = tmp_path / "split-out"
    args = ["score", str(public), "--keys", str(keys), "--answers", str(EXAMPLE / "answers" / "v1")]
    assert main([*args, *REPLAY, "--out", str(out)]) == 0
    split = Result.model_validate_json((out / "result.json").read_text())
    assert split.inputs.judges_digest == result.inputs.judges_digest
    assert {n: j.shadow for n, j in split.judges.items()} == {n: j.shadow for n, j in result.judges.items()}
    # Another definition of the judge (its threshold edited) is not the one calibrated: it runs as shadow.
    edited = yaml.safe_load((suite / "suite.yaml").read_text())
    next(j for j in edited["judges"] if j["name"] == "policy")["threshold"] = 0.5
    (suite / "suite.yaml").write_text(yaml.safe_dump(edited, sort_keys=False))
    _, changed = score(suite, "v1", tmp_path / "edited")
    assert "another definition" in (changed.judges["policy"].shadow or "")
    # Too few labels for the requirement.
    edited["calibration"]["minLabels"] = 500
    next(j for j in edited["judges"] if j["name"] == "policy")["threshold"] = 1.0
    (suite / "suite.yaml").write_text(yaml.safe_dump(edited, sort_keys=False))
    _, few = score(suite, "v1", tmp_path / "few")
    assert few.judges["policy"].shadow == "calibrated on 128 label(s) < minLabels 500"


def test_a_shadow_judge_failing_every_ticket_leaves_the_verdict_pass(tmp_path: Path) -> None:
    strict = {
        "name": "strict",
        "type": "code",
        "weight": 0.5,
        "threshold": 1.0,
        "floor": 1.0,
        "shadow": True,
        "code": 'return (0.0, "fails every answer")',
    }
    suite = suite_copy(tmp_path, judges=[strict])
    code, result = score(suite, "v1", tmp_path / "out")
    assert code == 0 and result.verdict == "Pass"
    judge = result.judges["strict"]
    assert judge.mean == 0.0 and not judge.passed and judge.applicable_tickets == len(result.tickets)
    assert judge.shadow == "declared shadow (shadow: true)"
    assert all(r.judges["strict"].score == 0.0 for t in result.tickets for r in t.repetitions)
    summary = summarise(result)
    assert summary.judges["strict"] == 0.0 and "strict" in summary.shadow_judges
    assert "would fail (shadow)" in render_report(result)
    gating = suite_copy(tmp_path / "gating", judges=[{**strict, "shadow": False}])
    code, blocked = score(gating, "v1", tmp_path / "gating-out")
    assert code == 1 and blocked.verdict == "Blocked"


def evaluation(result: Result, **override: object) -> dict[str, object]:
    return {
        "metadata": {"name": "support-v0"},
        "status": {
            "observedGeneration": 3,
            "verdict": "Pass",
            "inputs": {
                "judgesDigest": result.inputs.judges_digest,
                "answersDigest": result.inputs.answers_digest,
            },
            "override": {
                "verdict": "Pass",
                "gateVerdict": "Blocked",
                "reason": "reviewed: these answers are fine for the beta",
                "by": "alice",
                "at": "2026-12-05T06:00:00Z",
                "generation": 3,
                **override,
            },
        },
    }


def test_an_override_exports_as_labels_that_calibrate_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = score(EXAMPLE, "v0", tmp_path / "v0")
    assert code == 1
    unit_scale = {"kb_citation", "policy", "format", "must_mention"}
    failing = {
        (t.id, name)
        for t in result.tickets
        for r in t.repetitions
        for name, v in r.judges.items()
        if v.applicable and v.score is not None and name in unit_scale
        and v.score < next(c.threshold for c in result.config.judges if c.name == name)
    }  # fmt: skip
    (tmp_path / "evaluation.json").write_text(json.dumps(evaluation(result)))
    labels = tmp_path / "labels.jsonl"
    args = [
        "labels",
        "export",
        str(tmp_path / "evaluation.json"),
        "--result",
        str(tmp_path / "v0" / "result.json"),
    ]
    assert main([*args, "--out", str(labels)]) == 0
    exported = [json.loads(line) for line in labels.read_text().splitlines()]
    assert exported and all(e["verdict"] == "pass" and e["labeller"] == "alice" for e in exported)
    assert {(e["ticket"], e["judge"]) for e in exported} >= failing
    assert all("reviewed: these answers are fine" in e["note"] for e in exported)
    capsys.readouterr()
    assert main(["calibrate", str(EXAMPLE), str(labels), *REPLAY[:4]]) == 0
    assert "policy:" in capsys.readouterr().out  # every exported label disagrees with its judge, by design
    # An override to Blocked names no answer; a result of another run is refused.
    (tmp_path / "other.json").write_text(
        json.dumps(evaluation(result, verdict="Blocked", gateVerdict="Pass"))
    )
    assert main(["labels", "export", str(tmp_path / "other.json"), "--result", args[-1]]) == 0
    assert "names no answer" in capsys.readouterr().err
    forged = evaluation(result)
    forged["status"]["inputs"]["answersDigest"] = "sha256:other"  # type: ignore[index]
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    assert main(["labels", "export", str(tmp_path / "forged.json"), "--result", args[-1]]) == 2


def test_scores_on_a_model_judges_scale_from_recorded_cells_give_a_weighted_kappa(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, result = score(EXAMPLE, "v1", tmp_path / "v1")
    raws = {t.id: t.repetitions[0].judges["quality"].raw for t in result.tickets}
    assert all(raw is not None for raw in raws.values())
    # A person's 1-5 scores: the judge's own (rounded) on most tickets, one point lower on three.
    lower = {"T-002", "T-005", "T-011"}
    labels = [
        {"ticket": tid, "judge": "quality", "cell": f"{tid}/1", "labeller": "cy",
         "score": round(raw or 0) - (1 if tid in lower else 0)}
        for tid, raw in raws.items()
    ]  # fmt: skip
    path = tmp_path / "scores.yaml"
    path.write_text(yaml.safe_dump({"labels": labels}))
    capsys.readouterr()
    args = ["calibrate", str(EXAMPLE), str(path), "--result", str(tmp_path / "v1" / "result.json")]
    assert main([*args, *REPLAY[:4], "--out", str(tmp_path / "cal")]) == 0
    quality = json.loads((tmp_path / "cal" / "calibration.json").read_text())["judges"]["quality"]
    assert quality["kind"] == "ordinal" and quality["categories"] == ["1", "2", "3", "4", "5"]
    assert quality["labels"] == 16 and len(quality["disagreements"]) == 3
    assert {d["ticket"] for d in quality["disagreements"]} == lower
    pairs = [(str(label["score"]), str(round(raws[str(label["ticket"])] or 0))) for label in labels]
    from assay_runner.core.agreement import kappa

    assert quality["kappa"] == pytest.approx(kappa(pairs, quality["categories"], "quadratic"), abs=1e-6)
    assert "quality: weighted kappa" in capsys.readouterr().out
    # A score off the judge's scale, and a score for a judge with no scale, are bad input.
    path.write_text(yaml.safe_dump({"labels": [{**labels[0], "score": 9}]}))
    assert main([*args, *REPLAY[:4]]) == 2
    path.write_text(yaml.safe_dump({"labels": [{**labels[0], "judge": "policy"}]}))
    assert main([*args, *REPLAY[:4]]) == 2
