"""Pure builders of the children of an Evaluation: names, the brain and suite snapshots, the RunConfigs
and the Job.

No I/O here: handlers gather the inputs, call these, adopt the results and create them idempotently. Tests
compare the output with exact expected objects.

The Job's pod has two phases with a trust boundary between them (docs/trust-model.md):
- init container `answer` (`assay answer`): the agents, with the brain, the suite's public part (questions,
  judges, KB) and the gateway token; it writes the answers tree into the `answers` emptyDir. The answer keys
  are never mounted here, and an emptyDir covers the image's bundled examples when the agent runs code.
- container `runner` (`assay score`): the judges, with the answer keys, the answers (read-only), the
  judge's gateway token and the MLflow token; it runs no agent and writes the RunSummary.
A bundled suite is split inside the pod by a first init container `split` (runner code, no agent) into two
emptyDirs, one per phase.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from assay_operator.evaluation.api import EvaluationSpec, SecretKeyRef
from assay_operator.evaluation.suite_split import KEYS_FILE, SuiteSplitError, split_suite
from assay_operator.settings import Settings
from assay_runner.contract import (
    AgentConfig,
    CassetteConfig,
    GateOverrides,
    MlflowConfig,
    OutputConfig,
    PriceConfig,
    RunConfig,
    digest_files,
    is_brain_file,
)
from assay_runner.vocabulary import Selection

__all__ = ["SuiteSplitError", "split_suite"]  # the handlers reach the suite split through the builders

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

BRAIN_DIR, SUITE_DIR, KEY_DIR, KB_DIR, RUN_DIR = (
    "/etc/assay/brain",
    "/etc/assay/suite",
    "/etc/assay/key",
    "/etc/assay/kb",
    "/etc/assay/run",
)
SECRETS_DIR = "/etc/assay/secrets"
WORK_DIR, TMP_DIR = "/work", "/tmp"
ANSWERS_DIR = f"{WORK_DIR}/answers"
RUN_CONFIG_KEY = "config.json"
"""The judge phase's RunConfig (with the keys); the answer phase reads ANSWER_CONFIG_KEY (without)."""
ANSWER_CONFIG_KEY = "answer.json"
TERMINATION_LOG = "/dev/termination-log"
ANNOTATION_BRAIN, ANNOTATION_PUBLIC, ANNOTATION_KEY = (
    "assay.dev/brain-digest",
    "assay.dev/suite-public-digest",
    "assay.dev/suite-key-digest",
)
ANSWER_CONTAINER, JUDGE_CONTAINER, SPLIT_CONTAINER = "answer", "runner", "split"
# Agent kinds that run a program (which may read files): the image's bundled examples are hidden from them.
CODE_AGENTS = frozenset({"command", "opencode", "claude-code", "codex"})


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


def suite_snapshot_name(evaluation: str, part: str, digest: str) -> str:
    return _child_name(evaluation, part, digest.removeprefix("sha256:")[:10])


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
    """The runner digests the mounted files; keys are file names, and both sides count a file as part of the
    brain by the same rule (`contract.is_brain_file`), so the two agree byte for byte."""
    import base64

    files = {key: value.encode() for key, value in data.items()}
    files.update({key: base64.b64decode(value) for key, value in (binary or {}).items()})
    return digest_files({key: value for key, value in files.items() if is_brain_file(key)})


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


def text_digest(data: dict[str, str]) -> str:
    """What the runner computes over the mounted files (file name -> bytes)."""
    return digest_files({key: value.encode() for key, value in data.items()})


def build_suite_snapshot(evaluation: str, part: str, data: dict[str, str], digest: str) -> dict[str, Any]:
    """`part`: `suite` (the public part) or `key` (the answer keys) — immutable, named by its digest."""
    annotation = ANNOTATION_PUBLIC if part == "suite" else ANNOTATION_KEY
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": suite_snapshot_name(evaluation, part, digest),
            "labels": labels(evaluation, component=f"{part}-snapshot"),
            "annotations": {annotation: digest},
        },
        "immutable": True,
        "data": dict(sorted(data.items())),
    }


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
        suite=SUITE_DIR,
        keys=f"{KEY_DIR}/{KEYS_FILE}",
        answers_dir=ANSWERS_DIR,
        answer_deadline_seconds=answer_deadline(spec.deadline_seconds),
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
        prices={
            model: PriceConfig(input_per_million=p.input_per_million, output_per_million=p.output_per_million)
            for model, p in (spec.prices or {}).items()
        },
        max_cost_usd=spec.max_cost_usd,
        output=OutputConfig(
            dir=f"{WORK_DIR}/out",
            summary_path=TERMINATION_LOG,
            blocked_exit_code=0,
            workspace_root=f"{WORK_DIR}/workspaces",
        ),
    )


def answer_deadline(deadline_seconds: int) -> float:
    """The answer phase stops itself this long after it starts, leaving the rest of the Job's deadline to
    the judge phase (a fifth, at least 30 s, at most half), so a slow agent still ends in a verdict."""
    reserve = min(max(30.0, deadline_seconds * 0.2), deadline_seconds * 0.5)
    return float(deadline_seconds) - reserve


def _document(config: RunConfig) -> str:
    return json.dumps(
        config.model_dump(mode="json", by_alias=True, exclude_none=True), indent=2, sort_keys=True
    )


def build_run_config_map(
    spec: EvaluationSpec, evaluation: str, namespace: str, generation: int, settings: Settings
) -> dict[str, Any]:
    """Two documents: the judge phase's RunConfig, and the answer phase's, which names no keys and logs
    nowhere (the answer phase refuses a config with keys)."""
    config = build_run_config(spec, evaluation, namespace, settings)
    answer = config.model_copy(
        update={"keys": None, "mlflow": config.mlflow.model_copy(update={"enabled": False})}
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": run_config_name(evaluation, generation),
            "labels": labels(evaluation, generation, component="run-config"),
        },
        "immutable": True,
        "data": {RUN_CONFIG_KEY: _document(config) + "\n", ANSWER_CONFIG_KEY: _document(answer) + "\n"},
    }


def _config_map_volume(name: str, config_map: str) -> dict[str, Any]:
    return {"name": name, "configMap": {"name": config_map, "defaultMode": 0o444}}


@dataclass(frozen=True)
class Snapshots:
    """The immutable ConfigMaps a Job mounts, with the digests its RunSummary must match."""

    brain: str
    brain_digest: str
    suite: str | None = None
    """The public part's ConfigMap; None for a bundled suite (split in the pod)."""
    suite_digest: str | None = None
    key: str | None = None
    key_digest: str | None = None


def _secret_ref(ref: SecretKeyRef | None, default: str | None) -> SecretKeyRef | None:
    if ref is not None:
        return ref
    if not default:
        return None
    name, _, key = default.partition("/")
    return SecretKeyRef(name=name, key=key or "token")


def _secret_volume(name: str, ref: SecretKeyRef) -> dict[str, Any]:
    return {
        "name": name,
        "secret": {
            "secretName": ref.name,
            "items": [{"key": ref.key, "path": "token"}],
            "defaultMode": 0o444,
        },
    }


def _container(
    name: str,
    settings: Settings,
    args: list[str],
    env: list[dict[str, str]],
    mounts: list[dict[str, Any]],
    resources: dict[str, str],
) -> dict[str, Any]:
    return {
        "name": name,
        "image": settings.runner_image,
        "command": [*settings.runner_command, *args],
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


def _mount(name: str, path: str, read_only: bool = False) -> dict[str, Any]:
    return (
        {"name": name, "mountPath": path, "readOnly": True}
        if read_only
        else {"name": name, "mountPath": path}
    )


@dataclass
class _Phases:
    """The pod's volumes and, per phase, its mounts and environment."""

    volumes: list[dict[str, Any]]
    answer_mounts: list[dict[str, Any]]
    judge_mounts: list[dict[str, Any]]
    answer_env: list[dict[str, str]]
    judge_env: list[dict[str, str]]


def _phases(
    spec: EvaluationSpec, evaluation: str, generation: int, snapshots: Snapshots, settings: Settings
) -> _Phases:
    volumes = [
        _config_map_volume("brain", snapshots.brain),
        _config_map_volume("run-config", run_config_name(evaluation, generation)),
        # The answer phase gets its own document only: the judge's names where the keys are mounted.
        {
            "name": "answer-config",
            "configMap": {
                "name": run_config_name(evaluation, generation),
                "items": [{"key": ANSWER_CONFIG_KEY, "path": ANSWER_CONFIG_KEY}],
                "defaultMode": 0o444,
            },
        },
        # Separate scratch per phase: nothing an agent leaves behind is where the judge phase works.
        {"name": "answer-work", "emptyDir": {}},
        {"name": "answer-tmp", "emptyDir": {}},
        {"name": "answers", "emptyDir": {}},
        {"name": "work", "emptyDir": {}},
        {"name": "tmp", "emptyDir": {}},
    ]
    if snapshots.suite is not None and snapshots.key is not None:
        volumes += [_config_map_volume("suite", snapshots.suite), _config_map_volume("key", snapshots.key)]
    else:  # a bundled suite: split in the pod, one emptyDir per part
        volumes += [{"name": "suite", "emptyDir": {}}, {"name": "key", "emptyDir": {}}]
    inputs = [_mount("suite", SUITE_DIR, read_only=True)]
    if spec.suite.kb_config_map is not None:
        volumes.append(_config_map_volume("kb", spec.suite.kb_config_map.name))
        inputs.append(_mount("kb", KB_DIR, read_only=True))
    brain = _mount("brain", BRAIN_DIR, read_only=True)
    answer_mounts = [
        brain,
        _mount("answer-config", RUN_DIR, read_only=True),
        *inputs,
        _mount("answer-work", WORK_DIR),
        _mount("answers", ANSWERS_DIR),
        _mount("answer-tmp", TMP_DIR),
    ]
    if spec.agent.kind in CODE_AGENTS:
        # The image's bundled suites carry their answer keys: an agent that runs code never sees them.
        volumes.append({"name": "no-examples", "emptyDir": {"sizeLimit": "1Mi"}})
        answer_mounts.append(_mount("no-examples", settings.bundled_root.rstrip("/"), read_only=True))
    judge_mounts = [
        brain,
        _mount("run-config", RUN_DIR, read_only=True),
        *inputs,
        _mount("key", KEY_DIR, read_only=True),
        _mount("work", WORK_DIR),
        _mount("answers", ANSWERS_DIR, read_only=True),
        _mount("tmp", TMP_DIR),
    ]
    answer_env = [
        {"name": "HOME", "value": TMP_DIR},
        {"name": "TMPDIR", "value": TMP_DIR},
        {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
    ]
    judge_env = list(answer_env)
    gateway = spec.gateway or settings.default_gateway
    if gateway:
        answer_env.append({"name": "ASSAY_GATEWAY_URL", "value": gateway})
        judge_env.append({"name": "ASSAY_GATEWAY_URL", "value": gateway})
    mlflow_uri = (spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri
    if mlflow_uri:
        judge_env.append({"name": "MLFLOW_TRACKING_URI", "value": mlflow_uri})
    # The judge phase exits 0 on a Blocked verdict only where this is set (output.blockedExitCode: 0).
    judge_env.append({"name": "ASSAY_JOB", "value": "1"})
    phases = _Phases(volumes, answer_mounts, judge_mounts, answer_env, judge_env)
    _add_tokens(spec, settings, phases)
    return phases


def _add_tokens(spec: EvaluationSpec, settings: Settings, phases: _Phases) -> None:
    """Tokens are Secrets the kubelet mounts as files, each only into the phase that needs it; the pod spec
    names the Secret, never its value, and the operator never reads it."""
    gateway = _secret_ref(spec.gateway_token_secret_ref, settings.default_gateway_token_secret)
    judge = (
        _secret_ref(spec.judge_gateway_token_secret_ref, settings.default_judge_gateway_token_secret)
        or gateway
    )
    mlflow = _secret_ref(
        spec.mlflow.token_secret_ref if spec.mlflow else None, settings.default_mlflow_token_secret
    )
    mounted = (
        (gateway, "gateway", phases.answer_mounts, phases.answer_env, "ASSAY_GATEWAY_TOKEN_FILE"),
        (judge, "judge", phases.judge_mounts, phases.judge_env, "ASSAY_JUDGE_GATEWAY_TOKEN_FILE"),
        (mlflow, "mlflow", phases.judge_mounts, phases.judge_env, "MLFLOW_TRACKING_TOKEN_FILE"),
    )
    for ref, role, mounts, env, variable in mounted:
        if ref is None:
            continue
        phases.volumes.append(_secret_volume(f"{role}-token", ref))
        mounts.append(_mount(f"{role}-token", f"{SECRETS_DIR}/{role}", read_only=True))
        env.append({"name": variable, "value": f"{SECRETS_DIR}/{role}/token"})


def build_job(
    spec: EvaluationSpec,
    evaluation: str,
    namespace: str,
    generation: int,
    snapshots: Snapshots,
    settings: Settings,
    rerun: str | None = None,
) -> dict[str, Any]:
    name = job_name(evaluation, generation, rerun)
    bundled_root = settings.bundled_root.rstrip("/")
    phases = _phases(spec, evaluation, generation, snapshots, settings)
    resources = spec.resources.model_dump() if spec.resources else {"cpu": "6", "memory": "6Gi"}
    init_containers = []
    if spec.suite.bundled:
        init_containers.append(
            _container(
                SPLIT_CONTAINER,
                settings,
                [
                    "split",
                    f"{bundled_root}/{spec.suite.bundled}",
                    "--public",
                    SUITE_DIR,
                    "--keys",
                    f"{KEY_DIR}/{KEYS_FILE}",
                ],
                [{"name": "PYTHONDONTWRITEBYTECODE", "value": "1"}],
                [_mount("suite", SUITE_DIR), _mount("key", KEY_DIR), _mount("tmp", TMP_DIR)],
                resources,
            )
        )
    init_containers.append(
        _container(
            ANSWER_CONTAINER,
            settings,
            ["answer", "--config", f"{RUN_DIR}/{ANSWER_CONFIG_KEY}", "--quiet"],
            phases.answer_env,
            phases.answer_mounts,
            resources,
        )
    )
    judge = _container(
        JUDGE_CONTAINER,
        settings,
        ["score", "--config", f"{RUN_DIR}/{RUN_CONFIG_KEY}"],
        phases.judge_env,
        phases.judge_mounts,
        resources,
    )
    pod_labels = labels(evaluation, generation)
    job_labels = dict(pod_labels)
    if spec.queue_name:
        job_labels[KUEUE_QUEUE] = spec.queue_name
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "initContainers": init_containers,
        "containers": [judge],
        "volumes": phases.volumes,
    }
    if settings.runner_service_account:
        pod_spec["serviceAccountName"] = settings.runner_service_account
    annotations = {"assay.dev/spec-hash": spec_hash(spec), ANNOTATION_BRAIN: snapshots.brain_digest}
    if snapshots.suite_digest is not None and snapshots.key_digest is not None:
        annotations[ANNOTATION_PUBLIC] = snapshots.suite_digest
        annotations[ANNOTATION_KEY] = snapshots.key_digest
    job: dict[str, Any] = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "labels": job_labels, "annotations": annotations},
        "spec": {
            "backoffLimit": settings.backoff_limit,
            "activeDeadlineSeconds": spec.deadline_seconds,
            "ttlSecondsAfterFinished": settings.job_ttl_seconds,
            "podFailurePolicy": {
                "rules": [
                    # An eviction or preemption is not the runner's fault: retry, without using the backoff.
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                    *(
                        {
                            "action": "FailJob",
                            "onExitCodes": {
                                "containerName": container["name"],
                                "operator": "In",
                                "values": [EXIT_BAD_INPUT],
                            },
                        }
                        for container in [*init_containers, judge]
                    ),
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
