"""The rules both sides of the seam apply: which files make a brain, how files are digested, the scale a
judge's threshold is given on and whether a threshold fits it."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from pathlib import PurePosixPath


def is_brain_file(relative: str) -> bool:
    """Whether a file under a brain directory is part of the brain (and of its digest).

    One rule for both sides: the operator digests a brain ConfigMap's keys, the runner the files the kubelet
    mounts from it. The kubelet's atomic writer adds `..data` and `..<timestamp>` entries beside the keys;
    the apiserver refuses keys that start with `..`, so skipping exactly those parts keeps every real key,
    dot-named ones such as `.clinerules` included.
    """
    return not any(part.startswith("..") for part in PurePosixPath(relative).parts)


UNIT_SCALE: tuple[float, float] = (0.0, 1.0)
MODEL_JUDGE = "model"
"""The judge kind that grades on a scale of its own (its rubric's); every other kind scores on [0, 1]. The
suite's ModelJudge keeps `Literal["model"]` as its discriminator tag (a test holds the two equal)."""
MODEL_SCALE: tuple[int, int] = (1, 5)
"""A model judge's rubric scale when the suite does not give one."""


def has_own_scale(judge_type: str) -> bool:
    """Whether a judge of this kind gives its threshold and floor on a scale of its own (a model judge)."""
    return judge_type == MODEL_JUDGE


def judge_scale(judge_type: str, scale: tuple[float, float] | None = None) -> tuple[float, float]:
    """The scale a judge's threshold and floor are given on: a model judge's own (its rubric's), [0, 1] for
    every other judge."""
    if not has_own_scale(judge_type):
        return UNIT_SCALE
    low, high = scale or MODEL_SCALE
    return (float(low), float(high))


def threshold_problem(label: str, value: float, scale: tuple[float, float]) -> str | None:
    """Why `value` cannot be a judge's threshold or floor on `scale`, or None when it can.

    The one check behind every place a threshold enters: a suite's judges, a RunConfig's or Evaluation's
    `gate.thresholds`, `assay gate --threshold`, and a stored result read back. A value off the scale would
    make the judges rule pass or fail whatever the answers say.
    """
    low, high = scale
    if not (math.isfinite(value) and low <= value <= high):
        return f"{label} {value:g} is outside the judge's scale [{low:g}, {high:g}]"
    return None


def digest_files(files: Mapping[str, bytes]) -> str:
    """sha256 over sorted (path, length, content): how brain, suite and judge digests are computed, here so
    that the operator (which snapshots the brain) and the runner agree byte for byte."""
    hasher = hashlib.sha256()
    for path in sorted(files):
        content = files[path]
        hasher.update(f"{path}\0{len(content)}\0".encode())
        hasher.update(content)
    return f"sha256:{hasher.hexdigest()}"
