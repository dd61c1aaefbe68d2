"""The rules on the operator/runner seam are written once (assay_runner.shared_rules) and both sides agree on
them: every place of the operator that applies one gives what the runner's side gives. (The check of
`gate.thresholds` overrides, the third, is held in test_threshold_admission.py.)"""

from __future__ import annotations

import pytest

from assay_operator.evaluation.api import EvaluationSpec, MlflowSpec
from assay_operator.evaluation.build import runconfig
from assay_operator.evaluation.build.gateway_sidecar import judge_env
from assay_operator.evaluation.build.layout import ANSWERS_DIR
from assay_operator.settings import Settings
from assay_runner.contract import GATEWAY_LEDGER_ENV, SHARD_DIR, RunConfig
from assay_runner.shared_rules import DEFAULT_EXPERIMENT, read_as_whole_tree

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
