"""Kappa, weighted kappa and the bootstrap interval against hand-computed and published values."""

from __future__ import annotations

import pytest

from assay_runner.core.agreement import agreement, bootstrap, confusion, kappa

BINARY = ["fail", "pass"]


def pairs(matrix: list[list[int]], categories: list[str]) -> list[tuple[str, str]]:
    return [
        (categories[i], categories[j])
        for i, row in enumerate(matrix)
        for j, n in enumerate(row)
        for _ in range(n)
    ]


def test_cohens_kappa_of_a_textbook_table() -> None:
    # Wikipedia's example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o 0.7, p_e 0.5, kappa 0.4.
    data = pairs([[20, 5], [10, 15]], ["yes", "no"])
    assert agreement(data) == pytest.approx(0.7)
    assert kappa(data, ["yes", "no"]) == pytest.approx(0.4)
    assert confusion(data, ["yes", "no"]) == [[20, 5], [10, 15]]


def test_perfect_chance_and_undefined() -> None:
    same = [("pass", "pass"), ("fail", "fail")] * 5
    assert kappa(same, BINARY) == pytest.approx(1.0)
    independent = pairs([[5, 5], [5, 5]], BINARY)
    assert kappa(independent, BINARY) == pytest.approx(0.0)
    assert kappa([("pass", "pass")] * 4, BINARY) is None  # all in one category: chance explains it all
    assert kappa([], BINARY) is None


def test_quadratic_weights_credit_near_misses() -> None:
    scale = ["1", "2", "3", "4", "5"]
    near = [("5", "4"), ("4", "5"), ("3", "3"), ("1", "2"), ("2", "1"), ("5", "5"), ("1", "1")]
    far = [("5", "1"), ("1", "5"), ("3", "3"), ("1", "5"), ("5", "1"), ("5", "5"), ("1", "1")]
    weighted_near = kappa(near, scale, "quadratic")
    assert weighted_near is not None and weighted_near > 0.8
    nominal_near = kappa(near, scale, "nominal")
    assert nominal_near is not None and nominal_near < weighted_near  # a miss by one counts as a miss
    weighted_far = kappa(far, scale, "quadratic")
    assert weighted_far is not None and weighted_far < 0


def test_quadratic_kappa_matches_a_hand_computed_value() -> None:
    # Three categories, 2x agreement on each, one 0->2 miss: observed weighted disagreement 1/7 (weight 1),
    # marginals rows (3,2,2), columns (2,2,3) -> expected sum_ij w_ij r_i c_j / 49.
    data = [("a", "a")] * 2 + [("b", "b")] * 2 + [("c", "c")] * 2 + [("a", "c")]
    rows, cols = [3, 2, 2], [2, 2, 3]
    w = [[((i - j) / 2) ** 2 for j in range(3)] for i in range(3)]
    expected = sum(w[i][j] * rows[i] * cols[j] for i in range(3) for j in range(3)) / 49
    assert kappa(data, ["a", "b", "c"], "quadratic") == pytest.approx(1 - (1 / 7) / expected)


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    data = pairs([[40, 6], [4, 50]], BINARY)
    first = bootstrap(data, BINARY, resamples=500, seed=7)
    again = bootstrap(data, BINARY, resamples=500, seed=7)
    assert first == again
    point = kappa(data, BINARY)
    assert first.low is not None and first.high is not None and point is not None
    assert first.low < point < first.high
    assert first.defined == 500
    assert bootstrap([], BINARY).low is None
