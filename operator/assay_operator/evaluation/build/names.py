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
ANSWER, JUDGE = "answer", "judge"
"""The components (LABEL_COMPONENT) of a run's two Jobs and their pods: the answer pods' NetworkPolicy
selects ANSWER, the chart's judge NetworkPolicy selects JUDGE."""
# A new value starts another run of the same generation (GitOps tools keep using spec changes). Not under
# assay.dev/: kopf keeps its own state there and leaves that prefix out of the diffs it reacts to.
RERUN_ANNOTATION = "rerun.assay.dev/token"
ANNOTATION_BRAIN, ANNOTATION_PUBLIC, ANNOTATION_KEY = (
    "assay.dev/brain-digest",
    "assay.dev/suite-public-digest",
    "assay.dev/suite-key-digest",
)
ANNOTATION_CUSTOMER = "assay.dev/suite-customer-digest"
"""A ConfigMap suite's customers part (conversational tickets only): the answer pods mount it."""
ANNOTATION_SPEC_HASH = "assay.dev/spec-hash"
ANNOTATION_JUDGE_JOB = "assay.dev/judge-job"
"""On the answer Job: the judge Job that follows it (so the judge can be made from the answer Job alone)."""
ANNOTATION_SUITE_ARTIFACT = "assay.dev/suite-artifact"
"""On a run's Jobs when the suite is `suite.oci`: the artifact's manifest digest its `split` pulls by."""
NAME_HASH_LENGTH = 8
ANSWER_JOB_NAME_LIMIT = 56
"""An Indexed Job's pods get the hostname <job>-<index>, a DNS label (63): room for the index."""


def bounded_name(name: str, suffix: str, limit: int, strip: str = "-.") -> str:
    """`name` + `suffix` in at most `limit` characters. A name too long is cut and given a hash of the whole
    name, so two Evaluations whose names share a long prefix never map to the same child or label value."""
    if len(name) + len(suffix) <= limit:
        return name + suffix
    digest = hashlib.sha256(name.encode()).hexdigest()[:NAME_HASH_LENGTH]
    return f"{name[: limit - len(suffix) - NAME_HASH_LENGTH - 1].rstrip(strip)}-{digest}{suffix}"


def _run_suffix(generation: int, rerun: str | None) -> str:
    if not rerun:
        return f"-g{generation}"
    return f"-g{generation}-r{hashlib.sha256(rerun.encode()).hexdigest()[:8]}"


def job_name(evaluation: str, generation: int, rerun: str | None = None) -> str:
    """The run's judge Job (`status.jobName`, whose pod gives the verdict): one deterministic name per
    generation — and per rerun token (RERUN_ANNOTATION) when one asks for another run of the same
    generation — at most 63 characters (it becomes a label value)."""
    return bounded_name(evaluation, _run_suffix(generation, rerun), 63)


def answer_job_name(evaluation: str, generation: int, rerun: str | None = None) -> str:
    """The run's answer Job (Indexed, one pod per shard): `<judge Job>-answer` when it fits."""
    return bounded_name(evaluation, _run_suffix(generation, rerun) + "-answer", ANSWER_JOB_NAME_LIMIT)


def judge_config_name(evaluation: str, generation: int, rerun: str | None = None) -> str:
    """The judge's RunConfig, made when the answers are in (it names the shards that failed)."""
    return bounded_name(evaluation, _run_suffix(generation, rerun) + "-judge", 253)


def claim_name(evaluation: str, generation: int) -> str:
    """The generation's answers volume: a rerun of the generation resumes on it."""
    return bounded_name(evaluation, f"-g{generation}-answers", 253)


def answer_policy_name(evaluation: str) -> str:
    return bounded_name(evaluation, "-answer-egress", 253)


def network_probe_name(evaluation: str, generation: int) -> str:
    """The network probe's pod (build/network_probe.py), one per generation."""
    return _child_name(evaluation, "netprobe", f"g{generation}")


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
