"""Property-based tests of the gate: Pass iff every rule passes; failures never help; n/a never adds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay_runner.contract import JudgeConfigSummary, JudgeVerdict, TicketResult
from assay_runner.core.scorecard import assemble
from assay_runner.core.scoring import EPSILON, cell_score
from tests.unit.builders import cfg, config, rep, tres

NAMES = ["a", "b", "c", "d"]

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
verdicts = st.one_of(
    scores.map(lambda s: JudgeVerdict(score=s, reason="", applicable=True)),
    st.just(JudgeVerdict(score=None, reason="", applicable=False)),
    st.just(JudgeVerdict(score=None, reason="", applicable=True, error="boom")),
)
configs = st.lists(
    st.builds(
        lambda w, t, f: (w, t, f),
        st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]),
        scores,
        st.one_of(st.none(), scores),
    ),
    min_size=len(NAMES),
    max_size=len(NAMES),
).map(lambda items: [cfg(n, w, t, floor=f) for n, (w, t, f) in zip(NAMES, items, strict=True)])
cells = st.fixed_dictionaries({name: verdicts for name in NAMES})


@st.composite
def ticket_sets(draw: st.DrawFn) -> tuple[list[TicketResult], int]:
    k = draw(st.integers(min_value=1, max_value=3))
    count = draw(st.integers(min_value=1, max_value=5))
    tickets = []
    for index in range(count):
        reps = [
            rep(r + 1, draw(cells)) for r in range(draw(st.integers(min_value=max(1, k - 1), max_value=k)))
        ]
        tickets.append(tres(f"T{index}", *reps))
    return tickets, k


gates = st.builds(lambda s, f, h: (s, f, h), scores, scores, st.one_of(st.none(), scores))


@settings(max_examples=150, deadline=None)
@given(ticket_sets(), configs, gates)
def test_pass_if_and_only_if_every_rule_passes(
    tickets_k: tuple[list[TicketResult], int],
    judges: list[JudgeConfigSummary],
    gate: tuple[float, float, float | None],
) -> None:
    tickets, k = tickets_k
    card = assemble(
        tickets, config(judges, min_score=gate[0], ticket_floor=gate[1], min_pass_hat_k=gate[2]), k
    )
    assert (card.verdict == "Pass") == all(rule.passed for rule in card.rules)
    assert card.verdict in ("Pass", "Blocked")
    assert (card.verdict == "Pass") == (card.reasons == [])


@settings(max_examples=150, deadline=None)
@given(ticket_sets(), configs, gates, cells, st.sampled_from(["below-floor", "error", "missing"]))
def test_adding_a_failing_ticket_never_turns_blocked_into_pass(
    tickets_k: tuple[list[TicketResult], int],
    judges: list[JudgeConfigSummary],
    gate: tuple[float, float, float | None],
    extra: dict[str, JudgeVerdict],
    how: str,
) -> None:
    tickets, k = tickets_k
    conf = config(judges, min_score=gate[0], ticket_floor=gate[1], min_pass_hat_k=gate[2])
    before = assemble(tickets, conf, k)
    if how == "error":
        failing = tres(
            "NEW", *[rep(r + 1, {**extra, "a": JudgeVerdict(reason="", error="boom")}) for r in range(k)]
        )
    elif how == "missing":
        failing = tres("NEW", *[rep(r + 1, {}, error="no answer") for r in range(k)])
    else:
        zero = {name: JudgeVerdict(score=0.0, reason="") for name in NAMES}
        failing = tres("NEW", *[rep(r + 1, zero) for r in range(k)])
    after = assemble([*tickets, failing], conf, k)
    if how == "below-floor" and gate[1] <= EPSILON:
        return  # a floor within the rounding tolerance of 0 cannot be broken by a 0; nothing to claim
    assert after.verdict == "Blocked"
    if before.verdict == "Blocked":
        assert after.verdict == "Blocked"


@settings(max_examples=200, deadline=None)
@given(configs, cells, st.sampled_from(NAMES))
def test_not_applicable_judge_is_excluded_never_a_free_score(
    judges: list[JudgeConfigSummary], verdicts: dict[str, JudgeVerdict], judge: str
) -> None:
    with_na = {**verdicts, judge: JudgeVerdict(score=None, reason="", applicable=False)}
    with_full = {**verdicts, judge: JudgeVerdict(score=1.0, reason="")}
    others = [c for c in judges if c.name != judge]
    score_na, error_na = cell_score(with_na, judges)
    score_full, _ = cell_score(with_full, judges)
    score_without, error_without = cell_score({k: v for k, v in with_na.items() if k != judge}, others)
    assert (score_na, error_na) == (score_without, error_without)  # exactly as if the judge did not exist
    if error_na is None:
        assert score_na <= score_full + 1e-12  # and never more than full marks would have given


@pytest.mark.parametrize("k", [1, 3])
def test_all_perfect_is_pass(k: int) -> None:
    perfect = {name: JudgeVerdict(score=1.0, reason="") for name in NAMES}
    judges = [cfg(name, 1.0, 1.0, floor=1.0) for name in NAMES]
    card = assemble(
        [tres("T", *[rep(r + 1, perfect) for r in range(k)])], config(judges, min_pass_hat_k=1.0), k
    )
    assert card.verdict == "Pass"
