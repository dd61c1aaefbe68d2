"""The Job, the RunConfig and the brain snapshot, compared with exact expected objects."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from assay_operator.evaluation import api, names, runconfig, snapshots
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.job import build_job as build_job_object
from assay_operator.evaluation.job import spec_hash
from assay_operator.evaluation.layout import RUN_CONFIG_KEY
from assay_operator.evaluation.suite_split import SuiteSplitError, split_suite
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


def build_job(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The Job as the operator sends it: built from typed objects, serialised once."""
    return build_job_object(*args, **kwargs).body()


def build_run_config_map(*args: Any) -> dict[str, Any]:
    return runconfig.build_run_config_map(*args).body()


SNAPSHOTS = snapshots.Snapshots(
    brain="release-42-brain-0123456789",
    brain_digest="sha256:0123456789",
    suite="release-42-suite-aaaaaaaaaa",
    suite_digest="sha256:aaaaaaaaaa",
    key="release-42-key-bbbbbbbbbb",
    key_digest="sha256:bbbbbbbbbb",
)
SECURITY = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "runAsNonRoot": True,
    "capabilities": {"drop": ["ALL"]},
}
RESOURCES = {"requests": {"cpu": "6", "memory": "6Gi"}, "limits": {"cpu": "6", "memory": "6Gi"}}


def test_job_is_exactly_the_expected_object() -> None:
    job = build_job(SPEC, "release-42", "team-a", 3, SNAPSHOTS, SETTINGS)
    labels = {
        "app.kubernetes.io/name": "assay",
        "app.kubernetes.io/component": "runner",
        "app.kubernetes.io/managed-by": "assay-operator",
        "assay.dev/evaluation": "release-42",
        "assay.dev/generation": "3",
    }
    env = [
        {"name": "HOME", "value": "/tmp"},
        {"name": "TMPDIR", "value": "/tmp"},
        {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
        {"name": "ASSAY_GATEWAY_URL", "value": "http://gateway.ai:8080/v1"},
    ]
    brain = {"name": "brain", "mountPath": "/etc/assay/brain", "readOnly": True}
    inputs = [
        {"name": "suite", "mountPath": "/etc/assay/suite", "readOnly": True},
        {"name": "kb", "mountPath": "/etc/assay/kb", "readOnly": True},
    ]
    assert job == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "release-42-g3",
            "labels": labels,
            "annotations": {
                "assay.dev/spec-hash": spec_hash(SPEC),
                "assay.dev/brain-digest": "sha256:0123456789",
                "assay.dev/suite-public-digest": "sha256:aaaaaaaaaa",
                "assay.dev/suite-key-digest": "sha256:bbbbbbbbbb",
            },
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
                        "onExitCodes": {"containerName": "answer", "operator": "In", "values": [2]},
                    },
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
                    "initContainers": [
                        {
                            "name": "answer",
                            "image": "quay.io/assay/runner:0.1.0",
                            "command": [
                                "assay",
                                "answer",
                                "--config",
                                "/etc/assay/run/answer.json",
                                "--quiet",
                            ],
                            "workingDir": "/work",
                            "env": env,
                            "resources": RESOURCES,
                            "volumeMounts": [
                                brain,
                                {"name": "answer-config", "mountPath": "/etc/assay/run", "readOnly": True},
                                *inputs,
                                {"name": "answer-work", "mountPath": "/work"},
                                {"name": "answers", "mountPath": "/work/answers"},
                                {"name": "answer-tmp", "mountPath": "/tmp"},
                            ],
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "FallbackToLogsOnError",
                            "securityContext": SECURITY,
                        }
                    ],
                    "containers": [
                        {
                            "name": "runner",
                            "image": "quay.io/assay/runner:0.1.0",
                            "command": ["assay", "score", "--config", "/etc/assay/run/config.json"],
                            "workingDir": "/work",
                            "env": [
                                *env,
                                {"name": "MLFLOW_TRACKING_URI", "value": "http://mlflow.mlops:5000"},
                                {"name": "ASSAY_JOB", "value": "1"},
                            ],
                            "resources": RESOURCES,
                            "volumeMounts": [
                                brain,
                                {"name": "run-config", "mountPath": "/etc/assay/run", "readOnly": True},
                                *inputs,
                                {"name": "key", "mountPath": "/etc/assay/key", "readOnly": True},
                                {"name": "work", "mountPath": "/work"},
                                {"name": "answers", "mountPath": "/work/answers", "readOnly": True},
                                {"name": "tmp", "mountPath": "/tmp"},
                            ],
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "FallbackToLogsOnError",
                            "securityContext": SECURITY,
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
                        {
                            "name": "answer-config",
                            "configMap": {
                                "name": "release-42-run-g3",
                                "items": [{"key": "answer.json", "path": "answer.json"}],
                                "defaultMode": 0o444,
                            },
                        },
                        {"name": "answer-work", "emptyDir": {}},
                        {"name": "answer-tmp", "emptyDir": {}},
                        {"name": "answers", "emptyDir": {}},
                        {"name": "work", "emptyDir": {}},
                        {"name": "tmp", "emptyDir": {}},
                        {
                            "name": "suite",
                            "configMap": {"name": "release-42-suite-aaaaaaaaaa", "defaultMode": 0o444},
                        },
                        {
                            "name": "key",
                            "configMap": {"name": "release-42-key-bbbbbbbbbb", "defaultMode": 0o444},
                        },
                        {"name": "kb", "configMap": {"name": "support-kb", "defaultMode": 0o444}},
                    ],
                },
            },
        },
    }


def _mounts(container: dict[str, object]) -> dict[str, str]:
    return {m["name"]: m["mountPath"] for m in container["volumeMounts"]}  # type: ignore[attr-defined,index]


def test_the_keys_and_the_agents_never_share_a_container() -> None:
    spec = SPEC.model_copy(
        update={"agent": SPEC.agent.model_copy(update={"kind": "command", "command": ["x"]})}
    )
    pod = build_job(spec, "e", "ns", 1, SNAPSHOTS, SETTINGS)["spec"]["template"]["spec"]
    answer, judge = _mounts(pod["initContainers"][0]), _mounts(pod["containers"][0])
    assert "key" not in answer and judge["key"] == "/etc/assay/key"
    # Not even the judge's RunConfig (which names where the keys are mounted) reaches the answer phase.
    assert "run-config" not in answer and answer["answer-config"] == "/etc/assay/run"
    assert answer["no-examples"] == "/opt/assay/examples"  # the image's bundled suites are hidden
    assert "answer-work" not in judge and "answer-tmp" not in judge  # nothing an agent left is read
    assert {"readOnly": True, "name": "answers", "mountPath": "/work/answers"} in pod["containers"][0][
        "volumeMounts"
    ]


def test_tokens_are_secrets_mounted_only_where_needed() -> None:
    spec = EvaluationSpec.model_validate(
        {
            **SPEC.model_dump(by_alias=True, exclude_none=True),
            "gatewayTokenSecretRef": {"name": "gw"},
            "mlflow": {"tokenSecretRef": {"name": "ml", "key": "bearer"}},
        }
    )
    settings = SETTINGS.model_copy(update={"default_judge_gateway_token_secret": "judge/tk"})
    pod = build_job(spec, "e", "ns", 1, SNAPSHOTS, settings)["spec"]["template"]["spec"]
    secrets = {v["name"]: v["secret"] for v in pod["volumes"] if "secret" in v}
    assert secrets == {
        "gateway-token": {
            "secretName": "gw",
            "items": [{"key": "token", "path": "token"}],
            "defaultMode": 0o444,
        },
        "judge-token": {
            "secretName": "judge",
            "items": [{"key": "tk", "path": "token"}],
            "defaultMode": 0o444,
        },
        "mlflow-token": {
            "secretName": "ml",
            "items": [{"key": "bearer", "path": "token"}],
            "defaultMode": 0o444,
        },
    }
    sidecar, answer, judge = pod["initContainers"][0], pod["initContainers"][1], pod["containers"][0]
    # The agents' token is the gateway sidecar's alone: the answer container, where agents run, has none.
    assert (sidecar["name"], sidecar["restartPolicy"], answer["name"]) == ("gateway", "Always", "answer")
    assert set(_mounts(sidecar)) & set(secrets) == {"gateway-token"}
    assert not set(_mounts(answer)) & set(secrets)
    assert set(_mounts(judge)) & set(secrets) == {"judge-token", "mlflow-token"}
    env = {e["name"]: e["value"] for e in judge["env"]}
    assert env["ASSAY_JUDGE_GATEWAY_TOKEN_FILE"] == "/etc/assay/secrets/judge/token"
    assert env["MLFLOW_TRACKING_TOKEN_FILE"] == "/etc/assay/secrets/mlflow/token"
    assert env["ASSAY_GATEWAY_LEDGER_DIR"] == "/var/run/assay/ledger"  # the judge reconciles the ledger
    assert {e["name"]: e["value"] for e in sidecar["env"]}["ASSAY_GATEWAY_TOKEN_FILE"] == (
        "/etc/assay/secrets/gateway/token"
    )
    answer_env = {e["name"]: e["value"] for e in answer["env"]}
    assert "ASSAY_GATEWAY_TOKEN_FILE" not in answer_env
    assert answer_env["ASSAY_GATEWAY_SOCKET"] == "/var/run/assay/gateway/gateway.sock"
    # The socket is shared with the answer container; the ledger is out of its reach, read-only for the judge.
    assert _mounts(answer)["gateway-socket"] == "/var/run/assay/gateway" and "gateway-ledger" not in _mounts(
        answer
    )
    assert {"name": "gateway-ledger", "mountPath": "/var/run/assay/ledger", "readOnly": True} in judge[
        "volumeMounts"
    ]
    assert all("valueFrom" not in e for c in (sidecar, answer, judge) for e in c["env"])  # files, never env


def test_a_suite_config_map_splits_into_its_public_part_and_its_key(tmp_path: Path) -> None:
    from assay_runner.core.digests import suite_digest, tree_digest
    from assay_runner.suite.loader import load_suite

    example = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
    data = {name: (example / name).read_text() for name in ("suite.yaml", "tickets.yaml")}
    public, key = split_suite(data)
    assert set(public) == {"suite.yaml", "questions.yaml"} and set(key) == {"keys.yaml"}
    assert "mustMention" not in "".join(public.values()) and "mustMention" in key["keys.yaml"]
    for name, text in public.items():
        (tmp_path / "public").mkdir(exist_ok=True)
        (tmp_path / "public" / name).write_text(text)
    (tmp_path / "keys.yaml").write_text(key["keys.yaml"])
    joined = load_suite(tmp_path / "public", example / "kb", keys=tmp_path / "keys.yaml")
    assert suite_digest(joined) == suite_digest(load_suite(example))  # the same suite, carried in two parts
    assert tree_digest(tmp_path / "public") == snapshots.text_digest(public)  # what the runner will report
    with pytest.raises(SuiteSplitError, match="ticketsFile"):
        split_suite({"suite.yaml": data["suite.yaml"]})


def test_pod_spec_has_nothing_users_could_choose() -> None:
    job = build_job(SPEC, "e", "ns", 1, SNAPSHOTS, SETTINGS)
    pod = job["spec"]["template"]["spec"]
    assert "serviceAccountName" not in pod and pod["automountServiceAccountToken"] is False
    env_text = json.dumps([c["env"] for c in [*pod["initContainers"], *pod["containers"]]]).lower()
    assert "key" not in env_text and "secret" not in env_text and "token" not in env_text
    assert all("configMap" in v or "emptyDir" in v for v in pod["volumes"])


def test_run_config_validates_as_the_runner_reads_it(tmp_path: Path) -> None:
    config_map = build_run_config_map(SPEC, "release-42", "team-a", 3, SETTINGS)
    path = tmp_path / RUN_CONFIG_KEY
    path.write_text(config_map["data"][RUN_CONFIG_KEY])
    parsed = read_run_config(path)  # exactly what `assay run --config` does in the pod
    assert parsed == runconfig.build_run_config(SPEC, "release-42", "team-a", SETTINGS)
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
    config = runconfig.build_run_config(spec, "e", "ns", Settings(runner_image="x"))
    # Split in the pod (init container `split`) into the same places a ConfigMap suite is mounted.
    assert (
        config.suite == "/etc/assay/suite" and config.keys == "/etc/assay/key/keys.yaml" and config.kb is None
    )
    pod = build_job(spec, "e", "ns", 1, snapshots.Snapshots("b", "sha256:b"), Settings(runner_image="x"))[
        "spec"
    ]["template"]["spec"]
    split = pod["initContainers"][0]
    assert split["name"] == "split" and split["command"] == [
        "assay", "split", "/opt/assay/examples/support-desk", "--public", "/etc/assay/suite", "--keys",
        "/etc/assay/key/keys.yaml",
    ]  # fmt: skip
    assert "no-examples" not in _mounts(pod["initContainers"][1])  # replay runs no agent code: it needs them
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
    assert names.job_name(name, generation) == expected
    assert len(names.job_name(name, generation)) <= 63


def test_long_names_sharing_a_prefix_get_distinct_children_and_labels() -> None:
    first, second = "p" * 70 + "-alpha", "p" * 70 + "-beta"
    assert names.job_name(first, 1) != names.job_name(second, 1)
    assert names.run_config_name(first + "x" * 200, 1) != names.run_config_name(second + "x" * 200, 1)
    one, two = (names.labels(n)[names.LABEL_EVALUATION] for n in (first, second))
    assert one != two and len(one) <= 63 and len(two) <= 63
    assert names.labels("short")[names.LABEL_EVALUATION] == "short"


def test_kueue_queue_suspends_the_job() -> None:
    spec = SPEC.model_copy(update={"queue_name": "team-queue"})
    job = build_job(spec, "e", "ns", 1, SNAPSHOTS, SETTINGS)
    assert (
        job["spec"]["suspend"] is True
        and job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-queue"
    )


def test_brain_snapshot_is_immutable_and_digest_matches_the_runner() -> None:
    from assay_runner.contract import digest_files

    data = {"AGENTS.md": "Be kind.\n", "style.md": "Short.\n"}
    digest = snapshots.brain_digest(data)
    assert digest == digest_files({k: v.encode() for k, v in data.items()})
    snapshot = snapshots.build_brain_snapshot("e", data, None, digest).body()
    assert snapshot["immutable"] is True and snapshot["data"] == data
    assert snapshot["metadata"]["name"] == f"e-brain-{digest[7:17]}"


def test_prices_and_budget_reach_the_run_config(tmp_path: Path) -> None:
    spec = SPEC.model_copy(
        update={
            "prices": {"gpt-small": api.PriceSpec(input_per_million=0.5, output_per_million=1.5)},
            "max_cost_usd": 12.5,
        }
    )
    config_map = build_run_config_map(spec, "e", "ns", 1, SETTINGS)
    path = tmp_path / RUN_CONFIG_KEY
    path.write_text(config_map["data"][RUN_CONFIG_KEY])
    parsed = read_run_config(path)
    assert parsed.prices["gpt-small"].input_per_million == 0.5
    assert parsed.prices["gpt-small"].output_per_million == 1.5
    assert parsed.max_cost_usd == 12.5
    # Without them the runner gets none: no price table, no budget.
    plain = runconfig.build_run_config(SPEC, "e", "ns", SETTINGS)
    assert plain.prices == {} and plain.max_cost_usd is None
