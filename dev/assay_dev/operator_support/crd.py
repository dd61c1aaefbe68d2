"""The committed CRDs (Evaluation, Campaign), installed the way a user applies them, and waited for."""

from __future__ import annotations

from pathlib import Path

import yaml

from assay_dev.cluster import ApiError, KubeApi
from assay_dev.cluster.kubeapi import Obj
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support.paths import GROUP, PLURAL, REPO, VERSION

CRD_FILE = REPO / "crds" / "assay.dev_evaluations.yaml"
CRD_FILES = (CRD_FILE, REPO / "crds" / "assay.dev_campaigns.yaml")


CRD_NAME = f"{PLURAL}.{GROUP}"


# --- the CRD ----------------------------------------------------------------------------------------------


def install_crd(api: KubeApi, timeout: float = 60) -> Obj:
    """Create (or replace) every committed CRD (Evaluation, Campaign) and wait until each is Established and
    its endpoint serves. Returns the Evaluation CRD."""
    installed = [install_one_crd(api, path, timeout) for path in CRD_FILES]
    return next(crd for crd in installed if crd["metadata"]["name"] == CRD_NAME)


def install_one_crd(api: KubeApi, file: Path, timeout: float = 60) -> Obj:
    documents: list[Obj] = [d for d in yaml.safe_load_all(file.read_text()) if d]
    crd = next(d for d in documents if d.get("kind") == "CustomResourceDefinition")
    name, plural = crd["metadata"]["name"], crd["spec"]["names"]["plural"]
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    try:
        api.create(path, crd)
    except ApiError as error:
        if error.status != 409:
            raise
        current = api.get(f"{path}/{name}")
        crd = {
            **crd,
            "metadata": {**crd["metadata"], "resourceVersion": current["metadata"]["resourceVersion"]},
        }
        api.request("PUT", f"{path}/{name}", body=crd)

    def established() -> bool:
        got = api.get(f"{path}/{name}")
        return any(
            c["type"] == "Established" and c["status"] == "True"
            for c in got.get("status", {}).get("conditions") or []
        )

    wait_until(established, timeout=timeout, what=f"the CRD {name} to be Established")

    def serving() -> bool:
        try:
            api.get(f"/apis/{GROUP}/{VERSION}/{plural}")
            return True
        except ApiError as error:
            if error.status in (404, 429):  # not yet routed; 429: "storage is (re)initializing"
                return False
            raise

    wait_until(serving, timeout=timeout, what=f"the {plural} endpoint to serve")
    return crd
