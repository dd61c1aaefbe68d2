"""An Evaluation's `gate.thresholds` is checked against its suite ConfigMap's judges before any Job starts,
by the rule the runner applies (`contract.seam.threshold_override_problems`, on the suite's YAML here and on
its typed models there): the two sides cannot disagree on a value, nor word a refusal differently."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_operator.evaluation.build.suite_split import threshold_override_problems
from assay_runner.contract import RunConfig
from assay_runner.errors import InputError
from assay_runner.run.preparation import prepare

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
DATA = {name: (EXAMPLE / name).read_text() for name in ("suite.yaml", "tickets.yaml")}


@pytest.mark.parametrize(
    ("thresholds", "refused"),
    [
        ({"policy": 1.0, "quality": 4.5}, False),  # a model judge's threshold on its rubric's scale
        ({"quality": 1.0, "format": 0.0}, False),  # the bounds themselves
        ({"policy": 1.5}, True),
        ({"format": -0.01}, True),
        ({"quality": 5.5}, True),
        ({"quality": float("inf")}, True),
        ({"polcy": 0.9}, True),  # a typo
        ({"polcy": 0.9, "policy": 2.0, "quality": 0.5}, True),  # every problem at once, in order
    ],
)
def test_the_operator_and_the_runner_refuse_the_same_overrides(
    thresholds: dict[str, float], refused: bool
) -> None:
    problems = threshold_override_problems(DATA, thresholds)
    assert bool(problems) is refused, problems
    config = RunConfig.model_validate({"suite": str(EXAMPLE), "gate": {"thresholds": thresholds}})
    if refused:
        with pytest.raises(InputError) as runner_refused:
            prepare(config)
        runner_problems = [f"{p.location}: {p.message}" for p in runner_refused.value.problems]
        assert runner_problems == problems
        assert all(p.startswith("gate.thresholds.") for p in problems)
    else:
        prepare(config)


def test_a_suite_the_operator_cannot_read_is_left_to_the_runner() -> None:
    assert threshold_override_problems({"suite.yaml": "judges: 3"}, {"policy": 9.0}) == [
        "gate.thresholds.policy: the suite has no judge 'policy' (judges: none)"
    ]
    assert threshold_override_problems(DATA, {}) == []
