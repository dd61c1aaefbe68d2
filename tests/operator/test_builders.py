"""The Job, the RunConfig and the brain snapshot, compared with exact expected objects."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from assay_operator.evaluation import api, builders
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.settings import Settings
from assay_runner.io.runconfig import read_run_config

SETTINGS = Settings(
    runner_image="quay.io/assay/runner:0.1.0",
    default_gateway="http://gateway.ai:8080/v1",
    default_mlflow_uri="http://mlflow.mlops:5000",
    bundled_root="/opt/assay/examples",
)

SPEC = EvaluationSpec.model_validate(
    {
        "brain": {"configMap": {"name": "brain-v1"}},
        "suite": {"configMap": {"name": "support-suite"}, "kbConfigMap": {"name": "support-kb"}},
        "tickets": {"split": "validation"},
        "agent": {"kind": "chat", "model": "gpt-small"},
        "judgeModel": "judge-m",
        "gate": {"minScore": 0.85, "thresholds": {"quality": 3.5}},
    }
)


def test_job_is_exactly_the_expected_object() -> None:
    job = builders.build_job(SPEC, "release-42", "team-a", 3, "release-42-brain-0123456789", SETTINGS)
    labels = {
        "app.kubernetes.io/name": "assay",
        "app.kubernetes.io/component": "runner",
        "app.kubernetes.io/managed-by": "assay-operator",
        "assay.dev/evaluation": "release-42",
        "assay.dev/generation": "3",
    }
    assert job == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "release-42-g3",
            "labels": labels,
            "annotations": {"assay.dev/spec-hash": builders.spec_hash(SPEC)},
        },
        "spec": {
            "backoffLimit": 1,
            "activeDeadlineSeconds": 1800,
            "ttlSecondsAfterFinished": 3600,
            "podFailurePolicy": {
                "rules": [
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                    {
                        "action": "FailJob",
                        "onExitCodes": {"containerName": "runner", "operator": "In", "values": [2]},
                    },
                ]
            },
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "automountServiceAccountToken": False,
                    "enableServiceLinks": False,
                    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [
                        {
                            "name": "runner",
                            "image": "quay.io/assay/runner:0.1.0",
                            "command": ["assay", "run", "--config", "/etc/assay/run/config.json"],
                            "workingDir": "/work",
                            "env": [
                                {"name": "HOME", "value": "/tmp"},
                                {"name": "TMPDIR", "value": "/tmp"},
                                {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
                                {"name": "ASSAY_GATEWAY_URL", "value": "http://gateway.ai:8080/v1"},
                                {"name": "MLFLOW_TRACKING_URI", "value": "http://mlflow.mlops:5000"},
                            ],
                            "resources": {
                                "requests": {"cpu": "6", "memory": "6Gi"},
                                "limits": {"cpu": "6", "memory": "6Gi"},
                            },
                            "volumeMounts": [
                                {"name": "brain", "mountPath": "/etc/assay/brain", "readOnly": True},
                                {"name": "run-config", "mountPath": "/etc/assay/run", "readOnly": True},
                                {"name": "work", "mountPath": "/work"},
                                {"name": "tmp", "mountPath": "/tmp"},
                                {"name": "suite", "mountPath": "/etc/assay/suite", "readOnly": True},
                                {"name": "kb", "mountPath": "/etc/assay/kb", "readOnly": True},
                            ],
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "FallbackToLogsOnError",
                            "securityContext": {
                                "allowPrivilegeEscalation": False,
                                "readOnlyRootFilesystem": True,
                                "runAsNonRoot": True,
                                "capabilities": {"drop": ["ALL"]},
                            },
                        }
                    ],
                    "volumes": [
                        {
                            "name": "brain",
                            "configMap": {"name": "release-42-brain-0123456789", "defaultMode": 0o444},
                        },
                        {
                            "name": "run-config",
                            "configMap": {"name": "release-42-run-g3", "defaultMode": 0o444},
                        },
                        {"name": "work", "emptyDir": {}},
                        {"name": "tmp", "emptyDir": {}},
                        {"name": "suite", "configMap": {"name": "support-suite", "defaultMode": 0o444}},
                        {"name": "kb", "configMap": {"name": "support-kb", "defaultMode": 0o444}},
                    ],
                },
            },
        },
    }


def test_pod_spec_has_nothing_users_could_choose() -> None:
    job = builders.build_job(SPEC, "e", "ns", 1, "snap", SETTINGS)
    pod = job["spec"]["template"]["spec"]
    assert "serviceAccountName" not in pod and pod["automountServiceAccountToken"] is False
    env_text = json.dumps(pod["containers"][0]["env"]).lower()
    assert "key" not in env_text and "secret" not in env_text and "token" not in env_text
    assert all("configMap" in v or "emptyDir" in v for v in pod["volumes"])


def test_run_config_validates_as_the_runner_reads_it(tmp_path: Path) -> None:
    config_map = builders.build_run_config_map(SPEC, "release-42", "team-a", 3, SETTINGS)
    path = tmp_path / builders.RUN_CONFIG_KEY
    path.write_text(config_map["data"][builders.RUN_CONFIG_KEY])
    parsed = read_run_config(path)  # exactly what `assay run --config` does in the pod
    assert parsed == builders.build_run_config(SPEC, "release-42", "team-a", SETTINGS)
    assert (
        parsed.suite == "/etc/assay/suite"
        and parsed.kb == "/etc/assay/kb"
        and parsed.brain == "/etc/assay/brain"
    )
    assert (
        parsed.tickets == "validation" and parsed.agent.kind == "chat" and parsed.agent.model == "gpt-small"
    )
    assert parsed.gate.min_score == 0.85 and parsed.gate.thresholds == {"quality": 3.5}
    assert parsed.output.summary_path == "/dev/termination-log" and parsed.output.blocked_exit_code == 0
    assert parsed.mlflow.enabled and parsed.gateway is None  # both reach the runner as environment
    assert parsed.run_name == "team-a/release-42" and parsed.judge_model == "judge-m"


def test_bundled_suite_replay_and_cassettes() -> None:
    spec = EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "b"}},
            "suite": {"bundled": "support-desk"},
            "agent": {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}},
            "cassettes": {"bundled": "support-desk/cassettes"},
            "repetitions": 2,
        }
    )
    config = builders.build_run_config(spec, "e", "ns", Settings(runner_image="x"))
    assert config.suite == "/opt/assay/examples/support-desk" and config.kb is None
    assert config.agent.answers == "/opt/assay/examples/support-desk/answers/v1"
    assert (
        config.cassettes is not None and config.cassettes.dir == "/opt/assay/examples/support-desk/cassettes"
    )
    assert config.repetitions == 2 and not config.mlflow.enabled  # no tracking URI anywhere: no MLflow


def _hash(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:8]


@pytest.mark.parametrize(
    ("name", "generation", "expected"),
    [
        ("short", 1, "short-g1"),
        ("a" * 60, 1, "a" * 60 + "-g1"),  # fits: kept whole
        ("a" * 63, 12, "a" * 50 + "-" + _hash("a" * 63) + "-g12"),
        (
            "long-" + "x" * 60,
            123456789,
            ("long-" + "x" * 60)[:43] + "-" + _hash("long-" + "x" * 60) + "-g123456789",
        ),
        (
            "x" * 50 + "-yy" + "z" * 20,
            7,
            "x" * 50 + "-" + _hash("x" * 50 + "-yy" + "z" * 20) + "-g7",
        ),  # no "--"
    ],
)
def test_job_names_are_deterministic_and_short(name: str, generation: int, expected: str) -> None:
    assert builders.job_name(name, generation) == expected
    assert len(builders.job_name(name, generation)) <= 63


def test_long_names_sharing_a_prefix_get_distinct_children_and_labels() -> None:
    first, second = "p" * 70 + "-alpha", "p" * 70 + "-beta"
    assert builders.job_name(first, 1) != builders.job_name(second, 1)
    assert builders.run_config_name(first + "x" * 200, 1) != builders.run_config_name(second + "x" * 200, 1)
    one, two = (builders.labels(n)[builders.LABEL_EVALUATION] for n in (first, second))
    assert one != two and len(one) <= 63 and len(two) <= 63
    assert builders.labels("short")[builders.LABEL_EVALUATION] == "short"


def test_kueue_queue_suspends_the_job() -> None:
    spec = SPEC.model_copy(update={"queue_name": "team-queue"})
    job = builders.build_job(spec, "e", "ns", 1, "snap", SETTINGS)
    assert (
        job["spec"]["suspend"] is True
        and job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-queue"
    )


def test_brain_snapshot_is_immutable_and_digest_matches_the_runner() -> None:
    from assay_runner.contract import digest_files

    data = {"AGENTS.md": "Be kind.\n", "style.md": "Short.\n"}
    digest = builders.brain_digest(data)
    assert digest == digest_files({k: v.encode() for k, v in data.items()})
    snapshot = builders.build_brain_snapshot("e", 1, data, None, digest)
    assert snapshot["immutable"] is True and snapshot["data"] == data
    assert snapshot["metadata"]["name"] == f"e-brain-{digest[7:17]}"


def test_prices_and_budget_reach_the_run_config(tmp_path: Path) -> None:
    spec = SPEC.model_copy(
        update={
            "prices": {"gpt-small": api.PriceSpec(input_per_million=0.5, output_per_million=1.5)},
            "max_cost_usd": 12.5,
        }
    )
    config_map = builders.build_run_config_map(spec, "e", "ns", 1, SETTINGS)
    path = tmp_path / builders.RUN_CONFIG_KEY
    path.write_text(config_map["data"][builders.RUN_CONFIG_KEY])
    parsed = read_run_config(path)
    assert parsed.prices["gpt-small"].input_per_million == 0.5
    assert parsed.prices["gpt-small"].output_per_million == 1.5
    assert parsed.max_cost_usd == 12.5
    # Without them the runner gets none: no price table, no budget.
    plain = builders.build_run_config(SPEC, "e", "ns", SETTINGS)
    assert plain.prices == {} and plain.max_cost_usd is None
