"""The runner Jobs: the pod failure policy (which exits fail the Job at once, which are not counted) and
the Job's spec around the pod template."""

from __future__ import annotations

from typing import Literal

from assay_operator.objects.base import KubeModel, ObjectMeta
from assay_operator.objects.pod import PodTemplateSpec


class PodConditionPattern(KubeModel):
    type: str


class ExitCodesRequirement(KubeModel):
    container_name: str
    operator: Literal["In", "NotIn"]
    values: list[int]


class PodFailurePolicyRule(KubeModel):
    action: Literal["Ignore", "FailJob", "Count", "FailIndex"]
    on_pod_conditions: list[PodConditionPattern] | None = None
    on_exit_codes: ExitCodesRequirement | None = None


class PodFailurePolicy(KubeModel):
    rules: list[PodFailurePolicyRule]


class JobSpec(KubeModel):
    active_deadline_seconds: int
    ttl_seconds_after_finished: int
    pod_failure_policy: PodFailurePolicy
    template: PodTemplateSpec
    backoff_limit: int | None = None
    """Retries of the Job's pod; an Indexed Job of shards counts them per index instead."""
    completion_mode: Literal["Indexed"] | None = None
    completions: int | None = None
    parallelism: int | None = None
    backoff_limit_per_index: int | None = None
    """Indexed: each index (shard) is retried alone, this many times."""
    suspend: bool | None = None
    """True when a queue (Kueue) admits the Job: it starts when Kueue resumes it."""


class Job(KubeModel):
    api_version: Literal["batch/v1"] = "batch/v1"
    kind: Literal["Job"] = "Job"
    metadata: ObjectMeta
    spec: JobSpec
