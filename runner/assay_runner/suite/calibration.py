"""A judge checked against people: the calibration file `assay calibrate` writes, the digest that binds it
to the judge's definition, and whether a judge the suite lists under `calibration:` may gate.

A calibration is bound to what was measured: the judge's definition (every field but `shadow` and
`description`, and a code judge's file) and the labels file, each by digest. Editing a rubric, a threshold,
a model or the code makes the calibration another judge's, and the judge runs as a shadow judge until it is
calibrated again.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from assay_runner.contract import WireModel, digest_files
from assay_runner.suite.models import JUDGE_NAME, TICKET_ID, JudgeBase, SuiteSpec

CALIBRATION_SCHEMA_VERSION = 1
DECLARED_SHADOW = "declared shadow (shadow: true)"
DEFINITION_EXCLUDED = {"shadow", "description"}
"""Fields that do not change what a judge decides on an answer: editing them keeps its calibration."""


class Label(WireModel):
    """One person's verdict on one answer, for one judge: a line of the labels file (JSONL, or a YAML
    `labels:` list)."""

    ticket: str = Field(pattern=TICKET_ID)
    """The suite's ticket the answer replies to (its answer key is what the judge reads)."""
    judge: str = Field(pattern=JUDGE_NAME)
    """The judge whose verdict the person gives."""
    answer: str | None = None
    """The answer text."""
    cell: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}/[0-9]+$")
    """Or a recorded cell, `ticket/repetition`, of the result given with `--result`."""
    verdict: Literal["pass", "fail"] | None = None
    """The person's pass/fail (compared with the judge's score against its threshold)."""
    score: int | None = None
    """Or the person's score on the judge's own scale (a model judge's rubric): weighted kappa."""
    labeller: str = Field(min_length=1, max_length=253)
    """Who labelled it."""
    note: str = ""

    @model_validator(mode="after")
    def _one_of_each(self) -> Label:
        if (self.answer is None) == (self.cell is None):
            raise ValueError("give exactly one of 'answer' or 'cell'")
        if (self.verdict is None) == (self.score is None):
            raise ValueError("give exactly one of 'verdict' or 'score'")
        return self


class Disagreement(WireModel):
    """One labelled answer on which the judge and the person differ."""

    ticket: str
    labeller: str
    person: str
    """The person's verdict (`pass`/`fail`) or score."""
    judge: str
    """The judge's, on the same terms (`error` or `not applicable` when it gave none)."""
    reason: str = ""
    """The judge's reason."""
    answer: str = ""
    """The answer, for review (the page shows it)."""
    note: str = ""
    """The labeller's note, when the label has one."""


class JudgeCalibration(WireModel):
    """One judge's agreement with the people who labelled its answers."""

    judge_digest: str
    """The judge's definition the figures are of (`definition_digest`)."""
    kind: str
    """`binary` (pass/fail: Cohen's kappa) or `ordinal` (scores on the judge's scale: quadratic-weighted
    kappa)."""
    labels: int
    """Labelled answers compared (those the judge scored)."""
    skipped: int = 0
    """Labelled answers left out: the judge errored or did not apply."""
    agreement: float
    """Share of labels on which the judge and the person agree exactly."""
    kappa: float | None
    """Agreement beyond chance; None when undefined (every label and verdict in one category)."""
    kappa_low: float | None = None
    kappa_high: float | None = None
    """The bootstrap percentile interval of kappa (`level`)."""
    categories: list[str]
    confusion: list[list[int]]
    """Rows: the person's category; columns: the judge's (in `categories` order)."""
    labellers: list[str] = Field(default_factory=list)
    disagreements: list[Disagreement] = Field(default_factory=list)


class Calibration(WireModel):
    """`calibration.json`: every calibrated judge of a suite, bound to the labels by digest."""

    schema_version: int = CALIBRATION_SCHEMA_VERSION
    suite: str
    labels_digest: str
    """sha256 of the labels file's bytes."""
    labels_file: str
    judge_model: str | None = None
    """The run's judge model the model judges were calibrated with (for a judge that names none)."""
    resamples: int
    seed: int
    level: float
    created_at: str
    judges: dict[str, JudgeCalibration]


def definition_digest(judge: JudgeBase, files: dict[str, bytes]) -> str:
    """What a judge decides with, digested: its fields (rubric, model, scale, threshold, floor, options)
    and, for a code judge with a file, the file's bytes (`files`: the suite's files by relative path)."""
    fields = judge.model_dump(mode="json", by_alias=True, exclude=DEFINITION_EXCLUDED)
    listing = {"judge.json": json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()}
    source = getattr(judge, "file", None)
    if isinstance(source, str) and source in files:
        listing[f"code/{source}"] = files[source]
    return digest_files(listing)


def read_calibration(data: bytes) -> Calibration:
    return Calibration.model_validate_json(data)


def shadow_reasons(spec: SuiteSpec, files: dict[str, bytes]) -> dict[str, str]:
    """Why each judge that does not gate does not: declared shadow, or listed under `calibration:` without
    a calibration that holds. Judges that gate are absent."""
    reasons = {judge.name: DECLARED_SHADOW for judge in spec.judges if judge.shadow}
    requirement = spec.calibration
    if requirement is None:
        return reasons
    by_name = {judge.name: judge for judge in spec.judges}
    calibration: Calibration | None = None
    unreadable: str | None = None
    if requirement.file not in files:
        unreadable = f"not calibrated: {requirement.file} is not in the suite"
    else:
        try:
            calibration = read_calibration(files[requirement.file])
        except ValidationError as exc:
            unreadable = (
                f"not calibrated: {requirement.file} is not a calibration ({exc.error_count()} error(s))"
            )
    for name in requirement.judges:
        if name in reasons:
            continue
        why = unreadable or _invalid(
            name, by_name[name], calibration, requirement.min_kappa, requirement.min_labels, files
        )
        if why is not None:
            reasons[name] = why
    return reasons


def _invalid(
    name: str,
    judge: JudgeBase,
    calibration: Calibration | None,
    min_kappa: float,
    min_labels: int,
    files: dict[str, bytes],
) -> str | None:
    assert calibration is not None
    found = calibration.judges.get(name)
    if found is None:
        return "not calibrated: the calibration has no entry for this judge"
    if found.judge_digest != definition_digest(judge, files):
        return "not calibrated: the calibration is of another definition of this judge (digest differs)"
    if found.labels < min_labels:
        return f"calibrated on {found.labels} label(s) < minLabels {min_labels}"
    if found.kappa is None:
        return "kappa undefined (every label and verdict in one category)"
    if found.kappa < min_kappa:
        return f"kappa {found.kappa:.2f} < minKappa {min_kappa:g} on {found.labels} labels"
    return None
