"""The parts both runner pods are made of (pure): volumes, mounts, environment, the runner container, the
pod's own settings, and the inputs every phase reads — the brain, the suite's public part and its KB, plus
the answer keys where the judges run. answer_job.py and judge_job.py compose them. One module each: the
pod's parts (`parts`), the inputs (`phase_inputs`), the token Secrets (`tokens`); every name is re-exported
here.

Users cannot choose the image, command, service account, volumes or env: they come from the operator's
settings and these modules only.
"""

from __future__ import annotations

from assay_operator.evaluation.build.pods.parts import (
    EXIT_BAD_INPUT,
    base_env,
    claim_volume,
    config_map_volume,
    container,
    empty_dir,
    env,
    evidence_mount,
    failure_rules,
    gateway_env,
    mount,
    pod_spec,
    resources_of,
    restricted,
    spec_hash,
    spread_over_nodes,
)
from assay_operator.evaluation.build.pods.phase_inputs import (
    Inputs,
    RegistryAccess,
    inputs,
    oci_source,
    registry_access,
    suite_annotations,
)
from assay_operator.evaluation.build.pods.tokens import Token, token, token_secrets

__all__ = [
    "EXIT_BAD_INPUT",
    "Inputs",
    "RegistryAccess",
    "Token",
    "base_env",
    "claim_volume",
    "config_map_volume",
    "container",
    "empty_dir",
    "env",
    "evidence_mount",
    "failure_rules",
    "gateway_env",
    "inputs",
    "mount",
    "oci_source",
    "pod_spec",
    "registry_access",
    "resources_of",
    "restricted",
    "spec_hash",
    "spread_over_nodes",
    "suite_annotations",
    "token",
    "token_secrets",
]
