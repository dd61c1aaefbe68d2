"""Pure builders of the children of an Evaluation: names, the brain snapshot, the RunConfig and the Job.

No I/O here: handlers gather the inputs, call these, adopt the results and create them idempotently. Tests
compare the output with exact expected objects.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.settings import Settings
from assay_runner.contract import (
    AgentConfig,
    CassetteConfig,
    GateOverrides,
    MlflowConfig,
    OutputConfig,
    RunConfig,
    Selection,
    digest_files,
)

LABEL_EVALUATION = "assay.dev/evaluation"
LABEL_GENERATION = "assay.dev/generation"
LABEL_COMPONENT = "app.kubernetes.io/component"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_NAME = "app.kubernetes.io/name"
KUEUE_QUEUE = "kueue.x-k8s.io/queue-name"
# A new value starts another run of the same generation (GitOps tools keep using spec changes). Not under
# assay.dev/: kopf keeps its own state there and leaves that prefix out of the diffs it reacts to.
RERUN_ANNOTATION = "rerun.assay.dev/token"
NAME_HASH_LENGTH = 8
EXIT_BAD_INPUT = 2  # the runner's "could not run": fail the Job at once, a retry cannot fix it

BRAIN_DIR, SUITE_DIR, KB_DIR, RUN_DIR = (
    "/etc/assay/brain",
    "/etc/assay/suite",
    "/etc/assay/kb",
    "/etc/assay/run",
)
WORK_DIR, TMP_DIR = "/work", "/tmp"
RUN_CONFIG_KEY = "config.json"
TERMINATION_LOG = "/dev/termination-log"


def bounded_name(name: str, suffix: str, limit: int, strip: str = "-.") -> str:
    """`name` + `suffix` in at most `limit` characters. A name too long is cut and given a hash of the whole
    name, so two Evaluations whose names share a long prefix never map to the same child or label value."""
    if len(name) + len(suffix) <= limit:
        return name + suffix
    digest = hashlib.sha256(name.encode()).hexdigest()[:NAME_HASH_LENGTH]
    return f"{name[: limit - len(suffix) - NAME_HASH_LENGTH - 1].rstrip(strip)}-{digest}{suffix}"


def job_name(evaluation: str, generation: int, rerun: str | None = None) -> str:
    """One deterministic name per generation — and per rerun token (RERUN_ANNOTATION) when one asks for
    another run of the same generation — at most 63 characters (it becomes a label value)."""
    if not rerun:
        return bounded_name(evaluation, f"-g{generation}", 63)
    token = hashlib.sha256(rerun.encode()).hexdigest()[:8]
    return bounded_name(evaluation, f"-g{generation}-r{token}", 63)


def _child_name(evaluation: str, kind: str, discriminator: str) -> str:
    return bounded_name(evaluation, f"-{kind}-{discriminator}", 253)


def brain_snapshot_name(evaluation: str, digest: str) -> str:
    return _child_name(evaluation, "brain", digest.removeprefix("sha256:")[:10])


def run_config_name(evaluation: str, generation: int) -> str:
    return _child_name(evaluation, "run", f"g{generation}")


def labels(evaluation: str, generation: int | None = None, component: str = "runner") -> dict[str, str]:
    out = {
        LABEL_NAME: "assay",
        LABEL_COMPONENT: component,
        LABEL_MANAGED_BY: "assay-operator",
        LABEL_EVALUATION: bounded_name(evaluation, "", 63, "-._"),
    }
    if generation is not None:
        out[LABEL_GENERATION] = str(generation)
    return out


def brain_digest(data: dict[str, str], binary: dict[str, str] | None = None) -> str:
    """The runner digests the mounted files; keys are file names, so the two agree byte for byte."""
    import base64

    files = {key: value.encode() for key, value in data.items()}
    files.update({key: base64.b64decode(value) for key, value in (binary or {}).items()})
    return digest_files(files)


def build_brain_snapshot(
    evaluation: str, generation: int, data: dict[str, str], binary: dict[str, str] | None, digest: str
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": brain_snapshot_name(evaluation, digest),
            "labels": labels(evaluation, component="brain-snapshot"),
            "annotations": {"assay.dev/brain-digest": digest},
        },
        "immutable": True,
        "data": dict(sorted(data.items())),
    }
    if binary:
        body["binaryData"] = dict(sorted(binary.items()))
    return body


def _tickets(spec: EvaluationSpec) -> Selection | list[str]:
    if spec.tickets is None:
        return "all"
    if spec.tickets.ids:
        return list(spec.tickets.ids)
    return spec.tickets.split or "all"


def build_run_config(spec: EvaluationSpec, evaluation: str, namespace: str, settings: Settings) -> RunConfig:
    """The runner's RunConfig, as the pod will read it. Paths are where the Job mounts things; the gateway
    and MLflow reach the runner as environment (ASSAY_GATEWAY_URL, MLFLOW_TRACKING_URI), not here."""
    bundled = settings.bundled_root.rstrip("/")
    mlflow_uri = (spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri
    gate = spec.gate.model_dump(exclude_none=True) if spec.gate is not None else {}
    return RunConfig(
        run_name=f"{namespace}/{evaluation}",
        suite=f"{bundled}/{spec.suite.bundled}" if spec.suite.bundled else SUITE_DIR,
        kb=KB_DIR if spec.suite.kb_config_map is not None else None,
        brain=BRAIN_DIR,
        tickets=_tickets(spec),
        agent=AgentConfig(
            kind=spec.agent.kind,
            model=spec.agent.model,
            command=list(spec.agent.command) if spec.agent.command else None,
            timeout_seconds=spec.agent.timeout_seconds,
            answers=f"{bundled}/{spec.agent.answers.bundled}" if spec.agent.answers else None,
        ),
        repetitions=spec.repetitions,
        concurrency=spec.concurrency,
        judge_model=spec.judge_model,
        cassettes=(
            CassetteConfig(dir=f"{bundled}/{spec.cassettes.bundled}", mode="replay")
            if spec.cassettes
            else None
        ),
        mlflow=MlflowConfig(
            enabled=mlflow_uri is not None, experiment=spec.mlflow.experiment if spec.mlflow else "assay"
        ),
        gate=GateOverrides.model_validate(gate),
        output=OutputConfig(
            dir=f"{WORK_DIR}/out",
            summary_path=TERMINATION_LOG,
            blocked_exit_code=0,
            workspace_root=f"{WORK_DIR}/workspaces",
        ),
    )


def build_run_config_map(
    spec: EvaluationSpec, evaluation: str, namespace: str, generation: int, settings: Settings
) -> dict[str, Any]:
    config = build_run_config(spec, evaluation, namespace, settings)
    document = config.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": run_config_name(evaluation, generation),
            "labels": labels(evaluation, generation, component="run-config"),
        },
        "immutable": True,
        "data": {RUN_CONFIG_KEY: json.dumps(document, indent=2, sort_keys=True) + "\n"},
    }


def _config_map_volume(name: str, config_map: str) -> dict[str, Any]:
    return {"name": name, "configMap": {"name": config_map, "defaultMode": 0o444}}


def build_job(
    spec: EvaluationSpec,
    evaluation: str,
    namespace: str,
    generation: int,
    brain_snapshot: str,
    settings: Settings,
    rerun: str | None = None,
) -> dict[str, Any]:
    name = job_name(evaluation, generation, rerun)
    volumes = [
        _config_map_volume("brain", brain_snapshot),
        _config_map_volume("run-config", run_config_name(evaluation, generation)),
        {"name": "work", "emptyDir": {}},
        {"name": "tmp", "emptyDir": {}},
    ]
    mounts = [
        {"name": "brain", "mountPath": BRAIN_DIR, "readOnly": True},
        {"name": "run-config", "mountPath": RUN_DIR, "readOnly": True},
        {"name": "work", "mountPath": WORK_DIR},
        {"name": "tmp", "mountPath": TMP_DIR},
    ]
    if spec.suite.config_map is not None:
        volumes.append(_config_map_volume("suite", spec.suite.config_map.name))
        mounts.append({"name": "suite", "mountPath": SUITE_DIR, "readOnly": True})
    if spec.suite.kb_config_map is not None:
        volumes.append(_config_map_volume("kb", spec.suite.kb_config_map.name))
        mounts.append({"name": "kb", "mountPath": KB_DIR, "readOnly": True})
    env = [
        {"name": "HOME", "value": TMP_DIR},
        {"name": "TMPDIR", "value": TMP_DIR},
        {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
    ]
    gateway = spec.gateway or settings.default_gateway
    if gateway:
        env.append({"name": "ASSAY_GATEWAY_URL", "value": gateway})
    mlflow_uri = (spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri
    if mlflow_uri:
        env.append({"name": "MLFLOW_TRACKING_URI", "value": mlflow_uri})
    resources = spec.resources.model_dump() if spec.resources else {"cpu": "6", "memory": "6Gi"}
    pod_labels = labels(evaluation, generation)
    job_labels = dict(pod_labels)
    if spec.queue_name:
        job_labels[KUEUE_QUEUE] = spec.queue_name
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [
            {
                "name": "runner",
                "image": settings.runner_image,
                "command": [*settings.runner_command, "run", "--config", f"{RUN_DIR}/{RUN_CONFIG_KEY}"],
                "workingDir": WORK_DIR,
                "env": env,
                "resources": {"requests": dict(resources), "limits": dict(resources)},
                "volumeMounts": mounts,
                "terminationMessagePath": TERMINATION_LOG,
                "terminationMessagePolicy": "FallbackToLogsOnError",
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "readOnlyRootFilesystem": True,
                    "runAsNonRoot": True,
                    "capabilities": {"drop": ["ALL"]},
                },
            }
        ],
        "volumes": volumes,
    }
    if settings.runner_service_account:
        pod_spec["serviceAccountName"] = settings.runner_service_account
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "labels": job_labels,
            "annotations": {"assay.dev/spec-hash": spec_hash(spec)},
        },
        "spec": {
            "backoffLimit": settings.backoff_limit,
            "activeDeadlineSeconds": spec.deadline_seconds,
            "ttlSecondsAfterFinished": settings.job_ttl_seconds,
            "podFailurePolicy": {
                "rules": [
                    # An eviction or preemption is not the runner's fault: retry, without using the backoff.
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                    {
                        "action": "FailJob",
                        "onExitCodes": {
                            "containerName": "runner",
                            "operator": "In",
                            "values": [EXIT_BAD_INPUT],
                        },
                    },
                ]
            },
            "template": {"metadata": {"labels": pod_labels}, "spec": pod_spec},
        },
    }
    if spec.queue_name:
        job["spec"]["suspend"] = True
    return job


def spec_hash(spec: EvaluationSpec) -> str:
    canonical = json.dumps(spec.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
