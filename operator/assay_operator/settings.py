"""Operator settings, from the environment (the chart sets them), validated at start-up.

A wrong setting stops the operator at once with a message naming the variable, instead of producing Jobs
that fail later for a reason nobody connects to the setting.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from assay_operator import image_mirrors, quantity
from assay_operator.image_mirrors import DigestMirror
from assay_runner.vocabulary import PRESET_KINDS, AgentKind

SECRET_NAME = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
SECRET_REF = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?(/[-._a-zA-Z0-9]{1,253})?$"


class NetworkPeers(BaseModel):
    """Where a service (the gateway) runs, as NetworkPolicy can name it: it has no host-name rules, so
    namespace and pod labels, or CIDRs; the chart's networkPolicy.gateway, as JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)

    namespace_selector: dict[str, str] = Field(default_factory=dict)
    pod_selector: dict[str, str] = Field(default_factory=dict)
    cidrs: tuple[str, ...] = ()
    ports: tuple[int, ...] = (443,)

    @property
    def named(self) -> bool:
        return bool(self.namespace_selector or self.pod_selector or self.cidrs)


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    runner_image: str = Field(min_length=1)
    """ASSAY_RUNNER_IMAGE: the runner container image (required)."""
    runner_command: tuple[str, ...] = ("assay",)
    """ASSAY_RUNNER_COMMAND: the runner's entrypoint in that image (space-separated)."""
    namespaces: tuple[str, ...] = ()
    """ASSAY_NAMESPACES: namespaces to watch, comma-separated; empty means the operator's own namespace;
    `*` means every namespace (all_namespaces). Under OLM, OLM_TARGET_NAMESPACES (the OperatorGroup's
    olm.targetNamespaces annotation) gives them instead, empty meaning every namespace."""
    all_namespaces: bool = False
    """Watch every namespace, present and future (ASSAY_NAMESPACES=*, or an empty OLM_TARGET_NAMESPACES)."""
    default_gateway: str | None = None
    """ASSAY_DEFAULT_GATEWAY: gateway URL for Evaluations that do not name one."""
    default_mlflow_uri: str | None = None
    """ASSAY_DEFAULT_MLFLOW_URI: MLflow tracking URI for Evaluations that do not name one."""
    bundled_root: str = "/opt/assay/examples"
    """ASSAY_BUNDLED_ROOT: where the runner image keeps its bundled suites, answers and cassettes."""
    job_ttl_seconds: int = Field(default=3600, ge=0)
    """ASSAY_JOB_TTL_SECONDS: finished Jobs are deleted after this; the verdict stays on the Evaluation."""
    backoff_limit: int = Field(default=1, ge=0, le=6)
    """ASSAY_BACKOFF_LIMIT: retries of a crashed runner pod (evictions do not count)."""
    metrics_port: int = Field(default=8081, ge=1, le=65535)
    """ASSAY_METRICS_PORT: Prometheus /metrics."""
    runner_service_account: str | None = None
    """ASSAY_RUNNER_SERVICE_ACCOUNT: service account of runner pods (its token is never mounted)."""
    default_gateway_token_secret: str | None = Field(default=None, pattern=SECRET_REF)
    """ASSAY_DEFAULT_GATEWAY_TOKEN_SECRET: `name` or `name/key` (key `token` by default) of a Secret with the
    gateway token, for Evaluations that name none."""
    default_judge_gateway_token_secret: str | None = Field(default=None, pattern=SECRET_REF)
    """ASSAY_DEFAULT_JUDGE_GATEWAY_TOKEN_SECRET: the model judge's own gateway token, likewise."""
    default_mlflow_token_secret: str | None = Field(default=None, pattern=SECRET_REF)
    """ASSAY_DEFAULT_MLFLOW_TOKEN_SECRET: the MLflow token, likewise."""
    runner_agent_presets: tuple[AgentKind, ...] = ()
    """ASSAY_RUNNER_AGENT_PRESETS: the CLI presets the runner image has (comma-separated; an image built with
    AGENT_CLIS). An Evaluation naming another preset stalls with the reason instead of starting a Job."""

    stall_after_retries: int = Field(default=5, ge=0, le=20)
    """ASSAY_STALL_AFTER_RETRIES: attempts (5, 10, 20, 40, 80 s apart) while a brain or suite ConfigMap is
    missing before the Evaluation reads Stalled (Failed to Flux, Degraded to Argo CD); it still proceeds if
    the ConfigMap appears later."""

    pod_start_grace_seconds: int = Field(default=180, ge=0, le=86400)
    """ASSAY_POD_START_GRACE_SECONDS: how long a run's pod may fail to start for a reason that does not heal
    by itself (a missing Secret or key, an image that cannot be pulled) before the run ends Stalled with that
    reason and its Job is stopped; reported in the StartBlocked condition within seconds meanwhile."""

    storage_class: str | None = Field(default=None, pattern=r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
    """ASSAY_STORAGE_CLASS: StorageClass of the answer volumes for Evaluations that name none (empty: the
    cluster's default class)."""
    storage_size: quantity.Storage = "1Gi"
    """ASSAY_STORAGE_SIZE: size of an answer volume for Evaluations that name none."""
    storage_access_mode: Literal["ReadWriteOnce", "ReadWriteMany"] = "ReadWriteOnce"
    """ASSAY_STORAGE_ACCESS_MODE: access mode of the answer volumes for Evaluations that name none."""
    answer_network_policy: bool = True
    """ASSAY_ANSWER_NETWORK_POLICY: a NetworkPolicy per Evaluation that lets its answer pods reach only the
    gateway and DNS (the chart's networkPolicy.enabled)."""
    gateway_network: NetworkPeers = Field(default_factory=NetworkPeers)
    """ASSAY_GATEWAY_NETWORK: where the gateway runs (JSON: namespaceSelector, podSelector, cidrs, ports),
    for the answer pods' NetworkPolicy. A gateway URL with an IP address is allowed by itself."""
    network_probe_targets: tuple[str, ...] = ()
    """ASSAY_NETWORK_PROBE_TARGETS: HOST:PORT addresses (comma-separated) the network probe tries besides the
    apiserver and the Evaluation's MLflow, each one the answer pods' NetworkPolicy forbids and that listens
    (the operator's metrics Service, a judge gateway, ...)."""
    network_probe_seconds: int = Field(default=120, ge=10, le=3600)
    """ASSAY_NETWORK_PROBE_SECONDS: how long the network probe's pod may take, from its creation to its
    report; past it the probe counts as failed (fail closed)."""
    dns_ports: tuple[int, ...] = (53,)
    """ASSAY_DNS_PORTS: the ports DNS is allowed on (comma-separated; OpenShift's DNS pods listen on 5353)."""

    suite_registry_ca_secret: str | None = Field(default=None, pattern=SECRET_REF)
    """ASSAY_SUITE_REGISTRY_CA_SECRET: `name` or `name/key` (key `ca.crt` by default) of a Secret with the CA
    bundle (PEM) that verifies the registry of `suite.oci` artifacts; unset: the runner image's trust store.
    Mounted only into the init container that pulls the suite."""
    suite_registry_auth_secret: str | None = Field(default=None, pattern=SECRET_NAME)
    """ASSAY_SUITE_REGISTRY_AUTH_SECRET: a `kubernetes.io/dockerconfigjson` Secret (key `.dockerconfigjson`)
    with the credentials for that registry; unset: anonymous. Mounted only into the pulling init container."""
    suite_registry_network: NetworkPeers = Field(default_factory=NetworkPeers)
    """ASSAY_SUITE_REGISTRY_NETWORK: where the suite registry is (JSON, as ASSAY_GATEWAY_NETWORK): added to
    the answer pods' NetworkPolicy of an Evaluation whose suite is `suite.oci` (its init container pulls)."""

    decision_key_file: str | None = None
    """ASSAY_DECISION_KEY_FILE: the key of the operator's seals on the approvals and overrides it writes
    (assay_operator.seals; the chart mounts a Secret there). Unset: a key of the process's own."""

    image_verification_key_file: str | None = None
    """ASSAY_IMAGE_VERIFICATION_KEY_FILE: a cosign public key (PEM; the chart mounts imageVerification's
    Secret there). Set: the runner image must be named by digest, and before an Evaluation's first Job the
    operator verifies its signature by this key and its manifest and layers against the digest
    (assay_operator.image_verification); a refusal ends the Evaluation Blocked, condition ImageVerified. A
    suite from an OCI artifact is verified the same way (condition SuiteVerified)."""
    image_digest_mirrors: tuple[DigestMirror, ...] = ()
    """ASSAY_IMAGE_DIGEST_MIRRORS: where the cluster's nodes fetch images by digest instead of their source
    (JSON: an ImageDigestMirrorSet's spec.imageDigestMirrors, or the whole object), so the runner image is
    verified where it is pulled from (a disconnected cluster's mirror registry)."""
    registry_ca_file: str | None = None
    """ASSAY_REGISTRY_CA_FILE: CA bundle (PEM) of the registry the runner image comes from, when it has a
    private one (else the system's trust store); the operator reads OCI suites' registries with it too."""

    leader_election: bool = False
    """ASSAY_LEADER_ELECTION: run as one of several replicas; only the holder of the Lease assay-operator (in
    POD_NAMESPACE) reconciles, the others stand by (the chart sets it when operator.replicas > 1)."""
    lease_seconds: int = Field(default=6, ge=3, le=120)
    """ASSAY_LEASE_SECONDS: how long a leader's lease lasts unrenewed; a standby takes over after it. A leader
    that has not renewed for two thirds of it stops; renewals come every tenth of it."""

    @model_validator(mode="after")
    def _verified_image_by_digest(self) -> Settings:
        if self.image_verification_key_file and not re.search(r"@sha256:[0-9a-f]{64}$", self.runner_image):
            raise ValueError(
                f"ASSAY_RUNNER_IMAGE {self.runner_image!r} must be named by digest (NAME@sha256:...) when "
                "ASSAY_IMAGE_VERIFICATION_KEY_FILE is set: a signature is of a digest, a tag can move"
            )
        return self

    @field_validator("namespaces")
    @classmethod
    def _namespace_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            if not _DNS_LABEL.fullmatch(name):
                raise ValueError(f"{name!r} is not a namespace name (or use * alone for every namespace)")
        return value


ENV = {
    "runner_image": "ASSAY_RUNNER_IMAGE",
    "runner_command": "ASSAY_RUNNER_COMMAND",
    "namespaces": "ASSAY_NAMESPACES",
    "default_gateway": "ASSAY_DEFAULT_GATEWAY",
    "default_mlflow_uri": "ASSAY_DEFAULT_MLFLOW_URI",
    "bundled_root": "ASSAY_BUNDLED_ROOT",
    "job_ttl_seconds": "ASSAY_JOB_TTL_SECONDS",
    "backoff_limit": "ASSAY_BACKOFF_LIMIT",
    "metrics_port": "ASSAY_METRICS_PORT",
    "runner_service_account": "ASSAY_RUNNER_SERVICE_ACCOUNT",
    "default_gateway_token_secret": "ASSAY_DEFAULT_GATEWAY_TOKEN_SECRET",
    "default_judge_gateway_token_secret": "ASSAY_DEFAULT_JUDGE_GATEWAY_TOKEN_SECRET",
    "default_mlflow_token_secret": "ASSAY_DEFAULT_MLFLOW_TOKEN_SECRET",
    "runner_agent_presets": "ASSAY_RUNNER_AGENT_PRESETS",
    "stall_after_retries": "ASSAY_STALL_AFTER_RETRIES",
    "pod_start_grace_seconds": "ASSAY_POD_START_GRACE_SECONDS",
    "storage_class": "ASSAY_STORAGE_CLASS",
    "storage_size": "ASSAY_STORAGE_SIZE",
    "storage_access_mode": "ASSAY_STORAGE_ACCESS_MODE",
    "answer_network_policy": "ASSAY_ANSWER_NETWORK_POLICY",
    "gateway_network": "ASSAY_GATEWAY_NETWORK",
    "network_probe_targets": "ASSAY_NETWORK_PROBE_TARGETS",
    "network_probe_seconds": "ASSAY_NETWORK_PROBE_SECONDS",
    "dns_ports": "ASSAY_DNS_PORTS",
    "suite_registry_ca_secret": "ASSAY_SUITE_REGISTRY_CA_SECRET",
    "suite_registry_auth_secret": "ASSAY_SUITE_REGISTRY_AUTH_SECRET",
    "suite_registry_network": "ASSAY_SUITE_REGISTRY_NETWORK",
    "decision_key_file": "ASSAY_DECISION_KEY_FILE",
    "image_verification_key_file": "ASSAY_IMAGE_VERIFICATION_KEY_FILE",
    "registry_ca_file": "ASSAY_REGISTRY_CA_FILE",
    "image_digest_mirrors": "ASSAY_IMAGE_DIGEST_MIRRORS",
    "leader_election": "ASSAY_LEADER_ELECTION",
    "lease_seconds": "ASSAY_LEASE_SECONDS",
}
OLM_TARGET_NAMESPACES = "OLM_TARGET_NAMESPACES"
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


class SettingsError(ValueError):
    pass


def _namespaces(raw: str, variable: str) -> dict[str, object]:
    names = tuple(n.strip() for n in raw.split(",") if n.strip())
    if "*" in names:
        if len(names) > 1:
            raise SettingsError(f"invalid operator settings:\n{variable}: * (every namespace) stands alone")
        return {"all_namespaces": True}
    return {"namespaces": names}


def from_environment(environ: Mapping[str, str] | None = None) -> Settings:
    environ = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for field, variable in ENV.items():
        raw = environ.get(variable)
        if raw is None or raw == "":
            continue
        if field == "runner_command":
            values[field] = tuple(raw.split())
        elif field == "namespaces":
            values.update(_namespaces(raw, variable))
        elif field in ("runner_agent_presets", "dns_ports", "network_probe_targets"):
            values[field] = tuple(n.strip() for n in raw.split(",") if n.strip())
        elif field == "image_digest_mirrors":
            try:
                values[field] = image_mirrors.parse(raw)
            except ValueError as exc:
                raise SettingsError(f"invalid operator settings:\n{variable}: {exc}") from None
        elif field in ("gateway_network", "suite_registry_network"):
            try:
                values[field] = json.loads(raw)
            except ValueError as exc:
                raise SettingsError(f"invalid operator settings:\n{variable}: not JSON: {exc}") from None
        else:
            values[field] = raw
    presets = (environ.get(ENV["runner_agent_presets"]) or "").split(",")
    unknown = sorted({p.strip() for p in presets if p.strip()} - set(PRESET_KINDS))
    if unknown:
        raise SettingsError(
            "invalid operator settings:\nASSAY_RUNNER_AGENT_PRESETS: "
            f"unknown preset(s) {', '.join(unknown)}; known: {', '.join(PRESET_KINDS)}"
        )
    olm = environ.get(OLM_TARGET_NAMESPACES)
    if olm is not None:
        if environ.get(ENV["namespaces"]):
            raise SettingsError(
                f"invalid operator settings:\n{ENV['namespaces']} and {OLM_TARGET_NAMESPACES} are both set: "
                "under OLM the OperatorGroup chooses the namespaces"
            )
        values.update(_namespaces(olm, OLM_TARGET_NAMESPACES) if olm.strip() else {"all_namespaces": True})
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        lines = [
            f"{ENV.get(str(e['loc'][0]), e['loc'][0])}: {e['msg']}" if e["loc"] else e["msg"]
            for e in exc.errors()
        ]
        raise SettingsError("invalid operator settings:\n" + "\n".join(lines)) from None
