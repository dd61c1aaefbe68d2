"""A model judge on the agent's own model, under another name: the suite's aliases and a gateway's usual
spellings (provider prefix, date, -latest, case) are the same model; different models stay different."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_runner.core.independence import canonical_model, judge_model_warnings
from assay_runner.errors import InputError
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import SuiteSpec


def suite(judge_model: str | None = None, **extra: object) -> Suite:
    judge: dict[str, object] = {
        "name": "quality",
        "type": "model",
        "weight": 1,
        "threshold": 4,
        "rubric": "r",
    }
    if judge_model:
        judge["model"] = judge_model
    spec = SuiteSpec.model_validate(
        {
            "name": "s",
            "judges": [judge],
            "tickets": [{"id": "T-1", "split": "validation", "question": "q"}],
            **extra,
        }
    )
    return Suite(spec=spec, root=Path("."), tickets=spec.tickets or [], kb={}, files={})


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("acme-large", "openai/acme-large"),
        ("acme-large", "acme-large-20260501"),
        ("acme-large", "acme-large@2026-05-01"),
        ("acme-large", "ACME-Large-latest"),
    ],
)
def test_a_gateways_spellings_of_one_model_are_one_model(a: str, b: str) -> None:
    assert canonical_model(a, {}) == canonical_model(b, {})


def test_different_models_stay_different() -> None:
    assert canonical_model("acme-large", {}) != canonical_model("acme-large-2", {})
    assert canonical_model("acme-large", {}) != canonical_model("acme-small", {})


def test_the_suites_aliases_are_followed_and_a_loop_stops() -> None:
    aliases = {"fast": "house-model", "house-model": "acme-large-20260501", "a": "b", "b": "a"}
    assert canonical_model("fast", aliases) == canonical_model("acme-large", {})
    assert canonical_model("a", aliases) in ("a", "b")


def test_a_judge_on_an_alias_of_the_agents_model_is_caught() -> None:
    # Before: only the exact name was caught, so a judge on "fast" (routed to the agent's model) passed.
    warned = judge_model_warnings(
        suite("fast", modelAliases={"fast": "acme-large"}), None, "openai/acme-large"
    )
    assert len(warned) == 1 and "quality" in warned[0] and "or a name for it" in warned[0]
    assert judge_model_warnings(suite(), "acme-large-latest", "acme-large")
    assert judge_model_warnings(suite("acme-small"), None, "acme-large") == []
    with pytest.raises(InputError, match="requireDistinctJudgeModel"):
        judge_model_warnings(
            suite("fast", modelAliases={"fast": "acme-large"}, requireDistinctJudgeModel=True),
            None,
            "acme-large",
        )
