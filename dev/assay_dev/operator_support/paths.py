"""Where things are: the repository's example files and the apiserver's paths of what the tests read."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
SUPPORT_DESK = EXAMPLES / "support-desk"


GROUP, VERSION, PLURAL = "assay.dev", "v1alpha1", "evaluations"


# --- paths ------------------------------------------------------------------------------------------------


def evaluations_path(namespace: str, name: str = "", subresource: str = "") -> str:
    return _join(f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/{PLURAL}", name, subresource)


def campaigns_path(namespace: str, name: str = "", subresource: str = "") -> str:
    return _join(f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/campaigns", name, subresource)


def jobs_path(namespace: str, name: str = "") -> str:
    return _join(f"/apis/batch/v1/namespaces/{namespace}/jobs", name, "")


def pods_path(namespace: str, name: str = "") -> str:
    return _join(f"/api/v1/namespaces/{namespace}/pods", name, "")


def config_maps_path(namespace: str, name: str = "") -> str:
    return _join(f"/api/v1/namespaces/{namespace}/configmaps", name, "")


def _join(base: str, name: str, subresource: str) -> str:
    path = f"{base}/{name}" if name else base
    return f"{path}/{subresource}" if subresource else path
