"""`assay calibrate`: the suite's judges on answers people labelled, and how often they agree.

Each labelled answer is judged as a cell of its ticket (the ticket's answer key is what the judge reads),
once per distinct answer whatever the number of labels on it. A label compares the person's verdict with
the judge's: pass/fail against the judge's score at its threshold (Cohen's kappa), or a score on the
judge's own scale against the judge's raw score rounded to the scale (quadratic-weighted kappa). A label the
judge could not score (an error, not applicable) is counted as skipped, not as agreement either way.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence

from assay_runner.contract import JudgeVerdict, Result
from assay_runner.core.agreement import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Pair,
    Weights,
    agreement,
    bootstrap,
    confusion,
    kappa,
)
from assay_runner.core.results import now_iso
from assay_runner.core.scoring import at_least
from assay_runner.errors import InputError, Problem
from assay_runner.gateway.access import ModelAccess
from assay_runner.judges import build_judges, close_judges
from assay_runner.run.cell import Answered
from assay_runner.run.judge_step import JudgeStep
from assay_runner.suite.calibration import (
    Calibration,
    Disagreement,
    JudgeCalibration,
    Label,
    definition_digest,
)
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import JudgeBase

ANSWER_SHOWN = 4000
"""Characters of a disagreeing answer kept for review."""
BINARY = ["fail", "pass"]


def resolve_answers(labels: Sequence[Label], suite: Suite, result: Result | None) -> list[str]:
    """Each label's answer text (its own, or its recorded cell's), every problem reported at once."""
    judges = {j.name: j for j in suite.spec.judges}
    tickets = {t.id for t in suite.tickets}
    cells = {
        f"{t.id}/{r.index}": (t.id, r.answer)
        for t in (result.tickets if result else [])
        for r in t.repetitions
    }
    problems: list[Problem] = []
    answers: list[str] = []
    kinds: dict[str, set[str]] = defaultdict(set)
    for index, label in enumerate(labels):
        where = f"label {index + 1}"
        judge = judges.get(label.judge)
        if judge is None:
            problems.append(Problem("labels", where, f"suite {suite.name!r} has no judge {label.judge!r}"))
        if label.ticket not in tickets:
            problems.append(Problem("labels", where, f"suite {suite.name!r} has no ticket {label.ticket!r}"))
        if label.score is not None and judge is not None:
            problems.extend(_score_problems(label.score, judge, where))
        kinds[label.judge].add("score" if label.score is not None else "verdict")
        answer = label.answer
        if label.cell is not None:
            if result is None:
                problems.append(
                    Problem("labels", where, f"cell {label.cell!r}: give the result with --result")
                )
            elif label.cell not in cells:
                problems.append(Problem("labels", where, f"the result has no cell {label.cell!r}"))
            else:
                ticket, answer = cells[label.cell]
                if ticket != label.ticket:
                    problems.append(
                        Problem("labels", where, f"cell {label.cell!r} is not ticket {label.ticket}")
                    )
                if answer is None:
                    problems.append(Problem("labels", where, f"cell {label.cell!r} recorded no answer"))
        answers.append(answer or "")
    for name, given in sorted(kinds.items()):
        if len(given) > 1:
            problems.append(
                Problem("labels", name, "give this judge's labels all as verdicts or all as scores")
            )
    if problems:
        raise InputError(problems)
    return answers


def _score_problems(score: int, judge: JudgeBase, where: str) -> list[Problem]:
    if getattr(judge, "scale", None) is None:
        return [Problem("labels", where, f"judge {judge.name!r} has no scale: give a verdict (pass/fail)")]
    low, high = judge.scale_bounds()
    if not low <= score <= high:
        return [Problem("labels", where, f"score {score} is off {judge.name}'s scale [{low:g}, {high:g}]")]
    return []


def _judged_as(verdict: JudgeVerdict, judge: JudgeBase, ordinal: bool) -> str | None:
    """The judge's category on the label's terms; None when it gave no score."""
    if verdict.error is not None or not verdict.applicable or verdict.score is None:
        return None
    if ordinal:
        low, high = judge.scale_bounds()
        raw = verdict.raw if verdict.raw is not None else low + verdict.score * (high - low)
        return str(int(min(high, max(low, round(raw)))))
    return "pass" if at_least(verdict.score, judge.normalise(judge.threshold)) else "fail"


async def judge_labelled(
    suite: Suite,
    labels: Sequence[Label],
    answers: Sequence[str],
    access: ModelAccess,
    judge_model: str | None,
) -> list[JudgeVerdict]:
    """Each label's judge's verdict on its answer; each distinct (ticket, answer) judged once."""
    wanted = {label.judge for label in labels}
    by_id = {t.id: t for t in suite.tickets}
    distinct = sorted({(label.ticket, answer) for label, answer in zip(labels, answers, strict=True)})
    built = [j for j in build_judges(suite, access.client, judge_model) if j.name in wanted]
    try:
        step = JudgeStep(built, limit=4)
        cells = await asyncio.gather(
            *(
                step.judge(by_id[ticket], 1, Answered(answer=answer, exit_code=0))
                for ticket, answer in distinct
            )
        )
    finally:
        close_judges(built)
        await access.aclose()
    judged = dict(zip(distinct, cells, strict=True))
    return [
        judged[(label.ticket, answer)].judges[label.judge]
        for label, answer in zip(labels, answers, strict=True)
    ]


def measure(
    suite: Suite,
    labels: Sequence[Label],
    answers: Sequence[str],
    verdicts: Sequence[JudgeVerdict],
    *,
    labels_file: str,
    labels_digest: str,
    judge_model: str | None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Calibration:
    """The figures of every labelled judge (pure: the verdicts are given)."""
    specs = {j.name: j for j in suite.spec.judges}
    by_judge: dict[str, list[int]] = defaultdict(list)
    for index, label in enumerate(labels):
        by_judge[label.judge].append(index)
    judges: dict[str, JudgeCalibration] = {}
    for name in [j.name for j in suite.spec.judges if j.name in by_judge]:
        spec = specs[name]
        ordinal = labels[by_judge[name][0]].score is not None
        if ordinal:
            low, high = spec.scale_bounds()
            categories = [str(value) for value in range(int(low), int(high) + 1)]
        else:
            categories = BINARY
        weights: Weights = "quadratic" if ordinal else "nominal"
        pairs: list[Pair] = []
        disagreements: list[Disagreement] = []
        skipped = 0
        for index in by_judge[name]:
            label, verdict = labels[index], verdicts[index]
            person = label.verdict if label.verdict is not None else str(label.score)
            judged = _judged_as(verdict, spec, ordinal)
            if judged is None:
                skipped += 1
                shown = "error" if verdict.error is not None else "not applicable"
                disagreements.append(_disagreement(label, person, shown, verdict, answers[index]))
                continue
            pairs.append((person, judged))
            if person != judged:
                disagreements.append(_disagreement(label, person, judged, verdict, answers[index]))
        interval = bootstrap(pairs, categories, weights, resamples=resamples, seed=seed, level=level)
        judges[name] = JudgeCalibration(
            judge_digest=definition_digest(spec, suite.files),
            kind="ordinal" if ordinal else "binary",
            labels=len(pairs),
            skipped=skipped,
            agreement=round(agreement(pairs), 6),
            kappa=_rounded(kappa(pairs, categories, weights)),
            kappa_low=_rounded(interval.low),
            kappa_high=_rounded(interval.high),
            categories=categories,
            confusion=confusion(pairs, categories),
            labellers=sorted({labels[i].labeller for i in by_judge[name]}),
            disagreements=disagreements,
        )
    return Calibration(
        suite=suite.name,
        labels_digest=labels_digest,
        labels_file=labels_file,
        judge_model=judge_model,
        resamples=resamples,
        seed=seed,
        level=level,
        created_at=now_iso(),
        judges=judges,
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _disagreement(label: Label, person: str, judge: str, verdict: JudgeVerdict, answer: str) -> Disagreement:
    return Disagreement(
        ticket=label.ticket,
        labeller=label.labeller,
        person=person,
        judge=judge,
        reason=verdict.error or verdict.reason,
        answer=answer[:ANSWER_SHOWN],
        note=label.note,
    )
