"""The chart against the real control plane: every rendering passes `kubectl apply --dry-run=server` in a
namespace that enforces Pod Security `restricted`; the installed RBAC gives the operator's ServiceAccount
exactly the permissions in the `kubectl auth can-i` matrix below, checked with its real token; the operator
pod and the runner pod the operator builds are admitted under `restricted`; and the documented CRD upgrade
path works where `helm upgrade` alone leaves the CRD behind."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev.cluster import ControlPlane
from assay_dev.cluster.crds import wait_established
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build.answer_job import build_answer_job
from assay_operator.evaluation.build.judge_job import build_judge_job
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.settings import Settings
from tests.chart.conftest import CHART, VALUES, Helm

pytestmark = pytest.mark.cluster

Obj = dict[str, Any]
RESTRICTED = {
    "pod-security.kubernetes.io/enforce": "restricted",
    "pod-security.kubernetes.io/enforce-version": "latest",
    "pod-security.kubernetes.io/warn": "restricted",
    "pod-security.kubernetes.io/warn-version": "latest",
}
# A minimal stand-in for the Prometheus Operator's CRD, so the ServiceMonitor can be dry-run.
SERVICE_MONITOR_CRD: Obj = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "servicemonitors.monitoring.coreos.com"},
    "spec": {
        "group": "monitoring.coreos.com",
        "scope": "Namespaced",
        "names": {"kind": "ServiceMonitor", "plural": "servicemonitors", "singular": "servicemonitor"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        ],
    },
}


def objects(text: str) -> list[Obj]:
    return [o for o in yaml.safe_load_all(text) if o]


def as_yaml(items: list[Obj]) -> str:
    return yaml.safe_dump_all(items, sort_keys=False)


def apply(cp: ControlPlane, manifest: str, *args: str) -> None:
    cp.kubectl("apply", "--server-side", "--force-conflicts", "-f", "-", *args, input=manifest)


@pytest.fixture(scope="module")
def service_monitor_crd(control_plane: ControlPlane) -> None:
    apply(control_plane, json.dumps(SERVICE_MONITOR_CRD))
    wait_established(control_plane.api, ["servicemonitors.monitoring.coreos.com"])


@pytest.fixture
def other_namespace(control_plane: ControlPlane) -> Iterator[str]:
    name = f"other-{secrets.token_hex(4)}"
    control_plane.create_namespace(name)
    yield name
    control_plane.delete_namespace(name)


def restrict(cp: ControlPlane, namespace: str) -> None:
    cp.kubectl("label", "namespace", namespace, "--overwrite", *(f"{k}={v}" for k, v in RESTRICTED.items()))


# --- every values file: server-side dry run under Pod Security `restricted` --------------------------------


@pytest.mark.parametrize("values", sorted(p.stem for p in VALUES.glob("*.yaml")))
def test_rendering_passes_server_dry_run_under_restricted(
    control_plane: ControlPlane,
    helm: Helm,
    crd: None,
    service_monitor_crd: None,
    namespace: str,
    other_namespace: str,
    values: str,
) -> None:
    for ns in (namespace, other_namespace):
        restrict(control_plane, ns)
    watched = yaml.safe_load((VALUES / f"{values}.yaml").read_text()).get("watchNamespaces")
    extra = ["--set-json", f"watchNamespaces={json.dumps([namespace, other_namespace])}"] if watched else []
    rendered = helm.template(VALUES / f"{values}.yaml", namespace=namespace, extra=extra)
    assert objects(rendered)
    result = control_plane.kubectl("apply", "--dry-run=server", "-f", "-", input=rendered, check=False)
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr
    assert "created (server dry run)" in result.stdout


def test_dry_run_catches_a_pod_that_restricted_would_refuse(
    control_plane: ControlPlane, helm: Helm, namespace: str
) -> None:
    """The check above can fail: the same Deployment with a root, privileged container is warned about."""
    restrict(control_plane, namespace)
    deployment = next(o for o in objects(helm.template(namespace=namespace)) if o["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    result = control_plane.kubectl(
        "apply", "--dry-run=server", "-f", "-", input=json.dumps(deployment), check=False
    )
    assert 'would violate PodSecurity "restricted:latest"' in result.stderr
    assert "privileged" in result.stderr


# --- the operator's permissions, with its real token -------------------------------------------------------

ALLOWED = [
    *[(v, "evaluations.assay.dev", "") for v in ("get", "list", "watch", "patch", "create", "delete")],
    ("patch", "evaluations.assay.dev", "status"),
    ("update", "evaluations.assay.dev", "finalizers"),
    *[(v, "campaigns.assay.dev", "") for v in ("get", "list", "watch", "patch")],
    ("patch", "campaigns.assay.dev", "status"),
    ("update", "campaigns.assay.dev", "finalizers"),
    *[(v, "jobs.batch", "") for v in ("create", "get", "list", "watch", "delete")],
    *[(v, "pods", "") for v in ("get", "list", "watch")],
    ("get", "configmaps", ""),
    ("create", "configmaps", ""),
    ("create", "events", ""),
    ("create", "events.events.k8s.io", ""),
]
DENIED = [
    *[(v, "secrets", "") for v in ("get", "list", "watch")],
    ("create", "pods", "exec"),
    ("*", "*", ""),
    ("create", "pods", ""),
    ("update", "evaluations.assay.dev", ""),
    *[(v, "campaigns.assay.dev", "") for v in ("create", "delete", "update")],
    ("update", "configmaps", ""),
    ("delete", "configmaps", ""),
    ("create", "serviceaccounts", "token"),
    ("create", "rolebindings.rbac.authorization.k8s.io", ""),
]


def can_i(
    cp: ControlPlane, kubeconfig: Path, verb: str, resource: str, subresource: str, namespace: str
) -> bool:
    args = ["auth", "can-i", verb, resource, "-n", namespace]
    if subresource:
        args.append(f"--subresource={subresource}")
    result = cp.kubectl(*args, kubeconfig=kubeconfig, check=False)
    assert result.stdout.strip() in ("yes", "no"), result.stderr
    return result.stdout.strip() == "yes"


def install_rbac(cp: ControlPlane, helm: Helm, namespace: str, *extra: str) -> list[Obj]:
    kinds = {"ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}
    rbac_objects = [o for o in objects(helm.template(namespace=namespace, extra=extra)) if o["kind"] in kinds]
    apply(cp, as_yaml(rbac_objects))
    return rbac_objects


def test_can_i_matrix_namespaced(
    control_plane: ControlPlane, helm: Helm, crd: None, namespace: str, other_namespace: str
) -> None:
    install_rbac(control_plane, helm, namespace)
    token = control_plane.token_kubeconfig(namespace, "assay-operator")
    matrix = {
        (verb, resource, sub): can_i(control_plane, token, verb, resource, sub, namespace)
        for verb, resource, sub in ALLOWED + DENIED
    }
    assert [row for row in ALLOWED if not matrix[row]] == [], "missing permissions"
    assert [row for row in DENIED if matrix[row]] == [], "permissions beyond the operator's needs"
    # Namespaced: nothing in a namespace it does not watch, nothing cluster-scoped.
    for verb, resource in (
        ("create", "jobs.batch"),
        ("list", "evaluations.assay.dev"),
        ("get", "configmaps"),
    ):
        assert not can_i(control_plane, token, verb, resource, "", other_namespace), (verb, resource)
    for verb, resource in (("list", "nodes"), ("list", "namespaces"), ("list", "customresourcedefinitions")):
        assert not can_i(control_plane, token, verb, resource, "", namespace), (verb, resource)


def test_can_i_matrix_cluster_wide(
    control_plane: ControlPlane, helm: Helm, crd: None, namespace: str, other_namespace: str
) -> None:
    installed = install_rbac(control_plane, helm, namespace, "--set", "rbac.clusterWide=true")
    try:
        token = control_plane.token_kubeconfig(namespace, "assay-operator")
        for ns in (namespace, other_namespace):
            assert [row for row in ALLOWED if not can_i(control_plane, token, *row, ns)] == [], ns
            assert [row for row in DENIED if can_i(control_plane, token, *row, ns)] == [], ns
        assert not can_i(control_plane, token, "list", "nodes", "", namespace)
    finally:
        for obj in installed:
            if obj["kind"].startswith("Cluster"):
                control_plane.kubectl(
                    "delete", obj["kind"].lower(), obj["metadata"]["name"], "--ignore-not-found"
                )


# --- Pod Security `restricted`: the operator pod and the runner pod -----------------------------------------


def pod_from_template(name: str, template: Obj) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": template["metadata"].get("labels", {})},
        "spec": template["spec"],
    }


def create_dry_run(cp: ControlPlane, namespace: str, obj: Obj) -> tuple[int, str]:
    result = cp.kubectl(
        "create", "--dry-run=server", "-n", namespace, "-f", "-", input=json.dumps(obj), check=False
    )
    return result.returncode, result.stderr


def test_operator_and_runner_pods_are_admitted_under_restricted(
    control_plane: ControlPlane, helm: Helm, namespace: str
) -> None:
    restrict(control_plane, namespace)
    rendered = objects(helm.template(namespace=namespace))
    apply(control_plane, as_yaml([o for o in rendered if o["kind"] == "ServiceAccount"]))
    deployment = next(o for o in rendered if o["kind"] == "Deployment")
    operator_pod = pod_from_template("assay-operator-probe", deployment["spec"]["template"])

    spec = EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "brain"}},
            "suite": {"configMap": {"name": "suite"}, "kbConfigMap": {"name": "kb"}},
            # A command agent and every token: both pods with all their volumes (secrets, the emptyDir over
            # the bundled examples, the answers claim).
            "agent": {"kind": "command", "model": "m", "command": ["agent", "{prompt_file}"]},
            "gateway": "http://gateway:4000/v1",
            "gatewayTokenSecretRef": {"name": "gateway"},
            "judgeGatewayTokenSecretRef": {"name": "judge"},
            "mlflow": {"trackingUri": "http://mlflow:5000", "tokenSecretRef": {"name": "mlflow"}},
        }
    )
    snapshots = Snapshots(
        "probe-brain-0123456789", "sha256:0123456789", "probe-suite-1", "sha256:1", "probe-key-2", "sha256:2"
    )
    settings = Settings(runner_image="r:1")
    answers = build_answer_job(spec, "probe", 1, snapshots, settings).body()
    answer_pod = pod_from_template("answer-probe", answers["spec"]["template"])
    job = build_judge_job(spec, "probe", 1, snapshots, settings, 600).body()
    runner_pod = pod_from_template("runner-probe", job["spec"]["template"])

    for obj in (deployment, answers, job, operator_pod, answer_pod, runner_pod):
        code, stderr = create_dry_run(control_plane, namespace, obj)
        assert code == 0 and "Warning" not in stderr, f"{obj['kind']}: {stderr}"

    # Enforcement is on: the runner pod with a root UID and no seccomp profile is refused.
    broken = json.loads(json.dumps(runner_pod))
    broken["spec"]["securityContext"] = {"runAsUser": 0}
    code, stderr = create_dry_run(control_plane, namespace, broken)
    assert code != 0 and 'violates PodSecurity "restricted:latest"' in stderr


# --- the CRD upgrade path ---------------------------------------------------------------------------------


def renamed_crd(group: str, description: str) -> str:
    """The chart's CRD under another group (a CRD of its own, so the shared one is not touched)."""
    text = (CHART / "crds" / "assay.dev_evaluations.yaml").read_text().replace("assay.dev", group)
    crd = next(o for o in objects(text) if o["kind"] == "CustomResourceDefinition")
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = description
    return yaml.safe_dump(crd, sort_keys=False)


def crd_description(cp: ControlPlane, name: str) -> str:
    got = json.loads(cp.kubectl("get", "crd", name, "-o", "json").stdout)
    return str(got["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"])


def test_helm_upgrade_leaves_the_crd_and_server_side_apply_upgrades_it(
    control_plane: ControlPlane, helm: Helm, namespace: str, tmp_path: Path
) -> None:
    group = f"upgrade-{secrets.token_hex(3)}.assay.dev"
    name = f"evaluations.{group}"
    chart = tmp_path / "chart"
    (chart / "crds").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: crd-upgrade\nversion: 0.1.0\n")
    crd_file = chart / "crds" / "evaluations.yaml"
    crd_file.write_text(renamed_crd(group, "version one"))
    kubeconfig = control_plane.kubeconfig
    try:
        helm.run("install", "crd-upgrade", str(chart), "-n", namespace, kubeconfig=kubeconfig)
        wait_established(control_plane.api, [name])
        assert crd_description(control_plane, name) == "version one"

        crd_file.write_text(renamed_crd(group, "version two"))
        helm.run("upgrade", "crd-upgrade", str(chart), "-n", namespace, kubeconfig=kubeconfig)
        assert crd_description(control_plane, name) == "version one"  # Helm never upgrades crds/

        # Without --force-conflicts the apply stops: Helm's field manager owns the changed field.
        plain = control_plane.kubectl("apply", "--server-side", "-f", str(chart / "crds"), check=False)
        assert plain.returncode != 0 and "conflict" in plain.stderr.lower(), plain.stderr
        # The documented step (charts/assay/README.md), over a CRD that Helm created.
        control_plane.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(chart / "crds"))
        assert crd_description(control_plane, name) == "version two"
    finally:
        control_plane.kubectl("delete", "crd", name, "--ignore-not-found", "--wait=false")
