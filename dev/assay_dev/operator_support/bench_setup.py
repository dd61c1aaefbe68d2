"""The set-up the operator's benchmarks share: a namespace holding a brain and the operator's grant, and an
operator that runs every Evaluation with the fake runner (its canned summaries make a run cost the runner
almost nothing, so what is measured is the operator)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assay_dev.cluster import ControlPlane
from assay_dev.cluster.kubeapi import Obj
from assay_dev.operator_support.images import images
from assay_dev.operator_support.manifests import brain_config_map
from assay_dev.operator_support.operator_process import OperatorProcess, grant_operator, other_checkout
from assay_dev.operator_support.paths import config_maps_path


def bench_namespace(
    plane: ControlPlane, namespace: str, brain: str, rules: Sequence[Obj] | None = None
) -> None:
    """`namespace` with the v1 brain as ConfigMap `brain` and the operator's ServiceAccount and Role (its
    own rules unless `rules` is given)."""
    plane.create_namespace(namespace)
    plane.api.create(config_maps_path(namespace), brain_config_map(brain, "v1"))
    grant_operator(plane.api, namespace, rules)


def fake_runner_operator(
    plane: ControlPlane,
    namespace: str,
    log: Path,
    source: Path | None = None,
    env: dict[str, str] | None = None,
) -> OperatorProcess:
    """An operator watching `namespace`, running the fake runner, from this checkout or `source` (another
    version, for a before/after in one run), not started yet."""
    return OperatorProcess(
        plane,
        [namespace],
        log,
        image=images().fake_runner,
        env={**other_checkout(source), **(env or {})},
    )
