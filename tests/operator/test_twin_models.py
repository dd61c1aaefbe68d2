"""The operator's API models and the runner's contract models that carry the same data must not drift.

They stay two classes where Kubernetes needs something the wire contract does not (every status field
optional, because a running Evaluation has no figures yet; length bounds and descriptions for the CRD), but
the fields are the same: a field added to the contract (a new digest, say) fails here until the resource
carries it too.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from assay_operator.evaluation import api
from assay_runner import contract

SAME_FIELDS = [
    (api.InputsStatus, contract.Inputs),
    (api.UsageStatus, contract.Usage),
    (api.ConversationsStatus, contract.ConversationCost),
    (api.RuleStatus, contract.SummaryRule),
    (api.GateOverrides, contract.GateOverrides),
    (api.AnswerSecondsPercentile, contract.AnswerSecondsPercentile),
    (api.PriceSpec, contract.PriceConfig),
]
# The status shows a subset on purpose: MLflow's error text and the cell counts stay in result.json.
SUBSET = [
    (api.MlflowStatus, contract.MlflowRef, {"error"}),
    (api.RepetitionsStatus, contract.RepetitionFigures, {"cells", "passing_cells"}),
    (api.AgentSpec, contract.AgentConfig, set()),
]


@pytest.mark.parametrize(("resource", "wire"), SAME_FIELDS, ids=lambda m: m.__name__)
def test_twins_carry_the_same_fields(resource: type[BaseModel], wire: type[BaseModel]) -> None:
    assert set(resource.model_fields) == set(wire.model_fields)


@pytest.mark.parametrize(("resource", "wire", "left_out"), SUBSET, ids=lambda m: getattr(m, "__name__", ""))
def test_status_shows_the_contract_less_what_is_left_out_on_purpose(
    resource: type[BaseModel], wire: type[BaseModel], left_out: set[str]
) -> None:
    assert set(resource.model_fields) == set(wire.model_fields) - left_out


def test_the_agent_kinds_are_one_closed_set() -> None:
    assert (
        api.AgentSpec.model_fields["kind"].annotation == contract.AgentConfig.model_fields["kind"].annotation
    )
