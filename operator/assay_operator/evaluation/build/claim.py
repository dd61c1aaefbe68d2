"""The answers volume of one generation (pure): a PersistentVolumeClaim owned by the Evaluation. Every answer
pod writes its shard under `shard-<index>/`, the judge pod reads them all and keeps `result/` (result.json,
summary.json, report.html) there after the pods are gone.

One claim, not one per shard: an Indexed Job has one pod template, so every pod names the same claim and
picks its own part with subPathExpr. ReadWriteOnce (the default, any class) keeps the pods on the node that
holds the volume; ReadWriteMany, where the class supports it, lets them spread over nodes. Per generation:
a rerun of the same generation resumes on its answers; a new generation starts on a fresh one, and the
older generation's claim is deleted with its Jobs.
"""

from __future__ import annotations

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec, StorageSpec
from assay_operator.evaluation.build.names import claim_name, labels
from assay_operator.settings import Settings

COMPONENT = "answers"


def build_answers_claim(
    spec: EvaluationSpec, evaluation: str, generation: int, settings: Settings
) -> k8s.PersistentVolumeClaim:
    storage = spec.storage or StorageSpec()
    return k8s.PersistentVolumeClaim(
        metadata=k8s.ObjectMeta(
            name=claim_name(evaluation, generation), labels=labels(evaluation, generation, COMPONENT)
        ),
        spec=k8s.PersistentVolumeClaimSpec(
            access_modes=[storage.access_mode or settings.storage_access_mode],
            resources=k8s.VolumeResourceRequirements(
                requests={"storage": storage.size or settings.storage_size}
            ),
            storage_class_name=storage.storage_class_name or settings.storage_class,
        ),
    )
