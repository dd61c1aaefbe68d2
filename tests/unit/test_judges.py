"""Table-driven tests for the deterministic judges (policy and must_mention have their own reader tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_runner.judges.abstention import Abstention
from assay_runner.judges.code import Code
from assay_runner.judges.exit_code import ExitCode
from assay_runner.judges.format import Format, word_count
from assay_runner.judges.kb_citation import KbCitation
from assay_runner.suite.models import AbstentionJudge, CodeJudge, ExitCodeJudge, FormatJudge, KbCitationJudge
from tests.unit.builders import case

KB = ["KB-0001", "KB-1001", "KB-1002", "KB-2210"]
kb_judge = KbCitation(KbCitationJudge(name="kb", type="kb_citation", weight=1, threshold=0.9), KB)


@pytest.mark.parametrize(
    ("answer", "expected", "score", "reason"),
    [
        ("See [KB-1001].", ["KB-1001"], 1.0, "cites KB-1001"),
        ("See kb-1001 and KB-1002.", ["KB-1001", "KB-1002"], 1.0, "cites"),
        ("See KB-1001.", ["KB-1001", "KB-1002"], 0.5, "does not cite KB-1002"),
        ("See KB-2210.", ["KB-1001"], 0.0, "does not cite KB-1001"),
        ("", ["KB-1001"], 0.0, "does not cite"),
        ("See KB-1001 and KB-7777.", ["KB-1001"], 0.0, "KB-7777, which do(es) not exist"),
        ("Ticket KB-10011 is not an article.", ["KB-1001"], 0.0, "KB-10011"),
        ("(KB-1001), [KB-1002].", ["KB-1001", "KB-1002"], 1.0, "cites"),
    ],
    ids=[
        "cited",
        "case-insensitive",
        "partial",
        "wrong-article",
        "empty",
        "fabricated",
        "longer-id",
        "punct",
    ],
)
def test_kb_citation(answer: str, expected: list[str], score: float, reason: str) -> None:
    verdict = kb_judge.judge(case(answer, kb=expected))
    assert verdict.applicable and verdict.score == pytest.approx(score)
    assert reason in verdict.reason


def test_kb_citation_not_applicable_without_expected_articles() -> None:
    verdict = kb_judge.judge(case("See KB-1001.", kb=[]))
    assert not verdict.applicable and verdict.score is None


GOOD = "## Summary\nExport works.\n\n## Steps\n1. Open Settings.\n\n## Next\nReply if stuck.\n"
fmt = Format(FormatJudge(name="format", type="format", weight=1, threshold=0.8, max_words=20))


@pytest.mark.parametrize(
    ("answer", "score", "reason"),
    [
        (GOOD, 1.0, "all sections present"),
        (GOOD.replace("## Next", "## Next steps"), 1.0, "all sections present"),
        (GOOD.replace("## Steps", "**Steps**"), 1.0, "all sections present"),
        (GOOD.replace("## Steps", "### steps:"), 1.0, "all sections present"),
        (GOOD.replace("## Next", "Next"), 0.75, "missing section(s) Next"),
        ("Just do it.", 0.25, "missing section(s) Summary, Steps, Next"),
        (GOOD + "word " * 20, 0.75, "over the limit of 20"),
        ("", 0.25, "missing"),
    ],
    ids=[
        "good",
        "heading-prefix",
        "bold-heading",
        "h3-colon",
        "missing-next",
        "no-sections",
        "too-long",
        "empty",
    ],
)
def test_format(answer: str, score: float, reason: str) -> None:
    verdict = fmt.judge(case(answer))
    assert verdict.score == pytest.approx(score)
    assert reason in verdict.reason


def test_word_count_ignores_markdown_and_keeps_contractions() -> None:
    assert word_count("## Steps\n1. Don't **reinstall** the app — use `Settings > Sync`.") == 9


abstain = Abstention(AbstentionJudge(name="abstention", type="abstention", weight=0, threshold=1))


@pytest.mark.parametrize(
    ("answer", "should", "policy", "score"),
    [
        ("This request is out of scope for support [KB-0001].", True, "KB-0001", 1.0),
        ("I’m afraid we can’t help with legal questions (KB-0001).", True, "KB-0001", 1.0),
        ("This is outside the scope of what we do.", True, "KB-0001", 0.5),
        ("Sure! Here is the legal advice you asked for.", True, "KB-0001", 0.0),
        ("Open Settings > Export and choose Markdown.", False, None, 1.0),
        ("Sorry, that is out of scope.", False, None, 0.0),
        ("I am **unable to assist** with this.", False, None, 0.0),
        ("We cannot help with that.", True, None, 1.0),
    ],
    ids=[
        "declines-cites",
        "curly-apostrophe",
        "no-citation",
        "answers-instead",
        "answers",
        "refuses-wrongly",
        "markdown-refusal",
        "no-policy-named",
    ],
)
def test_abstention(answer: str, should: bool, policy: str | None, score: float) -> None:
    verdict = abstain.judge(case(answer, shouldAbstain=should, scopePolicy=policy))
    assert verdict.score == pytest.approx(score), verdict.reason


def test_abstention_custom_phrases() -> None:
    judge = Abstention(
        AbstentionJudge(
            name="a", type="abstention", weight=0, threshold=1, refusal_phrases=["not our department"]
        )
    )
    assert judge.judge(case("Not our department, sorry.", shouldAbstain=True)).score == 1.0
    assert judge.judge(case("That is out of scope.", shouldAbstain=True)).score == 0.0


exit_judge = ExitCode(ExitCodeJudge(name="exit_code", type="exit_code"))


@pytest.mark.parametrize(
    ("code", "score", "reason"),
    [(0, 1.0, "exited 0"), (1, 0.0, "exited 1"), (137, 0.0, "SIGKILL"), (124, 0.0, "timed out")],
)
def test_exit_code(code: int, score: float, reason: str) -> None:
    verdict = exit_judge.judge(case("x", exit_code=code))
    assert verdict.score == score and reason in verdict.reason


def test_exit_code_defaults_and_not_applicable() -> None:
    assert exit_judge.spec.weight == 0 and exit_judge.spec.threshold == 1.0
    assert not exit_judge.judge(case("x", exit_code=None)).applicable


def code_judge(code: str) -> Code:
    return Code(CodeJudge(name="custom", type="code", weight=0, threshold=1, code=code), Path("."))


@pytest.mark.parametrize(
    ("code", "score", "applicable", "error"),
    [
        ("return 1.0", 1.0, True, None),
        ("return 0", 0.0, True, None),
        ("return True", 1.0, True, None),
        ('return (0.5, "half")', 0.5, True, None),
        ('return 1.0 if outputs["answer"] else 0.0', 1.0, True, None),
        ('return 1.0 if inputs["key"]["kb"] == ["KB-1"] else 0.0', 1.0, True, None),
        ('return not_applicable("no files")', None, False, None),
        ("return 1.5", None, True, "returned score 1.5, outside [0, 1]"),
        ('return float("nan")', None, True, "returned score nan, outside [0, 1]"),
        ('return "good"', None, True, "returned str 'good'"),
        ("return None", None, True, "returned NoneType None"),
        ("return (1.0, 2)", None, True, "expected (score, reason: str)"),
        ("raise RuntimeError('judge broke')", None, True, "RuntimeError: judge broke"),
        ("return 1/0", None, True, "ZeroDivisionError: division by zero"),
    ],
    ids=[
        "float",
        "int",
        "bool",
        "tuple",
        "outputs",
        "inputs",
        "not-applicable",
        "out-of-range",
        "nan",
        "str",
        "none",
        "bad-tuple",
        "raises",
        "zero-division",
    ],
)
def test_code_judge(code: str, score: float | None, applicable: bool, error: str | None) -> None:
    verdict = code_judge(code).judge(case("an answer", kb=["KB-1"]))
    assert verdict.score == score
    assert verdict.applicable is applicable
    if error is None:
        assert verdict.error is None
    else:
        assert verdict.error is not None and error in verdict.error


def test_code_that_does_not_compile_is_refused_by_the_suite() -> None:
    with pytest.raises(ValueError, match="does not compile"):
        CodeJudge(name="custom", type="code", weight=0, threshold=1, code="return (")


def test_code_file_that_stopped_compiling_blocks_at_judging(tmp_path: Path) -> None:
    (tmp_path / "judge.py").write_text("def judge(inputs, outputs):\n    return (\n")
    judge = Code(CodeJudge(name="f", type="code", weight=0, threshold=1, file="judge.py"), tmp_path)
    assert "does not compile" in (judge.judge(case("x")).error or "")


def test_code_judge_from_file(tmp_path: Path) -> None:
    (tmp_path / "judge.py").write_text(
        "def judge(inputs, outputs):\n    return (1.0, 'has files') if outputs['files'] else (0.0, 'none')\n"
    )
    judge = Code(CodeJudge(name="f", type="code", weight=0, threshold=1, file="judge.py"), tmp_path)
    assert judge.judge(case("x")).score == 0.0
    (tmp_path / "nojudge.py").write_text("x = 1\n")
    broken = Code(CodeJudge(name="g", type="code", weight=0, threshold=1, file="nojudge.py"), tmp_path)
    assert "does not define a function judge" in (broken.judge(case("x")).error or "")


def test_every_judge_kind_builds_and_reports_what_its_kind_says() -> None:
    """The kinds are one list (suite.models.JUDGE_KINDS, derived from JudgeSpec); each builds, and what the
    implementation says about the key is what its kind says."""
    from assay_runner.judges import build_judge
    from assay_runner.suite.loader import Suite
    from assay_runner.suite.models import JUDGE_KINDS, SuiteSpec

    minimal: dict[str, dict[str, object]] = {
        "code": {"code": "return 1.0"},
        "model": {"rubric": "Is it right?"},
        "trajectory": {"maxToolCalls": 10},
    }
    specs = [
        {
            "name": f"j{i}",
            "type": name,
            "weight": 1,
            "threshold": 1.0 if name != "model" else 4,
            **minimal.get(name, {}),
        }
        for i, name in enumerate(JUDGE_KINDS)
    ]
    spec = SuiteSpec.model_validate(
        {"name": "kinds", "judges": specs, "tickets": [{"id": "T-1", "split": "validation", "question": "q"}]}
    )
    suite = Suite(spec=spec, root=Path("."), tickets=spec.tickets or [], kb={}, files={})
    for judge_spec in spec.judges:
        judge = build_judge(judge_spec, suite)
        assert judge.name == judge_spec.name
        assert judge.needs_key == judge_spec.uses_key()
        if judge_spec.type_name() != "code":  # a code judge says for itself (needsKey)
            assert judge.needs_key == JUDGE_KINDS[judge_spec.type_name()].key_required


def test_closing_the_judges_ends_the_code_judges_idle_workers() -> None:
    """At the end of the judging, not when the runner exits: a reader of the runner's standard error (which
    the workers share) waits for the last of them."""
    import concurrent.futures

    from assay_runner.judges import close_judges

    judge = code_judge("import time; time.sleep(0.2); return 1.0")
    with concurrent.futures.ThreadPoolExecutor(3) as pool:  # three cells judged at once: three workers
        verdicts = list(pool.map(judge.judge, [case("an answer")] * 3))
    assert [v.score for v in verdicts] == [1.0] * 3
    workers = [worker.process for worker in judge._idle]
    assert len(workers) == 3 and all(process.poll() is None for process in workers)
    close_judges([exit_judge, judge])
    assert all(process.returncode is not None for process in workers)
    assert judge._idle == []
    assert judge.judge(case("an answer")).score == 1.0  # a later call starts a fresh worker
    judge.close()


def test_ending_the_judges_kills_the_workers_at_once_and_closing_reaps_them() -> None:
    """`end_judges` does not wait (the kernel tears the workers down while the verdict is computed);
    `close_judges` leaves no worker unreaped."""
    import os
    import signal

    from assay_runner.judges import close_judges, end_judges

    judge = code_judge("return 1.0")
    assert judge.judge(case("an answer")).score == 1.0
    (worker,) = judge._idle
    end_judges([exit_judge, judge])
    assert judge._idle == [] and worker.process.returncode is None  # not waited for
    killed = os.waitid(os.P_PID, worker.process.pid, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
    assert killed is not None and killed.si_status == signal.SIGKILL
    close_judges([exit_judge, judge])
    assert worker.process.returncode == -signal.SIGKILL
    assert judge._ending == []


def test_warmed_workers_judge_the_first_cells_and_are_closed_like_the_others() -> None:
    """`warm_judges` starts a code judge's workers ahead (while a run's first agents run): the cells judged
    next use them, and no more are started; a judge that does not compile starts one, which says so."""
    import concurrent.futures

    from assay_runner.judges import close_judges, warm_judges

    judge = code_judge("import time; time.sleep(0.2); return 1.0")
    warm_judges([exit_judge, judge], 2)
    warmed = {worker.process.pid for worker in judge._idle}
    assert len(warmed) == 2 and all(worker.process.poll() is None for worker in judge._idle)
    warm_judges([judge], 2)  # already there: none started
    assert {worker.process.pid for worker in judge._idle} == warmed
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        verdicts = list(pool.map(judge.judge, [case("an answer")] * 2))
    assert [v.score for v in verdicts] == [1.0] * 2
    assert {worker.process.pid for worker in judge._idle} == warmed
    workers = [worker.process for worker in judge._idle]
    close_judges([judge])
    assert all(process.returncode is not None for process in workers)

    broken = code_judge("return 1.0")
    broken._setup = {**(broken._setup or {}), "code": "return ("}
    warm_judges([broken], 3)
    assert len(broken._idle) == 1
    verdict = broken.judge(case("an answer"))
    assert verdict.error is not None and "does not compile" in verdict.error
    close_judges([broken])
