"""How well a judge agrees with people: the confusion matrix, Cohen's kappa (quadratic-weighted for scores on
an ordinal scale) and a bootstrap interval for it.

Pure and standard-library: pairs of (person, judge) categories in, numbers out. Kappa is agreement beyond
chance, 1 - (weighted observed disagreement) / (weighted disagreement expected from the two marginals):
with 0/1 weights it is Cohen's kappa, with squared-distance weights the quadratic-weighted kappa that
credits a 4 against a 5 more than a 1 against a 5. It is undefined (None) when chance already explains
every pair: both sides put everything in one category.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Weights = Literal["nominal", "quadratic"]
Pair = tuple[str, str]
"""(the person's category, the judge's category)."""

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95


def confusion(pairs: Sequence[Pair], categories: Sequence[str]) -> list[list[int]]:
    """Counts: rows the person's category, columns the judge's, both in `categories` order."""
    index = {category: i for i, category in enumerate(categories)}
    matrix = [[0] * len(categories) for _ in categories]
    for person, judge in pairs:
        matrix[index[person]][index[judge]] += 1
    return matrix


def _weight(i: int, j: int, size: int, weights: Weights) -> float:
    if weights == "nominal" or size < 2:
        return 0.0 if i == j else 1.0
    return ((i - j) / (size - 1)) ** 2


def kappa(pairs: Sequence[Pair], categories: Sequence[str], weights: Weights = "nominal") -> float | None:
    if not pairs:
        return None
    matrix = confusion(pairs, categories)
    n = len(pairs)
    size = len(categories)
    rows = [sum(row) for row in matrix]
    columns = [sum(matrix[i][j] for i in range(size)) for j in range(size)]
    observed = expected = 0.0
    for i in range(size):
        for j in range(size):
            w = _weight(i, j, size, weights)
            observed += w * matrix[i][j] / n
            expected += w * rows[i] * columns[j] / (n * n)
    if expected <= 1e-12:
        return None  # chance explains everything: no agreement beyond it to measure
    return 1.0 - observed / expected


def agreement(pairs: Sequence[Pair]) -> float:
    return sum(1 for person, judge in pairs if person == judge) / len(pairs) if pairs else 0.0


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    resamples: int
    """Resamples drawn; those with an undefined kappa are left out of the percentiles."""
    defined: int


def bootstrap(
    pairs: Sequence[Pair],
    categories: Sequence[str],
    weights: Weights = "nominal",
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> Interval:
    """The percentile interval of kappa over `resamples` resamples of the pairs drawn with replacement, from
    a seeded generator (the same labels give the same interval)."""
    rng = random.Random(seed)
    values: list[float] = []
    for _ in range(resamples if pairs else 0):
        drawn = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        value = kappa(drawn, categories, weights)
        if value is not None:
            values.append(value)
    if not values:
        return Interval(None, None, resamples, 0)
    values.sort()
    tail = (1.0 - level) / 2
    return Interval(_quantile(values, tail), _quantile(values, 1.0 - tail), resamples, len(values))


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default)."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)
