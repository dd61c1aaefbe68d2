"""Is a candidate's difference from the incumbent real? Paired tests over the same tickets.

Both evaluations judged the same tickets, so each ticket is its own control: the comparison works on the
per-ticket differences (the candidate's ticket score minus the incumbent's, each the mean over that ticket's
repetitions). Repetitions are averaged within a ticket rather than paired with each other: the third
repetition of one candidate has nothing in common with the third of another.

- Scores: the effect is the mean per-ticket difference; its p-value comes from a sign-flip permutation test
  (under "no difference" each ticket's difference is as likely to have either sign) — exact, by counting
  every sign pattern, whenever the differences take few enough distinct sums, else a seeded Monte Carlo;
  its confidence interval from a seeded paired bootstrap over tickets (percentile method); Cohen's d_z
  (mean difference / its standard deviation) is the standardised effect size.
- Pass/fail: whether each ticket is fully resolved (passes in every repetition). The exact McNemar test
  (a two-sided sign test on the tickets that changed: gained vs lost); the effect is (gained - lost) /
  tickets, the change in the fully-resolved share, with a bootstrap interval on the same resamples.

Pure Python on purpose: the operator imports this through the decision, and its image stays free of
numerical libraries. Everything is seeded: the same inputs give the same figures on every machine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay_runner.errors import InputError

BOOTSTRAP_RESAMPLES = 2000
PERMUTATIONS = 10000
DEFAULT_SEED = 20251203
DEFAULT_LEVEL = 0.95
# Differences are compared on a grid of 1e-9: a float sum must not make two equal sums look different.
_QUANTUM = 1e-9
# The exact permutation distribution is a table of distinct sums built in one pass per ticket; when that
# work (tickets x table size) would pass this, the distribution is sampled instead (measured by
# bench/decision_statistics.py: a 256-cell grid is decided in seconds, not minutes).
_EXACT_WORK = 60_000


@dataclass(frozen=True)
class Paired:
    """One evaluation as a paired test reads it: per ticket id, its score (the mean over its repetitions)
    and whether it is fully resolved (passed in every repetition)."""

    scores: Mapping[str, float]
    resolved: Mapping[str, bool]


@dataclass(frozen=True)
class ScoreTest:
    tickets: int
    effect: float
    """The mean per-ticket score difference (candidate - incumbent)."""
    effect_size: float | None
    """Cohen's d_z: the mean difference over its standard deviation (None when it has no spread)."""
    ci_low: float
    ci_high: float
    p_value: float
    exact: bool
    """The p-value counts every sign pattern (True) or samples PERMUTATIONS of them (False)."""


@dataclass(frozen=True)
class PassTest:
    tickets: int
    gained: int
    """Tickets fully resolved by the candidate and not by the incumbent."""
    lost: int
    """Tickets fully resolved by the incumbent and not by the candidate."""
    effect: float
    """(gained - lost) / tickets: the change in the share of fully resolved tickets."""
    ci_low: float
    ci_high: float
    p_value: float


@dataclass(frozen=True)
class Comparison:
    """A candidate against the incumbent, both tests at one confidence level."""

    level: float
    scores: ScoreTest
    passes: PassTest


def _check(candidate: Paired, incumbent: Paired) -> list[str]:
    tickets = sorted(candidate.scores)
    if tickets != sorted(incumbent.scores):
        raise InputError("a paired comparison needs both evaluations on the same tickets")
    if sorted(candidate.resolved) != tickets or sorted(incumbent.resolved) != tickets:
        raise InputError("a paired comparison needs a pass/fail outcome for every ticket")
    if not tickets:
        raise InputError("a paired comparison needs at least one ticket")
    return tickets


def sign_flip_p(differences: Sequence[float], seed: int = DEFAULT_SEED) -> tuple[float, bool]:
    """Two-sided p-value of the sign-flip permutation test on paired differences, and whether it is exact.

    The statistic is |sum of differences|; the p-value is the share of sign patterns whose |sum| reaches
    the observed one. Zero differences are the same under either sign and drop out.
    """
    units = [round(d / _QUANTUM) for d in differences]
    units = [u for u in units if u != 0]
    if not units:
        return 1.0, True
    divisor = 0
    for u in units:
        divisor = math.gcd(divisor, abs(u))
    units = [u // divisor for u in units]
    observed = abs(sum(units))
    n = len(units)
    if n * min(1 << n, 2 * sum(abs(u) for u in units) + 1) <= _EXACT_WORK:
        counts: dict[int, int] = {0: 1}
        for u in units:
            step: dict[int, int] = {}
            for total, ways in counts.items():
                step[total + u] = step.get(total + u, 0) + ways
                step[total - u] = step.get(total - u, 0) + ways
            counts = step
        extreme = sum(ways for total, ways in counts.items() if abs(total) >= observed)
        return extreme / (1 << n), True
    # Sampled: each draw is n random signs; sums are read from tables of 8 signs at a time (fast enough for
    # a 64-cell grid in the operator's thread).
    chunks = [units[i : i + 8] for i in range(0, n, 8)]
    tables = [
        [sum(u if mask >> j & 1 else -u for j, u in enumerate(chunk)) for mask in range(2 ** len(chunk))]
        for chunk in chunks
    ]
    rng = random.Random(seed)
    extreme = 0
    for _ in range(PERMUTATIONS):
        signs = rng.getrandbits(n)
        total = sum(table[signs >> 8 * c & 255] for c, table in enumerate(tables))
        extreme += abs(total) >= observed
    # The observed pattern counts as one of the permutations: a sampled p-value is never 0.
    return (extreme + 1) / (PERMUTATIONS + 1), False


def mcnemar_p(gained: int, lost: int) -> float:
    """Exact two-sided McNemar p-value: a binomial(gained + lost, 1/2) sign test on the changed tickets."""
    changed = gained + lost
    if changed == 0:
        return 1.0
    tail = sum(math.comb(changed, i) for i in range(min(gained, lost) + 1))
    return min(1.0, 2 * tail / (1 << changed))  # exact integers: no overflow for thousands of tickets


def _percentile(ordered: Sequence[float], share: float) -> float:
    """The `share` quantile of sorted values, interpolated linearly between neighbours."""
    position = share * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _bootstrap(columns: Sequence[Sequence[float]], level: float, seed: int) -> list[tuple[float, float]]:
    """Percentile intervals of each column's mean, resampling the tickets (rows) together."""
    rng = random.Random(seed)
    n = len(columns[0])
    means: list[list[float]] = [[] for _ in columns]
    for _ in range(BOOTSTRAP_RESAMPLES):
        rows = rng.choices(range(n), k=n)
        for column, out in zip(columns, means, strict=True):
            out.append(sum(map(column.__getitem__, rows)) / n)
    tail = (1.0 - level) / 2
    intervals = []
    for column, values in zip(columns, means, strict=True):
        values.sort()
        low, high = _percentile(values, tail), _percentile(values, 1.0 - tail)
        centre = sum(column) / n
        # Sums of floats may land a hair outside an interval that should hold the mean exactly.
        intervals.append((min(low, centre), max(high, centre)))
    return intervals


def _effect_size(differences: Sequence[float]) -> float | None:
    n = len(differences)
    if n < 2:
        return None
    mean = sum(differences) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    return None if spread < _QUANTUM else mean / spread


def compare(
    candidate: Paired, incumbent: Paired, *, level: float = DEFAULT_LEVEL, seed: int = DEFAULT_SEED
) -> Comparison:
    """Both paired tests of `candidate` against `incumbent` (positive effects favour the candidate)."""
    if not 0.0 < level < 1.0:
        raise InputError(f"confidence level {level}: give a number between 0 and 1 (e.g. 0.95)")
    tickets = _check(candidate, incumbent)
    differences = [candidate.scores[t] - incumbent.scores[t] for t in tickets]
    changes = [float(candidate.resolved[t]) - float(incumbent.resolved[t]) for t in tickets]
    (score_low, score_high), (pass_low, pass_high) = _bootstrap([differences, changes], level, seed)
    p_value, exact = sign_flip_p(differences, seed)
    gained = sum(1 for c in changes if c > 0)
    lost = sum(1 for c in changes if c < 0)
    n = len(tickets)
    return Comparison(
        level=level,
        scores=ScoreTest(
            tickets=n,
            effect=sum(differences) / n,
            effect_size=_effect_size(differences),
            ci_low=score_low,
            ci_high=score_high,
            p_value=p_value,
            exact=exact,
        ),
        passes=PassTest(
            tickets=n,
            gained=gained,
            lost=lost,
            effect=(gained - lost) / n,
            ci_low=pass_low,
            ci_high=pass_high,
            p_value=mcnemar_p(gained, lost),
        ),
    )


def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm's step-down adjustment: each p-value as if judged together with all the others.

    A winner picked from many candidates is the one luck favoured most; its own p-value overstates how sure
    the comparison is. Holm's adjustment keeps the chance of any false "real difference" at the level.
    """
    ordered = sorted(p_values.items(), key=lambda item: (item[1], item[0]))
    adjusted: dict[str, float] = {}
    running = 0.0
    for rank, (name, p) in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - rank) * p))
        adjusted[name] = running
    return adjusted
