"""The gateway sidecar's builder, as data: what it adds to the answer pod, exactly."""

from __future__ import annotations

from assay_operator.evaluation.api import SecretKeyRef
from assay_operator.evaluation.build.gateway_sidecar import build_gateway_sidecar, judge_env
from assay_operator.settings import Settings

SETTINGS = Settings(runner_image="quay.io/assay/runner:1", runner_command=("assay",))


def test_the_sidecar_holds_the_token_and_shares_only_its_socket_with_the_answer_container() -> None:
    built = build_gateway_sidecar(
        SecretKeyRef(name="gw", key="api"), "http://gateway:4000/v1", SETTINGS, claim_volume="answers"
    )
    assert built.container.body() == {
        "name": "gateway",
        "image": "quay.io/assay/runner:1",
        "command": [
            "assay",
            "gateway-sidecar",
            "--socket",
            "/var/run/assay/gateway/gateway.sock",
            "--ledger-dir",
            "/var/run/assay/ledger",
        ],
        "workingDir": "/var/run/assay/ledger",
        "env": [
            {"name": "ASSAY_GATEWAY_TOKEN_FILE", "value": "/etc/assay/secrets/gateway/token"},
            {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
            {"name": "ASSAY_POD_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}},
            {"name": "ASSAY_GATEWAY_URL", "value": "http://gateway:4000/v1"},
        ],
        "resources": {
            "requests": {"cpu": "500m", "memory": "256Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi"},
        },
        "volumeMounts": [
            {"name": "gateway-token", "mountPath": "/etc/assay/secrets/gateway", "readOnly": True},
            {"name": "gateway-socket", "mountPath": "/var/run/assay/gateway"},
            # Its shard's ledger on the claim, beside the shards: no answer container mounts it.
            {
                "name": "answers",
                "mountPath": "/var/run/assay/ledger",
                "subPathExpr": "ledgers/shard-$(JOB_COMPLETION_INDEX)",
            },
        ],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "restartPolicy": "Always",
    }
    assert [v.body() for v in built.volumes] == [
        {
            "name": "gateway-token",
            "secret": {"secretName": "gw", "items": [{"key": "api", "path": "token"}], "defaultMode": 0o444},
        },
        {"name": "gateway-socket", "emptyDir": {"sizeLimit": "1Mi"}},
    ]
    assert [m.body() for m in built.answer_mounts] == [
        {"name": "gateway-socket", "mountPath": "/var/run/assay/gateway", "readOnly": True}
    ]
    assert [e.body() for e in built.answer_env] == [
        {"name": "ASSAY_GATEWAY_SOCKET", "value": "/var/run/assay/gateway/gateway.sock"}
    ]
    # The judge mounts the claim's root read-only at /work/answers: shard i's ledger is under ledgers/.
    assert [e.body() for e in judge_env(4)] == [
        {"name": "ASSAY_GATEWAY_LEDGER_DIR", "value": "/work/answers/ledgers"}
    ]
    # One answer pod's tree is read as a whole run's (answersDir shard-0/), and so is its ledger.
    assert [e.body() for e in judge_env(1)] == [
        {"name": "ASSAY_GATEWAY_LEDGER_DIR", "value": "/work/answers/ledgers/shard-0"}
    ]


def test_without_a_gateway_the_sidecar_still_holds_the_token_and_forwards_nothing() -> None:
    built = build_gateway_sidecar(SecretKeyRef(name="gw", key="token"), None, SETTINGS, "answers")
    assert "ASSAY_GATEWAY_URL" not in {e.name for e in built.container.env}
