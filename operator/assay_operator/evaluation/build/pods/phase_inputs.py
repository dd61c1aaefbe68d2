"""The inputs every phase reads (pure): the brain, the suite's public part and its KB, plus the answer keys
where the judges run or the customers where the agents answer — mounted from snapshots, or split in the pod
by an init container (a bundled or OCI suite), which alone holds the install's registry access."""

from __future__ import annotations

from dataclasses import dataclass

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build.layout import (
    BRAIN_DIR,
    CUSTOMER_DIR,
    CUSTOMERS_PATH,
    KB_DIR,
    KEY_DIR,
    REGISTRY_AUTH_DIR,
    REGISTRY_CA_DIR,
    SPLIT_CONTAINER,
    SUITE_DIR,
    TMP_DIR,
)
from assay_operator.evaluation.build.names import ANNOTATION_SUITE_ARTIFACT
from assay_operator.evaluation.build.pods.parts import config_map_volume, container, empty_dir, env, mount
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.evaluation.build.suite_split import KEYS_FILE
from assay_operator.settings import Settings
from assay_runner.contract import OCI_SCHEME, REGISTRY_CA_ENV


@dataclass
class Inputs:
    """What a phase reads of the run's inputs: volumes, read-only mounts, and for a bundled suite the init
    container that splits it in the pod (runner code, no agent) into an emptyDir per part."""

    volumes: list[k8s.Volume]
    mounts: list[k8s.VolumeMount]
    """brain, the suite's public part, the KB — and the key where the judges run, the customers part where
    the agents answer (the answer container's alone: its runner plays the customers)."""
    split: k8s.Container | None


def inputs(
    spec: EvaluationSpec,
    snapshots: Snapshots,
    settings: Settings,
    resources: dict[str, str],
    *,
    with_key: bool,
) -> Inputs:
    """`with_key`: the judge phase. The answer phase never has the key (a ConfigMap suite's key is not even
    a volume of its pod; a bundled or OCI suite's split writes it nowhere in that pod); it
    mounts the customers part instead (a conversational suite's: a ConfigMap snapshot, or the split's third
    emptyDir), which the judge phase has no use for (its key holds the same)."""
    volumes = [config_map_volume("brain", snapshots.brain)]
    mounts = [mount("brain", BRAIN_DIR, read_only=True), mount("suite", SUITE_DIR, read_only=True)]
    split = None
    if snapshots.suite is not None and snapshots.key is not None:
        volumes.append(config_map_volume("suite", snapshots.suite))
        if with_key:
            volumes.append(config_map_volume("key", snapshots.key))
        elif snapshots.customer is not None:
            volumes.append(config_map_volume("customer", snapshots.customer))
            mounts.append(mount("customer", CUSTOMER_DIR, read_only=True))
    else:  # a bundled or OCI suite: split in the pod, one emptyDir per part it needs
        volumes += [empty_dir("suite"), empty_dir("split-tmp")]
        split_mounts = [mount("suite", SUITE_DIR), mount("split-tmp", TMP_DIR)]
        if with_key:
            volumes.append(empty_dir("key"))
            split_mounts.append(mount("key", KEY_DIR))
        # The answer phase's split writes the key nowhere: not even its init container leaves it on a volume.
        parts = ["--keys", f"{KEY_DIR}/{KEYS_FILE}"] if with_key else ["--customer", CUSTOMERS_PATH]
        if not with_key:  # written only for a conversational suite; the answer container's alone
            volumes.append(empty_dir("customer"))
            split_mounts.append(mount("customer", CUSTOMER_DIR))
            mounts.append(mount("customer", CUSTOMER_DIR, read_only=True))
        split_env = [env("PYTHONDONTWRITEBYTECODE", "1")]
        source = f"{settings.bundled_root.rstrip('/')}/{spec.suite.bundled}"
        if spec.suite.oci is not None:
            source = oci_source(spec.suite.oci)
            registry = registry_access(settings)
            volumes += registry.volumes
            split_mounts += registry.mounts
            split_env += [*registry.env, env("HOME", TMP_DIR), env("ASSAY_CACHE", f"{TMP_DIR}/cache")]
        args = ["split", source, "--public", SUITE_DIR, *parts]
        split = container(SPLIT_CONTAINER, settings, args, split_env, split_mounts, resources)
    if spec.suite.kb_config_map is not None:
        volumes.append(config_map_volume("kb", spec.suite.kb_config_map.name))
        mounts.append(mount("kb", KB_DIR, read_only=True))
    if with_key:
        mounts.append(mount("key", KEY_DIR, read_only=True))
    return Inputs(volumes, mounts, split)


def suite_annotations(spec: EvaluationSpec) -> dict[str, str]:
    """A Job's note of the suite artifact its pods pull (an OCI suite only): a failed pull is named by it."""
    if spec.suite.oci is None:
        return {}
    return {ANNOTATION_SUITE_ARTIFACT: spec.suite.oci.rsplit("@", 1)[1]}


def oci_source(reference: str) -> str:
    """`assay split`'s argument for a suite artifact (the runner pulls an `oci://` suite by its digest)."""
    return reference if reference.startswith(OCI_SCHEME) else f"{OCI_SCHEME}{reference}"


@dataclass(frozen=True)
class RegistryAccess:
    """The install's registry CA and credentials (operator settings, never the Evaluation's), as the init
    container that pulls a suite artifact mounts them: no other container of the pod has them."""

    volumes: list[k8s.Volume]
    mounts: list[k8s.VolumeMount]
    env: list[k8s.EnvVar]


def registry_access(settings: Settings) -> RegistryAccess:
    volumes, mounts, environment = [], [], []
    if settings.suite_registry_ca_secret:
        name, _, key = settings.suite_registry_ca_secret.partition("/")
        items = [k8s.KeyToPath(key=key or "ca.crt", path="ca.crt")]
        source = k8s.SecretVolumeSource(secret_name=name, items=items, default_mode=0o444)
        volumes.append(k8s.Volume(name="registry-ca", secret=source))
        mounts.append(mount("registry-ca", REGISTRY_CA_DIR, read_only=True))
        environment.append(env(REGISTRY_CA_ENV, f"{REGISTRY_CA_DIR}/ca.crt"))
    if settings.suite_registry_auth_secret:
        items = [k8s.KeyToPath(key=".dockerconfigjson", path="config.json")]
        source = k8s.SecretVolumeSource(
            secret_name=settings.suite_registry_auth_secret, items=items, default_mode=0o444
        )
        volumes.append(k8s.Volume(name="registry-auth", secret=source))
        mounts.append(mount("registry-auth", REGISTRY_AUTH_DIR, read_only=True))
        environment.append(env("DOCKER_CONFIG", REGISTRY_AUTH_DIR))
    return RegistryAccess(volumes, mounts, environment)
