"""Immutable snapshots of an Evaluation's inputs: the brain, and a ConfigMap suite split at its trust boundary
into the public part and the answer keys. Each is named by its digest, which the runner's RunSummary must
report back (the verdict is bound to what the Job mounted)."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from assay_operator.evaluation.build.names import (
    ANNOTATION_BRAIN,
    ANNOTATION_CUSTOMER,
    ANNOTATION_KEY,
    ANNOTATION_PUBLIC,
    brain_snapshot_name,
    labels,
    suite_snapshot_name,
)
from assay_operator.objects import ConfigMap, ObjectMeta
from assay_runner.contract import digest_files, is_brain_file


def brain_digest(data: dict[str, str], binary: dict[str, str] | None = None) -> str:
    """The runner digests the mounted files; keys are file names, and both sides count a file as part of the
    brain by the same rule (`contract.is_brain_file`), so the two agree byte for byte."""
    files = {key: value.encode() for key, value in data.items()}
    files.update({key: base64.b64decode(value) for key, value in (binary or {}).items()})
    return digest_files({key: value for key, value in files.items() if is_brain_file(key)})


def build_brain_snapshot(
    evaluation: str, data: dict[str, str], binary: dict[str, str] | None, digest: str
) -> ConfigMap:
    return ConfigMap(
        metadata=ObjectMeta(
            name=brain_snapshot_name(evaluation, digest),
            labels=labels(evaluation, component="brain-snapshot"),
            annotations={ANNOTATION_BRAIN: digest},
        ),
        immutable=True,
        data=dict(sorted(data.items())),
        binary_data=dict(sorted(binary.items())) if binary else None,
    )


def text_digest(data: dict[str, str]) -> str:
    """What the runner computes over the mounted files (file name -> bytes)."""
    return digest_files({key: value.encode() for key, value in data.items()})


def build_suite_snapshot(evaluation: str, part: str, data: dict[str, str], digest: str) -> ConfigMap:
    """`part`: `suite` (the public part), `key` (the answer keys) or `customer` (the conversational tickets'
    customers) — immutable, named by its digest."""
    annotation = {"suite": ANNOTATION_PUBLIC, "key": ANNOTATION_KEY, "customer": ANNOTATION_CUSTOMER}[part]
    return ConfigMap(
        metadata=ObjectMeta(
            name=suite_snapshot_name(evaluation, part, digest),
            labels=labels(evaluation, component=f"{part}-snapshot"),
            annotations={annotation: digest},
        ),
        immutable=True,
        data=dict(sorted(data.items())),
    )


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
    customer: str | None = None
    """The customers part's ConfigMap (a ConfigMap suite with conversational tickets), for the answer pods."""
    customer_digest: str | None = None

    def annotations(self) -> dict[str, str]:
        """The digests, as a Job carries them (its RunSummary is checked against them)."""
        found = {ANNOTATION_BRAIN: self.brain_digest}
        if self.suite_digest is not None and self.key_digest is not None:
            found[ANNOTATION_PUBLIC] = self.suite_digest
            found[ANNOTATION_KEY] = self.key_digest
        if self.customer_digest is not None:
            found[ANNOTATION_CUSTOMER] = self.customer_digest
        return found

    @classmethod
    def from_annotations(cls, evaluation: str, annotations: dict[str, str]) -> Snapshots:
        """The snapshots a Job's annotations name (each snapshot is named by its digest): the judge Job
        mounts exactly what its answer Job mounted."""
        public, key = annotations.get(ANNOTATION_PUBLIC), annotations.get(ANNOTATION_KEY)
        customer = annotations.get(ANNOTATION_CUSTOMER)
        brain = annotations[ANNOTATION_BRAIN]
        return cls(
            brain=brain_snapshot_name(evaluation, brain),
            brain_digest=brain,
            suite=suite_snapshot_name(evaluation, "suite", public) if public else None,
            suite_digest=public,
            key=suite_snapshot_name(evaluation, "key", key) if key else None,
            key_digest=key,
            customer=suite_snapshot_name(evaluation, "customer", customer) if customer else None,
            customer_digest=customer,
        )
