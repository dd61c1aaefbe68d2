"""What a run starts from, read from the cluster: the validated spec, the brain's files and a ConfigMap
suite split at its trust boundary into immutable snapshots; a missing ConfigMap waits, a bad one refuses."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from assay_operator import kube
from assay_operator.evaluation import api
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build.snapshots import (
    build_suite_snapshot,
    text_digest,
)
from assay_operator.evaluation.build.suite_split import (
    SuiteSplitError,
    suite_parts,
    threshold_override_problems,
)
from assay_operator.evaluation.steps.run_request import Request, _invalid, _wait_for
from assay_operator.objects import ConfigMap


def _config_map(namespace: str, name: str) -> Any | None:
    return kube.if_present(lambda: kube.core().read_namespaced_config_map(name, namespace))


def _validated_spec(request: Request) -> EvaluationSpec:
    try:
        return request.evaluation.spec
    except ValidationError as exc:
        _invalid(request, f"invalid spec: {api.problems(exc)}")


def _brain_files(request: Request, evaluation: EvaluationSpec) -> tuple[dict[str, str], dict[str, str]]:
    """The brain's files (text, binary); waits while the brain or a suite ConfigMap does not exist."""
    brain = _config_map(request.namespace, evaluation.brain.config_map.name)
    if brain is None:
        _wait_for(request, "Brain", evaluation.brain.config_map.name)
    for ref in (evaluation.suite.config_map, evaluation.suite.kb_config_map):
        if ref is not None and _config_map(request.namespace, ref.name) is None:
            _wait_for(request, "Suite", ref.name)
    return dict(brain.data or {}), dict(brain.binary_data or {})


def _suite_snapshots(request: Request, evaluation: EvaluationSpec) -> list[tuple[str, ConfigMap, str]]:
    """A ConfigMap suite split at its trust boundary into immutable snapshots: (part, object, digest) for the
    public part (`suite`), the answer keys (`key`) and, for a suite with conversational tickets, the
    customers (`customer`: the answer pods' runner plays them). A bundled suite is split in the pod."""
    ref = evaluation.suite.config_map
    if ref is None:
        return []
    found = _config_map(request.namespace, ref.name)
    if found is None:
        _wait_for(request, "Suite", ref.name)
    data = dict(found.data or {})
    try:
        public, key, customers = suite_parts(data)
        overrides = threshold_override_problems(
            data, (evaluation.gate.thresholds or {}) if evaluation.gate else {}
        )
    except SuiteSplitError as exc:
        _invalid(request, f"suite ConfigMap {ref.name!r} cannot be split into questions and keys: {exc}")
    if overrides:
        _invalid(request, f"suite ConfigMap {ref.name!r}: " + "; ".join(overrides))
    parts = []
    for part, data in (("suite", public), ("key", key), ("customer", customers or {})):
        if not data:
            continue
        digest = text_digest(data)
        parts.append((part, build_suite_snapshot(request.name, part, data, digest), digest))
    return parts
