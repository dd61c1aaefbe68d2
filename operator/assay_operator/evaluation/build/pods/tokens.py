"""The token Secrets a run mounts (pure): which Secret each role (gateway, judge, mlflow) uses, the spec's or
the operator's default, and how one is mounted as a file into one container."""

from __future__ import annotations

from dataclasses import dataclass

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec, SecretKeyRef
from assay_operator.evaluation.build.layout import (
    SECRETS_DIR,
)
from assay_operator.evaluation.build.pods.parts import env, mount
from assay_operator.settings import Settings


def _secret_ref(ref: SecretKeyRef | None, default: str | None) -> SecretKeyRef | None:
    if ref is not None:
        return ref
    if not default:
        return None
    name, _, key = default.partition("/")
    return SecretKeyRef(name=name, key=key or "token")


def token_secrets(spec: EvaluationSpec, settings: Settings) -> dict[str, SecretKeyRef]:
    """The Secrets a run mounts, by role (gateway, judge, mlflow): the spec's, else the operator's
    defaults. The judge falls back to the gateway's token."""
    gateway = _secret_ref(spec.gateway_token_secret_ref, settings.default_gateway_token_secret)
    judge = (
        _secret_ref(spec.judge_gateway_token_secret_ref, settings.default_judge_gateway_token_secret)
        or gateway
    )
    mlflow = _secret_ref(
        spec.mlflow.token_secret_ref if spec.mlflow else None, settings.default_mlflow_token_secret
    )
    found = {"gateway": gateway, "judge": judge, "mlflow": mlflow}
    return {role: ref for role, ref in found.items() if ref is not None}


@dataclass(frozen=True)
class Token:
    """A token Secret the kubelet mounts as a file into one container; the pod spec names the Secret,
    never its value, and the operator never reads it."""

    volume: k8s.Volume
    mount: k8s.VolumeMount
    env: k8s.EnvVar


def token(role: str, ref: SecretKeyRef, variable: str) -> Token:
    items = [k8s.KeyToPath(key=ref.key, path="token")]
    source = k8s.SecretVolumeSource(secret_name=ref.name, items=items, default_mode=0o444)
    return Token(
        volume=k8s.Volume(name=f"{role}-token", secret=source),
        mount=mount(f"{role}-token", f"{SECRETS_DIR}/{role}", read_only=True),
        env=env(variable, f"{SECRETS_DIR}/{role}/token"),
    )
