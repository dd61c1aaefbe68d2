"""Typed views of the Kubernetes objects the operator reads: Jobs, their pods and the Evaluation as the watch
delivers it. Parsed once where a body enters (a kopf event, a read or a list), then handed to the readers.

Only the fields the operator reads are declared (`extra="ignore"`: everything else the apiserver sends is
dropped); every field has a default, so an object without a status, or with a field set to null, reads as
one that says nothing (the raw readers' `(x or {})`). The counterpart of objects.py, which builds children.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel


class View(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _nulls_say_nothing(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {key: value for key, value in data.items() if value is not None}
        return data

    @classmethod
    def of(cls, body: Mapping[str, Any]) -> Self:
        """The view of a raw body (a kopf body, or a client object made plain with kube.plain)."""
        return cls.model_validate(body)


class OwnerReference(View):
    kind: str = ""
    name: str = ""
    uid: str = ""


class Meta(View):
    name: str = ""
    namespace: str = ""
    uid: str = ""
    generation: int | None = None
    creation_timestamp: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    owner_references: list[OwnerReference] = Field(default_factory=list)

    def owned_by(self, owner_uid: str) -> bool:
        """An owner reference names this very object (not a deleted namesake)."""
        return any(ref.uid == owner_uid for ref in self.owner_references)

    def owner(self, kind: str) -> OwnerReference | None:
        return next((ref for ref in self.owner_references if ref.kind == kind), None)


class Condition(View):
    type: str = ""
    status: str = ""
    reason: str | None = None
    message: str | None = None
    observed_generation: int | None = None


def holds(conditions: list[Condition], kind: str) -> Condition | None:
    """The condition of this kind when its status is True."""
    return next((c for c in conditions if c.type == kind and c.status == "True"), None)


class Object(View):
    """Any object, for what its metadata says (who owns it, its name and labels)."""

    metadata: Meta = Meta()


# --- a pod -----------------------------------------------------------------------------------------------


class Terminated(View):
    exit_code: int | None = None
    reason: str | None = None
    message: str | None = None


class Running(View):
    """A container runs (what it says beyond that is not read)."""


class ContainerState(View):
    running: Running | None = None
    terminated: Terminated | None = None


class ContainerStatus(View):
    name: str = ""
    state: ContainerState = ContainerState()
    last_state: ContainerState = ContainerState()


class PodStatus(View):
    phase: str | None = None
    reason: str | None = None
    conditions: list[Condition] = Field(default_factory=list)
    init_container_statuses: list[ContainerStatus] = Field(default_factory=list)
    container_statuses: list[ContainerStatus] = Field(default_factory=list)


class Pod(Object):
    status: PodStatus = PodStatus()

    @property
    def containers(self) -> list[ContainerStatus]:
        """Every container's status, the init containers first (the pod's order)."""
        return [*self.status.init_container_statuses, *self.status.container_statuses]

    def container(self, name: str) -> ContainerStatus | None:
        return next((c for c in self.containers if c.name == name), None)

    @property
    def started(self) -> bool:
        """A container of the pod runs or ran: whatever kept it from starting is past."""
        return any(c.state.running is not None or c.state.terminated is not None for c in self.containers)


# --- a Job -----------------------------------------------------------------------------------------------


class JobSpec(View):
    completions: int | None = None
    suspend: bool | None = None


class JobStatus(View):
    conditions: list[Condition] = Field(default_factory=list)
    completed_indexes: str | None = None
    failed_indexes: str | None = None
    start_time: str | None = None


class Job(Object):
    spec: JobSpec = JobSpec()
    status: JobStatus = JobStatus()

    def condition(self, kind: str) -> Condition | None:
        """The Job's condition of this kind when it holds ("Complete", "Failed")."""
        return holds(self.status.conditions, kind)

    @property
    def finished(self) -> bool:
        return self.condition("Complete") is not None or self.condition("Failed") is not None
