"""The paired statistics: hand-computed small tables, and properties that must hold for any table."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay_runner.core import statistics
from assay_runner.core.statistics import Paired, compare, holm, mcnemar_p, sign_flip_p
from assay_runner.errors import InputError


def paired(scores: list[float], resolved: list[bool] | None = None) -> Paired:
    ids = [f"T{i:02d}" for i in range(len(scores))]
    flags = resolved if resolved is not None else [s >= 1.0 for s in scores]
    return Paired(scores=dict(zip(ids, scores, strict=True)), resolved=dict(zip(ids, flags, strict=True)))


# --- hand-computed tables ---


def test_sign_flip_five_equal_gains() -> None:
    # Of the 32 sign patterns only all-plus and all-minus reach |sum| = 5: p = 2/32.
    assert sign_flip_p([1, 1, 1, 1, 1]) == (0.0625, True)


def test_sign_flip_one_two_three() -> None:
    # Sums of ±1 ±2 ±3: 6, 0, 2, -4, 4, -2, 0, -6 — two of eight reach |6|.
    assert sign_flip_p([1, 2, 3]) == (0.25, True)


def test_sign_flip_zero_differences_drop_out() -> None:
    # [.5, 0, 0, .5]: the zeros change nothing; ±.5 ±.5 gives 1, 0, 0, -1 — half reach |1|.
    assert sign_flip_p([0.5, 0.0, 0.0, 0.5]) == (0.5, True)
    assert sign_flip_p([0.0, 0.0]) == (1.0, True)


def test_mcnemar_exact_known_values() -> None:
    assert mcnemar_p(5, 0) == 0.0625  # 2 * (1/2)^5
    assert mcnemar_p(8, 1) == pytest.approx(0.0390625)  # 2 * (C(9,0) + C(9,1)) / 2^9 = 20/512
    assert mcnemar_p(1, 1) == 1.0
    assert mcnemar_p(0, 0) == 1.0


def test_holm_known_values() -> None:
    # sorted: a .01 x3 = .03; c .03 x2 = .06; b .04 x1 = .04 -> kept monotone at .06
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})


def test_compare_small_table() -> None:
    candidate = paired([1.0, 1.0, 0.5, 1.0])
    incumbent = paired([0.5, 1.0, 0.5, 0.5])
    result = compare(candidate, incumbent)
    assert result.scores.effect == pytest.approx(0.25)
    assert result.scores.p_value == 0.5 and result.scores.exact
    assert result.scores.effect_size == pytest.approx(0.25 / (1 / 12) ** 0.5)  # sd of [.5, 0, 0, .5]
    assert (result.passes.gained, result.passes.lost) == (2, 0)
    assert result.passes.effect == 0.5 and result.passes.p_value == 0.5
    assert result.scores.ci_low <= 0.25 <= result.scores.ci_high
    assert result.scores.ci_low >= 0.0 and result.scores.ci_high <= 0.5  # no resample can leave [0, .5]


def test_effect_size_of_one_two_three() -> None:
    result = compare(paired([1.0, 2.0, 3.0]), paired([0.0, 0.0, 0.0]))
    assert result.scores.effect_size == pytest.approx(2.0)  # mean 2, standard deviation 1


def test_many_irregular_differences_are_sampled_reproducibly() -> None:
    gains = [0.013 * (i + 1) + 0.0007 * i * i for i in range(40)]
    p, exact = sign_flip_p(gains)
    assert not exact
    # Every difference positive: only the observed pattern reaches the sum, so p = 1 / (permutations + 1).
    assert p == pytest.approx(1 / (statistics.PERMUTATIONS + 1))
    mixed = [g if i % 3 else -g for i, g in enumerate(gains)]
    assert sign_flip_p(mixed, seed=7) == sign_flip_p(mixed, seed=7)
    assert 0.0 < sign_flip_p(mixed)[0] <= 1.0


def test_refuses_different_tickets() -> None:
    with pytest.raises(InputError, match="same tickets"):
        compare(paired([1.0, 1.0]), paired([1.0]))
    with pytest.raises(InputError, match="between 0 and 1"):
        compare(paired([1.0]), paired([1.0]), level=1.0)


# --- properties ---

score = st.floats(min_value=0.0, max_value=1.0, allow_nan=False).map(lambda x: round(x, 4))
tables = st.integers(min_value=1, max_value=24).flatmap(
    lambda n: st.tuples(st.lists(score, min_size=n, max_size=n), st.lists(score, min_size=n, max_size=n))
)


@settings(max_examples=60, deadline=None)
@given(st.lists(score, min_size=1, max_size=30))
def test_identical_candidates_never_differ(scores: list[float]) -> None:
    same = compare(paired(scores), paired(scores))
    assert same.scores.p_value == 1.0 and same.passes.p_value == 1.0
    assert same.scores.effect == 0.0 and (same.scores.ci_low, same.scores.ci_high) == (0.0, 0.0)
    assert (same.passes.gained, same.passes.lost) == (0, 0)


@settings(max_examples=60, deadline=None)
@given(tables)
def test_swapping_flips_the_sign(table: tuple[list[float], list[float]]) -> None:
    a, b = paired(table[0]), paired(table[1])
    ab, ba = compare(a, b), compare(b, a)
    assert ab.scores.effect == pytest.approx(-ba.scores.effect, abs=1e-12)
    assert ab.scores.p_value == ba.scores.p_value
    assert ab.scores.ci_low == pytest.approx(-ba.scores.ci_high, abs=1e-9)
    assert ab.passes.effect == -ba.passes.effect
    assert (ab.passes.gained, ab.passes.lost) == (ba.passes.lost, ba.passes.gained)
    assert ab.passes.p_value == ba.passes.p_value


@settings(max_examples=60, deadline=None)
@given(tables)
def test_figures_are_well_formed(table: tuple[list[float], list[float]]) -> None:
    result = compare(paired(table[0]), paired(table[1]))
    for test in (result.scores, result.passes):
        assert 0.0 <= test.p_value <= 1.0
        assert test.ci_low <= test.effect <= test.ci_high
    assert result.scores.ci_low >= -1.0 and result.scores.ci_high <= 1.0


@settings(max_examples=40, deadline=None)
@given(
    st.lists(score, min_size=1, max_size=20),
    st.floats(min_value=-0.5, max_value=0.5).map(lambda x: round(x, 3)),
)
def test_a_constant_difference_has_a_point_interval(scores: list[float], shift: float) -> None:
    result = compare(paired([s + shift for s in scores], [s >= 1 for s in scores]), paired(scores))
    assert result.scores.effect == pytest.approx(shift, abs=1e-9)
    assert result.scores.ci_low == pytest.approx(shift, abs=1e-9)
    assert result.scores.ci_high == pytest.approx(shift, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=3), st.floats(min_value=0.0, max_value=1.0), min_size=1))
def test_holm_never_lowers_a_p_value(p_values: dict[str, float]) -> None:
    adjusted = holm(p_values)
    assert set(adjusted) == set(p_values)
    for name, p in p_values.items():
        assert p <= adjusted[name] <= 1.0
    ordered = sorted(p_values, key=lambda n: (p_values[n], n))
    assert [adjusted[n] for n in ordered] == sorted(adjusted[n] for n in ordered)


def test_seeded_figures_repeat() -> None:
    a, b = paired([0.9, 0.7, 0.8, 1.0, 0.6, 0.95]), paired([0.8, 0.75, 0.6, 0.9, 0.65, 0.7])
    assert compare(a, b) == compare(a, b)
