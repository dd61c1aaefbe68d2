"""The answers' PersistentVolumeClaim."""

from __future__ import annotations

from typing import Literal

from assay_operator.objects.base import KubeModel, ObjectMeta


class VolumeResourceRequirements(KubeModel):
    requests: dict[str, str]


class PersistentVolumeClaimSpec(KubeModel):
    access_modes: list[Literal["ReadWriteOnce", "ReadWriteMany"]]
    resources: VolumeResourceRequirements
    storage_class_name: str | None = None
    """None: the cluster's default StorageClass."""


class PersistentVolumeClaim(KubeModel):
    api_version: Literal["v1"] = "v1"
    kind: Literal["PersistentVolumeClaim"] = "PersistentVolumeClaim"
    metadata: ObjectMeta
    spec: PersistentVolumeClaimSpec
