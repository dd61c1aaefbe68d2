"""Names and labels of an Evaluation's children: deterministic, bounded, and distinct for distinct
Evaluations (a long name is cut and given a hash of the whole, so two names sharing a prefix never collide).
"""

from __future__ import annotations

import hashlib

LABEL_EVALUATION = "assay.dev/evaluation"
LABEL_GENERATION = "assay.dev/generation"
LABEL_COMPONENT = "app.kubernetes.io/component"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_NAME = "app.kubernetes.io/name"
MANAGED_BY = "assay-operator"
# A new value starts another run of the same generation (GitOps tools keep using spec changes). Not under
# assay.dev/: kopf keeps its own state there and leaves that prefix out of the diffs it reacts to.
RERUN_ANNOTATION = "rerun.assay.dev/token"
ANNOTATION_BRAIN, ANNOTATION_PUBLIC, ANNOTATION_KEY = (
    "assay.dev/brain-digest",
    "assay.dev/suite-public-digest",
    "assay.dev/suite-key-digest",
)
ANNOTATION_SPEC_HASH = "assay.dev/spec-hash"
NAME_HASH_LENGTH = 8


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


def evaluation_label(evaluation: str) -> str:
    """The value of LABEL_EVALUATION on the Evaluation's children (a label value: at most 63 characters)."""
    return bounded_name(evaluation, "", 63, "-._")


def labels(evaluation: str, generation: int | None = None, component: str = "runner") -> dict[str, str]:
    out = {
        LABEL_NAME: "assay",
        LABEL_COMPONENT: component,
        LABEL_MANAGED_BY: MANAGED_BY,
        LABEL_EVALUATION: evaluation_label(evaluation),
    }
    if generation is not None:
        out[LABEL_GENERATION] = str(generation)
    return out
