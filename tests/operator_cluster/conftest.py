"""Fixtures for the operator's end-to-end tests on the real control plane (see docs/control-plane.md).

`control_plane`, `kubelet` and `namespace` come from tests/conftest.py. Here:

- `crd` (session): the committed CRD from crds/, installed once, Established.
- `agents_image` (session): the runner image with the agent CLIs, built only when a selected test uses
  it.
- `images` (session): the runner images, by digest: the REAL runner image (`make images`), the same plus
  the tests' agents and recorded answers (the operator's default here), a fake runner writing canned
  termination messages, and an image whose pull never ends. Pods run them under runc.
- `operators` (per test): starts the REAL operator (`assay-operator`, i.e. kopf) as a subprocess with its
  own ServiceAccount, the Role from `assay_operator.rbac.role_rules()` and a TokenRequest kubeconfig, so a
  missing permission fails a test. Its log goes to a file, shown when the test fails; at the end it is
  stopped with SIGTERM and must exit within the grace period, and its log must hold no traceback.
- `operator` (per test): one such operator watching `namespace`, with the defaults.
- `networked_plane`, `networked_kubelet`, `networked_images` (per module) and `net_namespace` (per test): a
  control plane of the module's own whose node is networked (`local_node(..., networked=True)`: pods on
  their own network, kube-router enforcing NetworkPolicy), its cells without Landlock; issue 37's tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi, LocalKubelet, locate_binaries
from assay_dev.cluster.node import local_node
from assay_dev.operator_support import Images, OperatorProcess
from assay_dev.operator_support.operator_process import new_decision_key
from tests.conftest import ClusterImages

_OPERATORS = pytest.StashKey[list[OperatorProcess]]()
_POD_LOGS = pytest.StashKey[tuple[LocalKubelet, list[str]]]()


@pytest.fixture(scope="session")
def crd(control_plane: ControlPlane) -> dict[str, Any]:
    return support.install_crd(control_plane.api)


@pytest.fixture(scope="session")
def images(kubelet: LocalKubelet, cluster_images: ClusterImages) -> Images:
    return support.register_images(kubelet, cluster_images.runner)


@pytest.fixture(scope="session")
def agents_image(cluster_images: ClusterImages, images: Images) -> str:
    """The runner image with the pinned agent CLIs (built at collection time when a test using this fixture
    is selected: tests/conftest.py's AGENT_FIXTURES)."""
    if cluster_images.runner_agents is None:
        pytest.fail("the runner-agents image was not prepared", pytrace=False)
    return cluster_images.runner_agents


@pytest.fixture
def admin(control_plane: ControlPlane) -> KubeApi:
    return control_plane.api


class StartOperator(Protocol):
    def __call__(
        self,
        namespace: str | Sequence[str],
        *,
        image: str | None = ...,
        env: Mapping[str, str] | None = ...,
        rules: Sequence[dict[str, Any]] | None = ...,
        start: bool = ...,
        expect_problems: bool = ...,
    ) -> OperatorProcess: ...


@pytest.fixture
def operators(
    control_plane: ControlPlane,
    kubelet: LocalKubelet,
    crd: dict[str, Any],
    images: Images,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[StartOperator]:
    started: list[OperatorProcess] = []
    tolerant: set[int] = set()
    request.node.stash[_OPERATORS] = started
    namespaces_seen: list[str] = []
    request.node.stash[_POD_LOGS] = (kubelet, namespaces_seen)
    # One key for the test's operators, as one installation's replicas and upgrades share the chart's Secret:
    # each verdict carries a seal (assay_operator.evaluation.read.verdict_seal) the next operator verifies.
    decision_key = new_decision_key(tmp_path / "operators.decision-key")

    def start(
        namespace: str | Sequence[str],
        *,
        image: str | None = None,
        env: Mapping[str, str] | None = None,
        rules: Sequence[dict[str, Any]] | None = None,
        start: bool = True,
        expect_problems: bool = False,
    ) -> OperatorProcess:
        watched = [namespace] if isinstance(namespace, str) else list(namespace)
        for ns in watched:
            support.grant_operator(control_plane.api, ns, rules)
            namespaces_seen.append(ns)
        process = OperatorProcess(
            control_plane,
            watched,
            tmp_path / f"operator-{len(started)}.log",
            image=image,
            env=env,
            decision_key=decision_key,
        )
        started.append(process)
        if expect_problems:
            tolerant.add(id(process))
        if start:
            process.start()
        return process

    yield start

    failures: list[str] = []
    for process in started:
        if process.popen is None:
            continue
        try:
            process.stop()
        except AssertionError as error:
            failures.append(str(error))
        if process.exit_codes and process.exit_codes[-1] not in (0, -9):
            failures.append(f"assay-operator exited {process.exit_codes[-1]} on SIGTERM")
        if id(process) not in tolerant and (problems := process.problems()):
            failures.append("the operator's log shows errors:\n" + "\n".join(problems[:20]))
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


@pytest.fixture
def operator(operators: StartOperator, namespace: str) -> OperatorProcess:
    return operators(namespace)


@pytest.fixture
def brains(admin: KubeApi, namespace: str) -> Callable[[str], str]:
    """Creates the example brain `version` as ConfigMap `brain-<version>`; returns its name."""

    def create(version: str) -> str:
        name = f"brain-{version}"
        admin.create(support.config_maps_path(namespace), support.brain_config_map(name, version))
        return name

    return create


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """On failure, append each operator's log and the runner pods' logs to the report."""
    report = yield
    if report.failed:
        started: list[OperatorProcess] = item.stash.get(_OPERATORS, [])
        for index, process in enumerate(started):
            report.sections.append((f"assay-operator #{index} log (tail)", process.log_tail(150)))
        kubelet, namespaces = item.stash.get(_POD_LOGS, (None, []))
        if kubelet is not None:
            logs_dir = kubelet.work_dir / "logs"
            for ns in dict.fromkeys(namespaces):
                for folder in sorted(logs_dir.glob(f"{ns}_*")):
                    for file in sorted(folder.glob("*.log")):
                        tail = "\n".join(file.read_text(errors="replace").splitlines()[-25:])
                        report.sections.append((f"pod log {folder.name}/{file.name}", tail))
    return report


@pytest.fixture
def node_without_landlock(kubelet: LocalKubelet) -> Iterator[None]:
    """The node's RuntimeDefault profile refuses the Landlock calls for this test (as containerd 1.6's did:
    docs/runtime.md), so the answer pods' agents run without the cell's sandbox and each cell's `isolation`
    says so: what the test shows is the layer behind the sandbox (the pod's mounts, the sidecar's token and
    socket, a test's own control server), which the sandbox would otherwise hide or refuse.
    test_trust_boundary.py::test_the_sandbox_holds_inside_a_restricted_answer_pod shows the sandbox itself."""
    kubelet.runtime.landlock_allowed = False
    try:
        yield
    finally:
        kubelet.runtime.landlock_allowed = True


@pytest.fixture(scope="module")
def networked_plane() -> Iterator[ControlPlane]:
    with ControlPlane(locate_binaries()) as plane:
        yield plane


@pytest.fixture(scope="module")
def networked_kubelet(networked_plane: ControlPlane, cluster_images: ClusterImages) -> Iterator[LocalKubelet]:
    with local_node(networked_plane, cluster_images.root_base, networked=True) as kubelet:
        # The cells run without Landlock here (the node's seccomp profile refuses it): what refuses a
        # connection is the network, not the cell's sandbox (which would refuse every port but its proxy's).
        kubelet.runtime.landlock_allowed = False
        yield kubelet


@pytest.fixture(scope="module")
def networked_images(networked_kubelet: LocalKubelet, cluster_images: ClusterImages) -> Images:
    return support.register_images(networked_kubelet, cluster_images.runner)


@pytest.fixture
def net_namespace(networked_plane: ControlPlane, networked_kubelet: LocalKubelet) -> Iterator[str]:
    name = f"netpol-{time.monotonic_ns() % 10**8}"
    networked_plane.create_namespace(name)
    yield name
    networked_plane.delete_namespace(name)
