"""The rules on the operator/runner seam are written once (assay_runner.contract.seam) and both sides agree on
them: every place of the operator that applies one gives what the runner's side gives. (The check of
`gate.thresholds` overrides is held in test_threshold_admission.py.)"""

from __future__ import annotations

import pytest

from assay_operator.campaign.api import CandidateStatus
from assay_operator.campaign.standings import _figures
from assay_operator.evaluation.api import EvaluationSpec, MlflowSpec, ResourcesSpec
from assay_operator.evaluation.build import pods, runconfig
from assay_operator.evaluation.build.gateway_sidecar import judge_env
from assay_operator.evaluation.build.layout import ANSWERS_DIR
from assay_operator.settings import Settings
from assay_runner.contract import (
    DEFAULT_EXPERIMENT,
    GATEWAY_LEDGER_ENV,
    SHARD_DIR,
    RunConfig,
    read_as_whole_tree,
)
from assay_runner.core.decision_report import CandidateRow, row_json
from assay_runner.core.standing import Standing

SETTINGS = Settings(runner_image="quay.io/assay/runner:0.1.0", default_mlflow_uri="http://mlflow.mlops:5000")


def spec(**fields: object) -> EvaluationSpec:
    return EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "brain-v1"}},
            "suite": {"bundled": "support-desk"},
            "agent": {"kind": "chat", "model": "m"},
            **fields,
        }
    )


@pytest.mark.parametrize("parallelism", [1, 2, 4])
def test_every_place_reads_one_shard_as_a_whole_tree_alike(parallelism: int) -> None:
    """The answer phase's RunConfig (no shard), the judge phase's (shard 0's folder as the whole tree) and
    the judge's ledger folder (shard 0's) say the same: a whole run exactly when the rule says so."""
    evaluation = spec(parallelism=parallelism)
    whole = read_as_whole_tree(parallelism)
    assert whole is (parallelism == 1)
    answer = runconfig.answer_config(evaluation, "e", "ns", SETTINGS)
    judge = runconfig.judge_config(evaluation, "e", "ns", SETTINGS, {})
    (ledger,) = [e.value for e in judge_env(parallelism) if e.name == GATEWAY_LEDGER_ENV]
    shard_zero = SHARD_DIR.format(index=0)
    assert (answer.shard is None) is whole
    assert (judge.shard is None) is whole
    assert (judge.answers_dir == f"{ANSWERS_DIR}/{shard_zero}") is whole
    assert ledger.endswith(f"/{shard_zero}") is whole


def test_a_failed_shard_is_read_as_a_shard_even_alone() -> None:
    assert not read_as_whole_tree(1, {0})
    judge = runconfig.judge_config(spec(parallelism=1), "e", "ns", SETTINGS, {0: "OOMKilled"})
    assert judge.shard is not None and judge.shard.failed == {"0": "OOMKilled"}
    assert judge.answers_dir == ANSWERS_DIR


def test_the_default_experiment_is_the_runconfigs_on_every_side() -> None:
    runners = RunConfig.model_validate({"suite": "s"}).mlflow.experiment
    assert runners == DEFAULT_EXPERIMENT
    assert MlflowSpec().experiment == runners  # the Evaluation's spec.mlflow without one
    assert (
        runconfig.build_run_config(spec(), "e", "ns", SETTINGS).mlflow.experiment == runners
    )  # no spec.mlflow


def test_a_campaign_row_shows_the_figures_assay_compare_shows() -> None:
    """A Campaign's status row and `assay compare --json` read one list of a candidate's figures
    (decision_report.row_figures): the same figures, the same values, under the same camelCase names."""
    standing = Standing(
        name="b",
        verdict="Pass",
        mean=0.8125,
        lowest_ticket=0.5,
        judges_passing=3,
        complete=True,
        coverage=1.0,
        pass_rate=0.75,
        pass_at_k=1.0,
        pass_hat_k=0.5,
        fully_resolved=2,
        tickets=4,
        k=2,
        suite_digest=None,
    )
    row = CandidateRow("b", "candidate", standing, {"mean": 0.8125}, 1, 2, None)
    status = CandidateStatus(name="b", role="candidate", evaluation="c-b", phase="Finished")
    shown = status.model_copy(update=_figures(row)).to_patch()
    compared = {name: value for name, value in row_json(row).items() if value is not None}
    assert {k: v for k, v in shown.items() if k not in ("role", "evaluation", "phase")} == compared


def test_default_resources_live_on_their_model_fields() -> None:
    """A spec without `resources` gets the defaults of ResourcesSpec's fields, the ones the CRD documents."""
    default = ResourcesSpec()
    assert pods.resources_of(spec()) == {"cpu": default.cpu, "memory": default.memory}
    given = spec(resources={"cpu": "2", "memory": "1Gi"})
    assert pods.resources_of(given) == {"cpu": "2", "memory": "1Gi"}


def test_the_model_judge_scale_has_one_home() -> None:
    """Which judge kind grades on a scale of its own is `contract.has_own_scale`: the suite's models (their
    field checks and `scale_bounds`), the result's integrity check, MLflow's feedback source and the
    operator's check of `gate.thresholds` all follow it."""
    from assay_operator.evaluation.build.suite_split import threshold_override_problems
    from assay_runner.contract import MODEL_JUDGE, JudgeConfigSummary, has_own_scale, judge_scale
    from assay_runner.core.integrity import _judge_config
    from assay_runner.suite.models import JUDGE_KINDS

    own = {kind for kind in JUDGE_KINDS if has_own_scale(kind)}
    assert own == {MODEL_JUDGE} and JUDGE_KINDS[MODEL_JUDGE].kind_tag() == MODEL_JUDGE
    for kind in JUDGE_KINDS:
        summary = JudgeConfigSummary(name="j", type=kind, weight=1, threshold=2, scale=(1, 5))
        refused = [where for where, _ in _judge_config("j", summary)]
        assert refused == ([] if has_own_scale(kind) else ["j.scale"]), kind
        suite = f"judges:\n  - name: j\n    type: {kind}\n"
        operator_says = threshold_override_problems({"suite.yaml": suite}, {"j": 3})
        assert bool(operator_says) == (judge_scale(kind) == (0.0, 1.0)), kind
