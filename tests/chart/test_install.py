"""`helm install` of the chart on the real control plane, end to end: the Deployment's pod runs the REAL
operator (with the chart's ServiceAccount and its token, RBAC, env, probes' port and arbitrary non-root UID),
which turns the bundled example into runner Jobs whose pods run the REAL runner; the verdicts are read with
`kubectl wait`, as users do. Both pods run from the project's images (`make images`), named by digest
through the chart's `image.digest` values, under runc with the chart's securityContext unchanged. The
install itself is dev/assay_dev/cluster/assay_install.py, shared with `make demo`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from assay_dev.cluster import ControlPlane, LocalKubelet, assay_install
from assay_dev.cluster.ports import free_port
from assay_dev.cluster.wait import wait_until
from tests.chart.conftest import Helm

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def workload_controllers(control_plane: ControlPlane) -> Iterator[None]:
    with assay_install.workload_controllers(control_plane):
        yield


@pytest.fixture(scope="module")
def images(kubelet: LocalKubelet) -> assay_install.LocalImages:
    return assay_install.local_images()


def operator_pods(cp: ControlPlane, namespace: str) -> list[dict[str, Any]]:
    selector = "app.kubernetes.io/component=operator"
    pods: list[dict[str, Any]] = cp.api.get(f"/api/v1/namespaces/{namespace}/pods", labelSelector=selector)[
        "items"
    ]
    return pods


def test_helm_install_runs_the_bundled_example(
    control_plane: ControlPlane,
    kubelet: LocalKubelet,
    helm: Helm,
    crd: None,
    workload_controllers: None,
    images: assay_install.LocalImages,
    namespace: str,
) -> None:
    install = assay_install.helm_install_args(namespace, free_port(), free_port(), images)
    helm.run(*install, kubeconfig=control_plane.kubeconfig)
    pods = operator_pods(control_plane, namespace)
    assert len(pods) == 1
    pod = pods[0]["metadata"]["name"]
    assert pods[0]["spec"]["serviceAccountName"] == "assay-operator"
    assert pods[0]["spec"]["containers"][0]["image"] == images.operator.reference
    assert pods[0]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] is True
    try:
        api = control_plane.api
        evaluations = f"/apis/assay.dev/v1alpha1/namespaces/{namespace}/evaluations"
        for version in ("v1", "v0"):
            brain = f"brain-{version}"
            config_map = assay_install.brain_config_map(brain, version)
            api.create(f"/api/v1/namespaces/{namespace}/configmaps", config_map)
            api.create(evaluations, assay_install.example_evaluation(f"support-{version}", brain, version))

        def kubectl_wait(condition: str, name: str) -> None:
            wait = ["wait", f"--for={condition}", f"evaluation/{name}", "-n", namespace, "--timeout=180s"]
            result = control_plane.kubectl(*wait, timeout=200, check=False)
            if result.returncode != 0:
                status = api.get(f"{evaluations}/{name}").get("status")
                pytest.fail(
                    f"{result.stderr}\n{status}\n"
                    f"--- operator log (tail)\n{kubelet.logs(namespace, pod)[-6000:]}"
                )

        kubectl_wait("condition=Ready", "support-v1")
        kubectl_wait("condition=Completed", "support-v0")
        listing = "{range .items[*]}{.metadata.name}={.status.verdict} {end}"
        verdicts = control_plane.kubectl("get", "evaluations", "-n", namespace, "-o", f"jsonpath={listing}")
        assert sorted(verdicts.stdout.split()) == ["support-v0=Blocked", "support-v1=Pass"]
        # The runner Job was built from the chart's settings.
        job = api.get(f"/apis/batch/v1/namespaces/{namespace}/jobs/support-v1-g1")
        assert job["spec"]["template"]["spec"]["containers"][0]["image"] == images.runner.reference
    finally:
        logs = kubelet.logs(namespace, pod)
        helm.run(
            "uninstall", "assay", "--namespace", namespace, "--wait", kubeconfig=control_plane.kubeconfig
        )
    wait_until(lambda: not operator_pods(control_plane, namespace), timeout=60, what="the operator pod to go")
    assert "Traceback" not in logs, logs[-4000:]


def test_all_namespaces_mode_reconciles_namespaces_created_after_install(
    control_plane: ControlPlane,
    kubelet: LocalKubelet,
    helm: Helm,
    crd: None,
    workload_controllers: None,
    images: assay_install.LocalImages,
    namespace: str,
) -> None:
    """`watchAllNamespaces=true`: one ClusterRole (the same rules), and Evaluations in two namespaces that did
    not exist at install time get their verdicts."""
    install = assay_install.helm_install_args(
        namespace, free_port(), free_port(), images, ("--set", "watchAllNamespaces=true")
    )
    helm.run(*install, kubeconfig=control_plane.kubeconfig)
    api = control_plane.api
    bindings = api.get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings")["items"]
    assert any(b["metadata"]["name"] == f"assay-operator-{namespace}" for b in bindings)
    assert api.get(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles")["items"] == []
    pod = operator_pods(control_plane, namespace)[0]["metadata"]["name"]
    tenants = {f"{namespace[:40]}-team-{t}": version for t, version in (("a", "v1"), ("b", "v0"))}
    try:
        for tenant, version in tenants.items():
            control_plane.create_namespace(tenant)
            api.create(
                f"/api/v1/namespaces/{tenant}/configmaps", assay_install.brain_config_map("brain", version)
            )
            api.create(
                f"/apis/assay.dev/v1alpha1/namespaces/{tenant}/evaluations",
                assay_install.example_evaluation("release", "brain", version),
            )
        for tenant in tenants:
            wait = ["wait", "--for=condition=Completed", "evaluation/release", "-n", tenant, "--timeout=240s"]
            result = control_plane.kubectl(*wait, timeout=260, check=False)
            assert result.returncode == 0, (
                f"{result.stderr}\n--- operator log (tail)\n{kubelet.logs(namespace, pod)[-6000:]}"
            )
        verdicts = {
            tenant: api.get(f"/apis/assay.dev/v1alpha1/namespaces/{tenant}/evaluations/release")["status"][
                "verdict"
            ]
            for tenant in tenants
        }
        assert list(verdicts.values()) == ["Pass", "Blocked"]
        for tenant in tenants:
            jobs = api.get(f"/apis/batch/v1/namespaces/{tenant}/jobs")["items"]
            # One answer Job and one judge Job per generation.
            assert sorted(j["metadata"]["name"] for j in jobs) == ["release-g1", "release-g1-answer"]
    finally:
        logs = kubelet.logs(namespace, pod)
        helm.run(
            "uninstall", "assay", "--namespace", namespace, "--wait", kubeconfig=control_plane.kubeconfig
        )
        for tenant in tenants:
            control_plane.delete_namespace(tenant)
    wait_until(lambda: not operator_pods(control_plane, namespace), timeout=60, what="the operator pod to go")
    assert "Traceback" not in logs, logs[-4000:]
