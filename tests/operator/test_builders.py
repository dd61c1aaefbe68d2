"""The run's two Jobs, its claim and its NetworkPolicy, the RunConfigs and the brain snapshot, compared with
exact expected objects."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from assay_operator.evaluation import api
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build import names, runconfig, snapshots
from assay_operator.evaluation.build.answer_job import build_answer_job
from assay_operator.evaluation.build.claim import build_answers_claim
from assay_operator.evaluation.build.egress import build_answer_policy
from assay_operator.evaluation.build.judge_job import build_judge_job
from assay_operator.evaluation.build.layout import ANSWER_CONFIG_KEY, RUN_CONFIG_KEY
from assay_operator.evaluation.build.pods import spec_hash
from assay_operator.evaluation.build.suite_split import SuiteSplitError, split_suite
from assay_operator.settings import NetworkPeers, Settings
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
        "parallelism": 4,
    }
)


def answer_job(spec: EvaluationSpec = SPEC, settings: Settings = SETTINGS, **kwargs: Any) -> dict[str, Any]:
    """The answer Job as the operator sends it: built from typed objects, serialised once."""
    return build_answer_job(
        spec, "release-42", 3, kwargs.pop("snapshots", SNAPSHOTS), settings, **kwargs
    ).body()


def judge_job(spec: EvaluationSpec = SPEC, settings: Settings = SETTINGS, **kwargs: Any) -> dict[str, Any]:
    built = build_judge_job(
        spec, "release-42", 3, kwargs.pop("snapshots", SNAPSHOTS), settings, 360, **kwargs
    )
    return built.body()


def answer_pod(spec: EvaluationSpec = SPEC, settings: Settings = SETTINGS, **kwargs: Any) -> dict[str, Any]:
    pod: dict[str, Any] = answer_job(spec, settings, **kwargs)["spec"]["template"]["spec"]
    return pod


def judge_pod(spec: EvaluationSpec = SPEC, settings: Settings = SETTINGS, **kwargs: Any) -> dict[str, Any]:
    pod: dict[str, Any] = judge_job(spec, settings, **kwargs)["spec"]["template"]["spec"]
    return pod


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
ENV = [
    {"name": "HOME", "value": "/tmp"},
    {"name": "TMPDIR", "value": "/tmp"},
    {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
    {"name": "ASSAY_GATEWAY_URL", "value": "http://gateway.ai:8080/v1"},
]
INPUT_MOUNTS = [
    {"name": "brain", "mountPath": "/etc/assay/brain", "readOnly": True},
    {"name": "suite", "mountPath": "/etc/assay/suite", "readOnly": True},
    {"name": "kb", "mountPath": "/etc/assay/kb", "readOnly": True},
]
POD = {
    "restartPolicy": "Never",
    "automountServiceAccountToken": False,
    "enableServiceLinks": False,
    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    "initContainers": [],
}
ANNOTATIONS = {
    "assay.dev/spec-hash": spec_hash(SPEC),
    "assay.dev/brain-digest": "sha256:0123456789",
    "assay.dev/suite-public-digest": "sha256:aaaaaaaaaa",
    "assay.dev/suite-key-digest": "sha256:bbbbbbbbbb",
}


def labels(component: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "assay",
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/managed-by": "assay-operator",
        "assay.dev/evaluation": "release-42",
        "assay.dev/generation": "3",
    }


def config_map(name: str, cm: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "configMap": {"name": cm, **extra, "defaultMode": 0o444}}


def failure_policy(*containers: str) -> dict[str, Any]:
    return {
        "rules": [
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
            *(
                {"action": "FailJob", "onExitCodes": {"containerName": c, "operator": "In", "values": [2]}}
                for c in containers
            ),
        ]
    }


EVIDENCE_READ_ONLY = {
    "name": "answers",
    "mountPath": "/etc/assay/evidence",
    "readOnly": True,
    "subPath": ".evidence",
}


def test_the_answer_job_is_exactly_the_expected_object() -> None:
    container = {
        "name": "answer",
        "image": "quay.io/assay/runner:0.1.0",
        "command": ["assay", "answer", "--config", "/etc/assay/run/answer.json", "--quiet"],
        "workingDir": "/work",
        "env": ENV,
        "resources": RESOURCES,
        "volumeMounts": [
            *INPUT_MOUNTS,
            {"name": "answer-config", "mountPath": "/etc/assay/run", "readOnly": True},
            {"name": "work", "mountPath": "/work"},
            {"name": "answers", "mountPath": "/work/answers", "subPathExpr": "shard-$(JOB_COMPLETION_INDEX)"},
            EVIDENCE_READ_ONLY,
            {"name": "tmp", "mountPath": "/tmp"},
        ],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "securityContext": SECURITY,
    }
    # The run's evidence key, made on the claim before any agent runs; the answer container only reads it.
    evidence = {
        **container,
        "name": "evidence",
        "command": ["assay", "evidence-key", "/etc/assay/evidence/key"],
        "env": ENV[:3],  # no gateway: it calls none
        "volumeMounts": [{"name": "answers", "mountPath": "/etc/assay/evidence", "subPath": ".evidence"}],
    }
    assert answer_job() == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "release-42-g3-answer",
            "labels": labels("answer"),
            "annotations": {**ANNOTATIONS, "assay.dev/judge-job": "release-42-g3"},
        },
        "spec": {
            "completionMode": "Indexed",
            "completions": 4,
            "parallelism": 4,
            "backoffLimitPerIndex": 1,
            "activeDeadlineSeconds": 1800,
            "ttlSecondsAfterFinished": 3600,
            "podFailurePolicy": failure_policy("evidence", "answer"),
            "template": {
                "metadata": {"labels": labels("answer")},
                "spec": {
                    **POD,
                    "initContainers": [evidence],
                    "containers": [container],
                    "volumes": [
                        config_map("brain", "release-42-brain-0123456789"),
                        config_map("suite", "release-42-suite-aaaaaaaaaa"),
                        config_map("kb", "support-kb"),
                        config_map(
                            "answer-config",
                            "release-42-run-g3",
                            items=[{"key": "answer.json", "path": "answer.json"}],
                        ),
                        {"name": "answers", "persistentVolumeClaim": {"claimName": "release-42-g3-answers"}},
                        {"name": "work", "emptyDir": {}},
                        {"name": "tmp", "emptyDir": {}},
                    ],
                    # Shards spread over nodes where the scheduler can (a lost node takes few with it).
                    "topologySpreadConstraints": [
                        {
                            "maxSkew": 1,
                            "topologyKey": "kubernetes.io/hostname",
                            "whenUnsatisfiable": "ScheduleAnyway",
                            "labelSelector": {"matchLabels": labels("answer")},
                        }
                    ],
                },
            },
        },
    }


def test_the_judge_job_is_exactly_the_expected_object() -> None:
    container = {
        "name": "judge",
        "image": "quay.io/assay/runner:0.1.0",
        "command": ["assay", "score", "--config", "/etc/assay/run/config.json"],
        "workingDir": "/work",
        "env": [
            *ENV,
            {"name": "MLFLOW_TRACKING_URI", "value": "http://mlflow.mlops:5000"},
            {"name": "ASSAY_JOB", "value": "1"},
        ],
        "resources": RESOURCES,
        "volumeMounts": [
            *INPUT_MOUNTS,
            {"name": "key", "mountPath": "/etc/assay/key", "readOnly": True},
            {"name": "run-config", "mountPath": "/etc/assay/run", "readOnly": True},
            {"name": "work", "mountPath": "/work"},
            {"name": "answers", "mountPath": "/work/answers", "readOnly": True},
            {"name": "answers", "mountPath": "/work/out", "subPath": "result"},
            EVIDENCE_READ_ONLY,
            {"name": "tmp", "mountPath": "/tmp"},
        ],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "securityContext": SECURITY,
    }
    assert judge_job() == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "release-42-g3", "labels": labels("judge"), "annotations": ANNOTATIONS},
        "spec": {
            "backoffLimit": 1,
            "activeDeadlineSeconds": 360,
            "ttlSecondsAfterFinished": 3600,
            "podFailurePolicy": failure_policy("judge"),
            "template": {
                "metadata": {"labels": labels("judge")},
                "spec": {
                    **POD,
                    "containers": [container],
                    "volumes": [
                        config_map("brain", "release-42-brain-0123456789"),
                        config_map("suite", "release-42-suite-aaaaaaaaaa"),
                        config_map("key", "release-42-key-bbbbbbbbbb"),
                        config_map("kb", "support-kb"),
                        config_map("run-config", "release-42-g3-judge"),
                        {"name": "answers", "persistentVolumeClaim": {"claimName": "release-42-g3-answers"}},
                        {"name": "work", "emptyDir": {}},
                        {"name": "tmp", "emptyDir": {}},
                    ],
                },
            },
        },
    }


def test_the_claim_and_the_egress_policy_are_exactly_the_expected_objects() -> None:
    claim = build_answers_claim(SPEC, "release-42", 3, SETTINGS).body()
    assert claim == {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "release-42-g3-answers", "labels": labels("answers")},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    chosen = SPEC.model_copy(
        update={
            "storage": api.StorageSpec(storage_class_name="nfs", size="20Gi", access_mode="ReadWriteMany")
        }
    )
    assert build_answers_claim(chosen, "release-42", 3, SETTINGS).body()["spec"] == {
        "accessModes": ["ReadWriteMany"],
        "resources": {"requests": {"storage": "20Gi"}},
        "storageClassName": "nfs",
    }
    dns = {"ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}
    policy = build_answer_policy(SPEC, "release-42", SETTINGS).body()
    assert policy == {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {
            "name": "release-42-answer-egress",
            "labels": {k: v for k, v in labels("answer-egress").items() if k != "assay.dev/generation"},
        },
        "spec": {
            # This Evaluation's answer pods, and nothing else: not its judge pod, not another's answer pods.
            "podSelector": {
                "matchLabels": {
                    "assay.dev/evaluation": "release-42",
                    "app.kubernetes.io/component": "answer",
                    "app.kubernetes.io/managed-by": "assay-operator",
                }
            },
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [],
            "egress": [dns],  # a host name, no selector configured: DNS only (fail closed)
        },
    }
    selector = policy["spec"]["podSelector"]["matchLabels"]
    assert selector.items() <= answer_job()["spec"]["template"]["metadata"]["labels"].items()
    assert not selector.items() <= judge_job()["spec"]["template"]["metadata"]["labels"].items()
    # The gateway by the operator's selectors and by its URL's own address; OpenShift's DNS port too.
    settings = SETTINGS.model_copy(
        update={
            "gateway_network": NetworkPeers(
                namespace_selector={"team": "ai"},
                pod_selector={"app": "gw"},
                cidrs=("10.9.0.0/16",),
                ports=(8443,),
            ),
            "dns_ports": (53, 5353),
        }
    )
    by_ip = SPEC.model_copy(update={"gateway": "http://10.1.2.3:9000/v1"})
    egress = build_answer_policy(by_ip, "release-42", settings).body()["spec"]["egress"]
    assert egress == [
        {
            "ports": [
                {"protocol": "UDP", "port": 53},
                {"protocol": "TCP", "port": 53},
                {"protocol": "UDP", "port": 5353},
                {"protocol": "TCP", "port": 5353},
            ]
        },
        {
            "to": [
                {
                    "namespaceSelector": {"matchLabels": {"team": "ai"}},
                    "podSelector": {"matchLabels": {"app": "gw"}},
                },
                {"ipBlock": {"cidr": "10.9.0.0/16"}},
            ],
            "ports": [{"protocol": "TCP", "port": 8443}],
        },
        {"to": [{"ipBlock": {"cidr": "10.1.2.3/32"}}], "ports": [{"protocol": "TCP", "port": 9000}]},
    ]


def _mounts(container: dict[str, object]) -> dict[str, str]:
    return {m["name"]: m["mountPath"] for m in container["volumeMounts"]}  # type: ignore[attr-defined,index]


def test_the_keys_mlflow_and_the_agents_never_share_a_pod() -> None:
    spec = SPEC.model_copy(
        update={"agent": SPEC.agent.model_copy(update={"kind": "command", "command": ["x"]})}
    )
    answer, judge = answer_pod(spec), judge_pod(spec)
    # The key's ConfigMap is not even a volume of the answer pod; nor is the judge's RunConfig.
    assert {v["name"] for v in answer["volumes"]}.isdisjoint({"key", "run-config"})
    assert _mounts(judge["containers"][0])["key"] == "/etc/assay/key"
    assert _mounts(answer["containers"][0])["answer-config"] == "/etc/assay/run"
    assert _mounts(answer["containers"][0])["no-examples"] == "/opt/assay/examples"  # bundled suites hidden
    assert "MLFLOW_TRACKING_URI" not in json.dumps(answer) and "MLFLOW_TRACKING_URI" in json.dumps(judge)
    assert answer["automountServiceAccountToken"] is False and "serviceAccountName" not in answer
    # The judge reads every shard read-only; nothing an agent left in its scratch space reaches it.
    assert {"name": "answers", "mountPath": "/work/answers", "readOnly": True} in judge["containers"][0][
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
    answer, judge = answer_pod(spec, settings), judge_pod(spec, settings)
    secrets = {v["name"]: v["secret"] for p in (answer, judge) for v in p["volumes"] if "secret" in v}
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
    assert {v["name"] for v in answer["volumes"] if "secret" in v} == {"gateway-token"}
    sidecar, agents, judging = answer["initContainers"][-1], answer["containers"][0], judge["containers"][0]
    # The agents' token is the gateway sidecar's alone: the answer container, where agents run, has none.
    assert (sidecar["name"], sidecar["restartPolicy"], agents["name"]) == ("gateway", "Always", "answer")
    assert set(_mounts(sidecar)) & set(secrets) == {"gateway-token"}
    assert not set(_mounts(agents)) & set(secrets)
    assert set(_mounts(judging)) & set(secrets) == {"judge-token", "mlflow-token"}
    env = {e["name"]: e.get("value") for e in judging["env"]}
    assert env["ASSAY_JUDGE_GATEWAY_TOKEN_FILE"] == "/etc/assay/secrets/judge/token"
    assert env["MLFLOW_TRACKING_TOKEN_FILE"] == "/etc/assay/secrets/mlflow/token"
    # The judge reconciles each shard's ledger, on the claim it mounts read-only beside the shards.
    assert env["ASSAY_GATEWAY_LEDGER_DIR"] == "/work/answers/ledgers"
    sidecar_env = {e["name"]: e for e in sidecar["env"]}
    assert sidecar_env["ASSAY_GATEWAY_TOKEN_FILE"]["value"] == "/etc/assay/secrets/gateway/token"
    assert sidecar_env["ASSAY_POD_UID"] == {
        "name": "ASSAY_POD_UID",
        "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}},
    }
    answer_env = {e["name"]: e["value"] for e in agents["env"]}
    assert "ASSAY_GATEWAY_TOKEN_FILE" not in answer_env
    assert answer_env["ASSAY_GATEWAY_SOCKET"] == "/var/run/assay/gateway/gateway.sock"
    # The socket is shared with the answer container; the ledger is on the claim, in a part of it the
    # answer container does not mount (it mounts its shard alone).
    assert _mounts(agents)["gateway-socket"] == "/var/run/assay/gateway"
    ledger = next(m for m in sidecar["volumeMounts"] if m["mountPath"] == "/var/run/assay/ledger")
    assert ledger == {
        "name": "answers",
        "mountPath": "/var/run/assay/ledger",
        "subPathExpr": "ledgers/shard-$(JOB_COMPLETION_INDEX)",
    }
    shard = next(m for m in agents["volumeMounts"] if m["name"] == "answers")
    assert shard["subPathExpr"] == "shard-$(JOB_COMPLETION_INDEX)"
    # Only the token's file is taken from a Secret; the one value from the pod is the sidecar's pod uid.
    assert [e["name"] for c in (sidecar, agents, judging) for e in c["env"] if "valueFrom" in e] == [
        "ASSAY_POD_UID"
    ]
    # A sidecar's exit ends no pod, so no failure rule names it.
    rules = answer_job(spec, settings)["spec"]["podFailurePolicy"]["rules"]
    named = {r["onExitCodes"]["containerName"] for r in rules if "onExitCodes" in r}
    assert "gateway" not in named and "answer" in named


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


@pytest.mark.parametrize("pod", [answer_pod, judge_pod])
def test_pod_spec_has_nothing_users_could_choose(pod: Any) -> None:
    built = pod()
    assert "serviceAccountName" not in built and built["automountServiceAccountToken"] is False
    env_text = json.dumps([c["env"] for c in [*built["initContainers"], *built["containers"]]]).lower()
    assert "key" not in env_text and "secret" not in env_text and "token" not in env_text
    claims = [
        v["persistentVolumeClaim"]["claimName"] for v in built["volumes"] if "persistentVolumeClaim" in v
    ]
    assert claims == ["release-42-g3-answers"]  # the operator's own claim, nothing a user named
    assert all({"configMap", "emptyDir", "persistentVolumeClaim"} & set(v) for v in built["volumes"])


def test_run_configs_validate_as_the_runner_reads_them(tmp_path: Path) -> None:
    config_map = runconfig.build_judge_config_map(
        SPEC, "release-42", "team-a", 3, SETTINGS, {2: "its pod failed 2 times"}
    ).body()
    assert config_map["metadata"]["name"] == "release-42-g3-judge" and config_map["immutable"] is True
    path = tmp_path / RUN_CONFIG_KEY
    path.write_text(config_map["data"][RUN_CONFIG_KEY])
    parsed = read_run_config(path)  # exactly what `assay score --config` does in the pod
    assert parsed == runconfig.judge_config(
        SPEC, "release-42", "team-a", SETTINGS, {2: "its pod failed 2 times"}
    )
    assert parsed.shard is not None and parsed.shard.index is None and parsed.shard.count == 4
    assert parsed.shard.failed == {"2": "its pod failed 2 times"} and parsed.answers_dir == "/work/answers"
    assert parsed.output.dir == "/work/out" and parsed.keys == "/etc/assay/key/keys.yaml"
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
    # The answer phase's: no keys, no MLflow, its shard from the pod, resuming an earlier attempt.
    answers = build_run_config_map(SPEC, "release-42", "team-a", 3, SETTINGS)
    assert set(answers["data"]) == {ANSWER_CONFIG_KEY}
    path.write_text(answers["data"][ANSWER_CONFIG_KEY])
    answer = read_run_config(path)
    assert answer.keys is None and not answer.mlflow.enabled and answer.resume
    assert answer.shard is not None and answer.shard.count == 4 and answer.shard.index is None
    assert answer.answers_dir == "/work/answers" and answer.output.summary_path == "/dev/termination-log"
    # One shard: one tree, read where its pod wrote it.
    one = SPEC.model_copy(update={"parallelism": 1})
    assert runconfig.answer_config(one, "e", "ns", SETTINGS).shard is None
    whole = runconfig.judge_config(one, "e", "ns", SETTINGS, {})
    assert whole.shard is None and whole.answers_dir == "/work/answers/shard-0"


@pytest.mark.parametrize(
    ("deadline", "elapsed", "expected"),
    [(1800, 100, 1700), (1800, 1500, 360), (1800, 2000, 360), (60, 10, 50), (60, 59.5, 30)],
)
def test_the_judge_gets_what_is_left_of_the_deadline_and_never_less_than_its_reserve(
    deadline: int, elapsed: float, expected: int
) -> None:
    assert runconfig.judge_deadline(deadline, elapsed) == expected


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
    bundled = snapshots.Snapshots("b", "sha256:b")
    settings = Settings(runner_image="x")
    # The answer pod's split writes the key nowhere (no --keys, no volume for it); the judge pod's keeps it.
    for pod, parts in (
        (answer_pod(spec, settings, snapshots=bundled), ["--customer", "/etc/assay/customer/customers.yaml"]),
        (judge_pod(spec, settings, snapshots=bundled), ["--keys", "/etc/assay/key/keys.yaml"]),
    ):
        split = pod["initContainers"][0]
        assert split["name"] == "split" and split["command"] == [
            "assay", "split", "/opt/assay/examples/support-desk", "--public", "/etc/assay/suite", *parts,
        ]  # fmt: skip
    answer = answer_pod(spec, settings, snapshots=bundled)
    assert "key" not in {v["name"] for v in answer["volumes"]}
    assert "key" in {v["name"] for v in judge_pod(spec, settings, snapshots=bundled)["volumes"]}
    assert "no-examples" not in _mounts(answer["containers"][0])  # replay runs no agent code: it needs them
    assert "key" not in _mounts(answer["containers"][0])  # split into the pod, never mounted where agents run
    assert config.agent.answers == "/opt/assay/examples/support-desk/answers/v1"
    assert (
        config.cassettes is not None and config.cassettes.dir == "/opt/assay/examples/support-desk/cassettes"
    )
    assert config.repetitions == 2 and not config.mlflow.enabled  # no tracking URI anywhere: no MLflow


CONVERSATIONS = Path(__file__).resolve().parents[2] / "examples" / "support-desk-conversations"


def test_a_conversational_config_map_suite_gives_the_answer_container_alone_its_customers() -> None:
    """The customers part (each conversational ticket's `conversation`, nothing else of its key) is a snapshot
    of its own, a volume of the answer pod mounted into `answer` only (not its sidecar or init containers),
    and no volume of the judge pod, whose key holds the same; the answer RunConfig names it."""
    from assay_operator.evaluation.build.suite_split import suite_parts

    public, key, customers = suite_parts({"suite.yaml": (CONVERSATIONS / "suite.yaml").read_text()})
    assert customers is not None and set(customers) == {"customers.yaml"}
    assert "mustMention" not in customers["customers.yaml"] and "persona" in customers["customers.yaml"]
    assert "persona" not in "".join(public.values()) and "persona" in key["keys.yaml"]
    digest = snapshots.text_digest(customers)
    made = snapshots.build_suite_snapshot("release-42", "customer", customers, digest).body()
    assert made["immutable"] is True and made["metadata"]["annotations"] == {
        names.ANNOTATION_CUSTOMER: digest
    }
    talking = snapshots.Snapshots(
        **{**SNAPSHOTS.__dict__, "customer": made["metadata"]["name"], "customer_digest": digest}
    )
    spec = SPEC.model_copy(
        update={"agent": SPEC.agent.model_copy(update={"kind": "command", "command": ["x"]})}
    )
    job = answer_job(spec, snapshots=talking)
    assert job["metadata"]["annotations"][names.ANNOTATION_CUSTOMER] == digest
    # The judge Job is made from the answer Job's annotations: it knows the part, and does not mount it.
    assert snapshots.Snapshots.from_annotations("release-42", job["metadata"]["annotations"]) == talking
    answer = job["spec"]["template"]["spec"]
    volume = next(v for v in answer["volumes"] if v["name"] == "customer")
    assert volume["configMap"]["name"] == made["metadata"]["name"]
    answer_container = answer["containers"][0]
    assert {"name": "customer", "mountPath": "/etc/assay/customer", "readOnly": True} in answer_container[
        "volumeMounts"
    ]
    others = [*answer.get("initContainers", []), *answer["containers"][1:]]
    assert others and all("customer" not in _mounts(c) for c in others)
    judge = judge_pod(spec, snapshots=talking)
    assert "customer" not in {v["name"] for v in judge["volumes"]}
    assert all("customer" not in _mounts(c) for c in [*judge.get("initContainers", []), *judge["containers"]])
    config = runconfig.answer_config(spec, "release-42", "ns", SETTINGS)
    assert config.customers == "/etc/assay/customer/customers.yaml" and config.keys is None
    assert runconfig.build_run_config(spec, "release-42", "ns", SETTINGS).customers is None  # the judge's
    # A suite with no conversation: no customers part, no volume (the RunConfig's path is then no file).
    plain = CONVERSATIONS.parent / "support-desk"
    assert (
        suite_parts({name: (plain / name).read_text() for name in ("suite.yaml", "tickets.yaml")})[2] is None
    )
    assert "customer" not in {v["name"] for v in answer_pod(spec)["volumes"]}


def test_a_bundled_conversational_suite_is_split_with_its_customers_into_the_answer_container_only() -> None:
    spec = EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "b"}},
            "suite": {"bundled": "support-desk-conversations"},
            "agent": {"kind": "command", "command": ["x"], "continueCommand": ["x"]},
        }
    )
    bundled, settings = snapshots.Snapshots("b", "sha256:b"), Settings(runner_image="x")
    answer = answer_pod(spec, settings, snapshots=bundled)
    assert {"name": "customer", "emptyDir": {}} in answer["volumes"]
    split = answer["initContainers"][0]
    assert split["name"] == "split" and _mounts(split)["customer"] == "/etc/assay/customer"
    assert not any(m.get("readOnly") for m in split["volumeMounts"] if m["name"] == "customer")
    assert _mounts(answer["containers"][0])["customer"] == "/etc/assay/customer"
    assert all("customer" not in _mounts(c) for c in answer["initContainers"][1:])
    judge = judge_pod(spec, settings, snapshots=bundled)
    assert "customer" not in {v["name"] for v in judge["volumes"]}
    assert "--customer" not in judge["initContainers"][0]["command"]


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


@pytest.mark.parametrize("name", ["short", "a" * 63, "long-" + "x" * 250])
def test_an_answer_job_name_leaves_room_for_its_pods_index(name: str) -> None:
    """Each pod of an Indexed Job has the hostname <job>-<index>, a DNS label of at most 63 characters."""
    for rerun in (None, "again"):
        answer = names.answer_job_name(name, 123, rerun)
        assert len(f"{answer}-{api.MAX_PARALLELISM - 1}") <= 63
        assert answer != names.job_name(name, 123, rerun)
    assert names.answer_job_name("short", 1) == "short-g1-answer"


def test_long_names_sharing_a_prefix_get_distinct_children_and_labels() -> None:
    first, second = "p" * 70 + "-alpha", "p" * 70 + "-beta"
    assert names.job_name(first, 1) != names.job_name(second, 1)
    assert names.run_config_name(first + "x" * 200, 1) != names.run_config_name(second + "x" * 200, 1)
    one, two = (names.labels(n)[names.LABEL_EVALUATION] for n in (first, second))
    assert one != two and len(one) <= 63 and len(two) <= 63
    assert names.labels("short")[names.LABEL_EVALUATION] == "short"


def test_kueue_queue_suspends_both_jobs_of_a_run() -> None:
    spec = SPEC.model_copy(update={"queue_name": "team-queue"})
    for job in (answer_job(spec), judge_job(spec)):  # the judge pod's requests wait for quota too
        assert job["spec"]["suspend"] is True
        assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-queue"
        # Kueue reads the pods' requests from the template: the label is on the Job, not the pods.
        assert "kueue.x-k8s.io/queue-name" not in job["spec"]["template"]["metadata"]["labels"]


def test_without_a_queue_neither_job_is_suspended() -> None:
    for job in (answer_job(SPEC), judge_job(SPEC)):
        assert "suspend" not in job["spec"]
        assert "kueue.x-k8s.io/queue-name" not in job["metadata"]["labels"]


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
    config_map = runconfig.build_judge_config_map(spec, "e", "ns", 1, SETTINGS, {}).body()
    path = tmp_path / RUN_CONFIG_KEY
    path.write_text(config_map["data"][RUN_CONFIG_KEY])
    parsed = read_run_config(path)
    assert parsed.prices["gpt-small"].input_per_million == 0.5
    assert parsed.prices["gpt-small"].output_per_million == 1.5
    assert parsed.max_cost_usd == 12.5
    # Without them the runner gets none: no price table, no budget.
    plain = runconfig.build_run_config(SPEC, "e", "ns", SETTINGS)
    assert plain.prices == {} and plain.max_cost_usd is None


def test_a_command_agents_continue_template_reaches_the_answer_pods_run_config() -> None:
    agent = {"kind": "command", "command": ["python", "agent.py", "{prompt_file}"]}
    agent["continueCommand"] = ["python", "agent.py", "--resume", "{session}", "{message}"]
    spec = EvaluationSpec.model_validate(
        {**SPEC.model_dump(by_alias=True, exclude_none=True), "agent": {**agent, "model": "gpt-small"}}
    )
    answer = runconfig.answer_config(spec, "e", "ns", SETTINGS)
    assert answer.agent.continue_command == ["python", "agent.py", "--resume", "{session}", "{message}"]
    assert runconfig.answer_config(SPEC, "e", "ns", SETTINGS).agent.continue_command is None
