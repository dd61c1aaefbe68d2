"""One Evaluation as one event (or one read of it) shows it, typed once and handed to every step: its
identity (namespace, name, uid), generation, annotations, the typed status and spec, and its status write.
The steps read these fields, never the raw body; the body is kept only for what the Kubernetes clients
take whole (owner references on the children, Events about the object)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from assay_operator import kube
from assay_operator.cluster_views import Object
from assay_operator.evaluation.api import PLURAL, EvaluationSpec, EvaluationStatus
from assay_operator.evaluation.build import names
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.steps.publish import write_status


@dataclass(frozen=True)
class Watched:
    namespace: str
    name: str
    uid: str
    generation: int
    annotations: Mapping[str, str]
    status: EvaluationStatus
    """The status as read: what this event's steps start from (reconcile.py says which fields are read
    back)."""
    body: Mapping[str, Any]
    """The raw object kopf or the apiserver handed over: for owner references and Events only."""

    @classmethod
    def of(cls, body: Mapping[str, Any]) -> Watched:
        meta = body["metadata"]
        return cls(
            namespace=str(meta["namespace"]),
            name=str(meta["name"]),
            uid=str(meta.get("uid") or ""),
            generation=int(meta["generation"]),
            annotations=dict(meta.get("annotations") or {}),
            status=reconcile.parse_status(body.get("status")),
            body=body,
        )

    @classmethod
    def read(cls, namespace: str, name: str) -> Watched | None:
        """The Evaluation as it is now; None when it is gone."""
        body = kube.get_custom(PLURAL, namespace, name)
        return None if body is None else cls.of(body)

    @functools.cached_property
    def spec(self) -> EvaluationSpec:
        """The typed spec, validated once per event (pydantic.ValidationError when it cannot run)."""
        return EvaluationSpec.model_validate(dict(self.body.get("spec") or {}))

    @property
    def rerun(self) -> str | None:
        """The rerun token the annotation asks for (names.RERUN_ANNOTATION), None when unset or blank."""
        return self.annotations.get(names.RERUN_ANNOTATION) or None

    def owns(self, child: Object) -> bool:
        """The child's owner reference names this very object (not a deleted namesake)."""
        return child.metadata.owned_by(self.uid)

    def write(
        self, build: Callable[[], EvaluationStatus] | EvaluationStatus, *, warn: bool = True
    ) -> EvaluationStatus | None:
        """Write the status `build` gives over `status` (publish.write_status); `warn`: a refused write
        also gives this object a Warning Event."""
        return write_status(
            self.namespace,
            self.name,
            build,
            self.status,
            self.generation,
            self.uid,
            self.body if warn else None,
        )
