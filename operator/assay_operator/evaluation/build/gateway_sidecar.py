"""The answer pod's gateway sidecar: the one container that holds the real gateway token.

The answer phase's agents share a container, a user and a /proc with the runner, so a token mounted there
(or in its environment) is the agents' to read. Instead the token's Secret is mounted into this container
only, a native sidecar (an init container with `restartPolicy: Always`, started before the answer container
and stopped after the pod's last container) running `assay gateway-sidecar`. It listens on a Unix socket in
an emptyDir shared with the answer container — not a port: on nodes where pods share a network (the local
kubelet) a port would be every pod's — forwards the runner's calls with the token, meters the pod's spend
against the shard's budget, and writes its ledger onto the generation's claim, under
`ledgers/shard-<i>/` (LEDGER_SUBPATH), a part of the claim the answer container does not mount (it mounts
`shard-<i>/` alone). The judge Job mounts the claim's root read-only and reconciles each shard's ledger
with that shard's sealed cells (`ASSAY_GATEWAY_LEDGER_DIR`).

A sidecar restarted in its pod carries on with its ledger; a retried shard's new pod finds the ledger of
the attempt before it and sets it aside (`ledger-<pod uid>.json`, beside it: its pod is named by the
downward API), so the judge reconciles the tree with the ledger of the pod that wrote it.

Pure: `build_gateway_sidecar` returns what to add to the pod (the container, volumes, the answer
container's mounts and environment) and the judge's environment; the Job builders place them.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay_operator import objects as k8s
from assay_operator.evaluation.api import SecretKeyRef
from assay_operator.evaluation.build import pods
from assay_operator.evaluation.build.layout import ANSWERS_DIR, SHARD_SUBPATH, TERMINATION_LOG
from assay_operator.settings import Settings
from assay_runner.contract import (
    GATEWAY_LEDGER_ENV,
    GATEWAY_SOCKET_ENV,
    POD_UID_ENV,
    SHARD_DIR,
    read_as_whole_tree,
)

SIDECAR_CONTAINER = "gateway"
SOCKET_DIR = "/var/run/assay/gateway"
SOCKET_PATH = f"{SOCKET_DIR}/gateway.sock"
LEDGER_DIR = "/var/run/assay/ledger"
TOKEN_DIR = "/etc/assay/secrets/gateway"
TOKEN_VOLUME = "gateway-token"
SOCKET_VOLUME = "gateway-socket"
LEDGERS = "ledgers"
LEDGER_SUBPATH = f"{LEDGERS}/{SHARD_SUBPATH}"
"""Where on the claim shard i's sidecar keeps its ledger: beside the shards, in none of them."""
JUDGE_LEDGER_DIR = f"{ANSWERS_DIR}/{LEDGERS}"
"""The judge pod mounts the claim's root at ANSWERS_DIR: shard i's ledger is `shard-<i>/ledger.json` here."""
RESOURCES = {"cpu": "500m", "memory": "256Mi"}
"""A relay that parses usage: a fraction of a core; requests equal limits, as the other containers'."""


@dataclass(frozen=True)
class GatewaySidecar:
    container: k8s.Container
    """Placed among the init containers, before the answer container."""
    volumes: list[k8s.Volume]
    answer_mounts: list[k8s.VolumeMount]
    answer_env: list[k8s.EnvVar]


def judge_env(parallelism: int) -> list[k8s.EnvVar]:
    """Where the judge finds each shard's ledger (the claim's root is its ANSWERS_DIR, read-only). One answer
    pod's tree is read as a whole run's (`contract.seam.read_as_whole_tree`, as runconfig.judge_config reads
    it), so its ledger is read as a whole pod's: `ledger.json` in shard 0's folder. A judge Job never
    follows a run whose one shard failed (judging.py ends that run), so no shard is failed here."""
    whole = read_as_whole_tree(parallelism)
    folder = f"{JUDGE_LEDGER_DIR}/{SHARD_DIR.format(index=0)}" if whole else JUDGE_LEDGER_DIR
    return [k8s.EnvVar(name=GATEWAY_LEDGER_ENV, value=folder)]


def build_gateway_sidecar(
    token: SecretKeyRef, gateway: str | None, settings: Settings, claim_volume: str
) -> GatewaySidecar:
    """The sidecar holding `token` (the gateway's Secret, mounted here alone) for the gateway at `gateway`;
    its ledger goes onto the pod's volume `claim_volume` (the generation's claim)."""
    secret = k8s.SecretVolumeSource(
        secret_name=token.name, items=[k8s.KeyToPath(key=token.key, path="token")], default_mode=0o444
    )
    volumes = [
        k8s.Volume(name=TOKEN_VOLUME, secret=secret),
        k8s.Volume(name=SOCKET_VOLUME, empty_dir=k8s.EmptyDirVolumeSource(size_limit="1Mi")),
    ]
    env = [
        k8s.EnvVar(name="ASSAY_GATEWAY_TOKEN_FILE", value=f"{TOKEN_DIR}/token"),
        k8s.EnvVar(name="PYTHONDONTWRITEBYTECODE", value="1"),
        k8s.EnvVar(
            name=POD_UID_ENV,
            value_from=k8s.EnvVarSource(field_ref=k8s.ObjectFieldSelector(field_path="metadata.uid")),
        ),
    ]
    if gateway:
        env.append(k8s.EnvVar(name="ASSAY_GATEWAY_URL", value=gateway))
    container = k8s.Container(
        name=SIDECAR_CONTAINER,
        image=settings.runner_image,
        command=[
            *settings.runner_command,
            "gateway-sidecar",
            "--socket",
            SOCKET_PATH,
            "--ledger-dir",
            LEDGER_DIR,
        ],
        working_dir=LEDGER_DIR,
        env=env,
        resources=k8s.ResourceRequirements(requests=dict(RESOURCES), limits=dict(RESOURCES)),
        volume_mounts=[
            k8s.VolumeMount(name=TOKEN_VOLUME, mount_path=TOKEN_DIR, read_only=True),
            k8s.VolumeMount(name=SOCKET_VOLUME, mount_path=SOCKET_DIR),
            k8s.VolumeMount(name=claim_volume, mount_path=LEDGER_DIR, sub_path_expr=LEDGER_SUBPATH),
        ],
        termination_message_path=TERMINATION_LOG,
        termination_message_policy="FallbackToLogsOnError",
        security_context=pods.restricted(),
        restart_policy="Always",
    )
    return GatewaySidecar(
        container=container,
        volumes=volumes,
        # Read-only for the answer container: connecting to a socket needs no write to its file system, but
        # renaming it aside, or binding another in its place, does (EROFS): no cell can replace it.
        answer_mounts=[k8s.VolumeMount(name=SOCKET_VOLUME, mount_path=SOCKET_DIR, read_only=True)],
        answer_env=[k8s.EnvVar(name=GATEWAY_SOCKET_ENV, value=SOCKET_PATH)],
    )
