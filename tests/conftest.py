"""Fixtures shared by every test on the real control plane (tests/integration, tests/operator_cluster,
tests/chart; see docs/control-plane.md and docs/runtime.md).

`control_plane` (session): etcd + kube-apiserver + kube-controller-manager built by scripts/build-k8s.sh
(or taken from $ASSAY_K8S_BIN_DIR). `kubelet` (session): the local kubelet, which runs pods under runc from
the images in the local store, and the local-path provisioner, which makes the volumes PersistentVolumeClaims
ask for (its default StorageClass `local-path`; its helper pods run on that kubelet). `namespace` (per
test): a fresh namespace whose `default` ServiceAccount exists, deleted afterwards. `cluster_images`
(session): this checkout's images by digest (`make images`; built at collection time when missing, as the
control plane is).

Missing binaries or images fail the run; they never skip it, so a broken build cannot turn CI green.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from xdist.remote import Producer
from xdist.scheduler import LoadGroupScheduling

from assay_dev.cluster import ControlPlane, ControlPlaneError, LocalKubelet, locate_binaries, storage
from assay_dev.cluster.node import local_node
from assay_dev.images import build as images_build

# `make test` picks this profile: the same examples every run (derandomised, no example database), so a
# property test cannot fail CI by the luck of a draw. Run pytest by hand to draw new examples; a failure found
# that way becomes an `@example` of its test.
hypothesis_settings.register_profile("deterministic", derandomize=True, database=None)

_BIN_DIR = pytest.StashKey[Path | ControlPlaneError]()
_IMAGES = pytest.StashKey["ClusterImages | Exception"]()
AGENT_FIXTURES = {"agents_image"}
"""Fixtures whose tests need the runner image with the agent CLIs (a large build: only when selected)."""


@dataclass(frozen=True)
class ClusterImages:
    """The project's images as pods name them: `repository@sha256:...`."""

    operator: str
    runner: str
    runner_agents: str | None
    root_base: str
    """The images' base (Debian or UBI), whose user is root."""

    @property
    def python(self) -> str:
        """An image with `python` on PATH (the runner's virtualenv), for the harness's own test pods."""
        return self.runner


IMAGES: dict[str, ClusterImages] = {}
"""Filled by the `cluster_images` fixture; `current_images()` reads it inside tests."""


PROCESS_SINGLETONS: tuple[tuple[str, str], ...] = (
    ("assay_runner.processes", "OWN"),
    ("assay_runner.processes", "CONTAINMENT"),
    ("assay_runner.cgroup", "MOVER"),
    ("assay_runner.cgroup", "CELL_GROUPS"),
    ("assay_runner.collector", "SCHEDULE"),
    ("assay_runner.judges.threads", "JUDGE_THREADS"),
    ("assay_operator.metrics", "CLUSTER"),
    ("assay_operator.seals", "KEY"),
    ("assay_operator.campaign.handlers", "RETRIES"),
    ("assay_operator.campaign.handlers", "EVENTS"),
    ("assay_operator.evaluation.handlers", "RETRIES"),
    ("assay_operator.evaluation.steps.wakeups", "WAKEUPS"),
    ("assay_dev.cluster.ports", "CURSORS"),
)
"""Every process-global object with state, by module and name: `reset()` between tests (tests/unit/
test_singletons.py keeps the list complete)."""
PROCESS_CACHES: tuple[tuple[str, str], ...] = (
    ("assay_runner.processes", "lists_children"),
    ("assay_runner.processes", "_pidfds_work"),
    ("assay_runner.cgroup", "_counters"),
    ("assay_operator.startup", "settings"),
    ("assay_operator.kube", "api_client"),
)
"""Every `functools.cache`d function of the product: its cache is cleared between tests."""


def reset_process_singletons() -> None:
    """Each singleton and cache as a fresh process has it. Only in modules already imported: one that is not
    has never been touched (and importing the operator here would slow every runner test)."""
    for module, name in PROCESS_SINGLETONS:
        if module in sys.modules:
            getattr(sys.modules[module], name).reset()
    for module, name in PROCESS_CACHES:
        if module in sys.modules:
            getattr(sys.modules[module], name).cache_clear()


@pytest.fixture(autouse=True)
def _fresh_process_singletons() -> Iterator[None]:
    """No test sees another's counted failures, paused collector, children or cached settings."""
    yield
    reset_process_singletons()


def current_images() -> ClusterImages:
    if "images" not in IMAGES:
        raise RuntimeError("the cluster images are not prepared: use the `cluster_images` fixture")
    return IMAGES["images"]


def _prepare_images(items: list[pytest.Item]) -> ClusterImages:
    names = ["operator", "runner"]
    with_agents = any(
        AGENT_FIXTURES & set(getattr(item, "fixturenames", ())) or item.get_closest_marker("images")
        for item in items
    )
    if with_agents:
        names.append("runner-agents")
    built = {image.name: image for image in images_build.current(names)}
    agents = built.get("runner-agents")
    return ClusterImages(
        operator=built["operator"].reference,
        runner=built["runner"].reference,
        runner_agents=agents.reference if agents is not None else None,
        root_base=built["runner"].base_image,
    )


BUILDS_FIXTURES = {"control_plane", "cluster_images", "k8s_bin"}
"""Fixtures that locate what `make test` builds beside its first phase: their users are marked `builds`."""


def pytest_itemcollected(item: pytest.Item) -> None:
    """The `builds` marker on every test that needs the control plane, a Go tool or the images, before -m
    selects: `make test` runs `pytest -m 'not builds'` beside those builds (with ASSAY_NO_BUILDS set, under
    which scripts/build-k8s.sh, scripts/build-go-tools.sh and the image build refuse, so a test that needs
    them and lacks the marker fails there instead of waiting for them), then `pytest -m builds`."""
    if (
        item.get_closest_marker("cluster")
        or item.get_closest_marker("images")
        or BUILDS_FIXTURES & set(getattr(item, "fixturenames", ()))
    ):
        item.add_marker(pytest.mark.builds)


SHARED_FIXTURE_MODULES = frozenset(
    {
        "tests/chart/test_cluster.py",
        "tests/chart/test_disconnected.py",
        "tests/chart/test_install.py",
        "tests/operator_cluster/test_image_verification.py",
        "tests/operator_cluster/test_kueue.py",
        "tests/operator_cluster/test_network_boundary.py",
        "tests/operator_cluster/test_network_nodes.py",
        "tests/operator_cluster/test_network_probe.py",
        "tests/operator_cluster/test_nodes.py",
        "tests/operator_cluster/test_oci_suite.py",
        "tests/operator_cluster/test_properties.py",
        "tests/operator_cluster/test_suite_verification.py",
        "tests/registry/test_image_signing.py",
        "tests/registry/test_suite_artifacts.py",
    }
)
"""The modules whose `builds` tests share a fixture made once per module (or class): their own control plane
(node loss, the networked nodes), a registry, Kueue, the chart's workload controllers. `make test` runs its
cluster phase on two workers: each such module goes to one worker as a whole, so the fixture is made once,
not once per worker, nor again each time a worker comes back to the module after another test. Every other
test is scheduled on its own. Kept complete by `_check_shared_fixture_modules`: a test in a module missing
here fails."""


def _uses_wider_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definitions[-1].scope in ("module", "class", "package")
        for definitions in info.name2fixturedefs.values()
    )


_UNLISTED = pytest.StashKey[str]()


def _check_shared_fixture_modules(items: list[pytest.Item]) -> None:
    """Each `builds` test with a module-scoped fixture in a module not listed fails at setup, saying so (an
    error raised at collection would stop each xdist worker, which xdist reports as a crash, not as this)."""
    for item in items:
        module = item.nodeid.split("::", maxsplit=1)[0]
        if (
            module not in SHARED_FIXTURE_MODULES
            and item.get_closest_marker("builds")
            and _uses_wider_fixture(item)
        ):
            item.stash[_UNLISTED] = (
                f"tests/conftest.py: add {module!r} to SHARED_FIXTURE_MODULES (its `builds` tests share a "
                "module-scoped fixture: the module must run on one xdist worker)"
            )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if unlisted := item.stash.get(_UNLISTED, None):
        pytest.fail(unlisted, pytrace=False)
    if item.get_closest_marker("alone") and int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or "1") > 1:
        pytest.fail(
            "marked `alone` (its agent asks every loopback listener of the host): run it without other "
            "workers beside it, as `make test` does (pytest -m 'builds and alone', no -n)",
            pytrace=False,
        )


class SharedFixtureScheduling(LoadGroupScheduling):
    """`--dist loadgroup`, with each SHARED_FIXTURE_MODULES module one group. Decided here, on the controller,
    from the node id: pytest-xdist 3.8.0 marks a group by rewriting the item's node id on the worker, which
    pytest 9.2 no longer honours (pytest-dev/pytest-xdist#1386: the groups are silently ignored)."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", maxsplit=1)[0]
        return module if module in SHARED_FIXTURE_MODULES else super()._split_scope(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> SharedFixtureScheduling | None:
    return SharedFixtureScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.hookimpl(trylast=True)  # after -m/-k deselection: build only when a cluster test will run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    cluster = [item for item in items if item.get_closest_marker("cluster")]
    with_images = [item for item in items if item.get_closest_marker("images")]
    if cluster:
        # Here rather than in a fixture: a cold build takes longer than the per-test timeout.
        try:
            config.stash[_BIN_DIR] = locate_binaries()
            storage.locate()  # the provisioner the local node runs (built once, then cached)
        except ControlPlaneError as error:
            config.stash[_BIN_DIR] = error  # every cluster test errors with it, below
    if cluster or with_images:
        try:
            config.stash[_IMAGES] = _prepare_images(cluster + with_images)
        except Exception as error:  # any failure to build is every cluster test's error, not a crash
            config.stash[_IMAGES] = error
    _check_shared_fixture_modules(items)


@pytest.fixture(autouse=True)
def evidence_key_store(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own evidence key store (`assay_runner.io.evidence_keys`): runs made in a test never land
    in the user's ~/.local/state, nor find another test's keys."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state / "assay" / "evidence"


@pytest.fixture(scope="session")
def cluster_images(pytestconfig: pytest.Config) -> ClusterImages:
    prepared = pytestconfig.stash.get(_IMAGES, None)
    if isinstance(prepared, Exception):
        pytest.fail(f"the project's images could not be built: {prepared}", pytrace=False)
    found = prepared or _prepare_images([])
    IMAGES["images"] = found
    return found


@pytest.fixture(scope="session")
def control_plane(pytestconfig: pytest.Config) -> Iterator[ControlPlane]:
    located = pytestconfig.stash.get(_BIN_DIR, None)
    if isinstance(located, ControlPlaneError):
        pytest.fail(f"no control-plane binaries: {located}", pytrace=False)
    with ControlPlane(located or locate_binaries()) as plane:
        yield plane


@pytest.fixture(scope="session")
def kubelet(control_plane: ControlPlane, cluster_images: ClusterImages) -> Iterator[LocalKubelet]:
    with local_node(control_plane, cluster_images.root_base) as local:
        yield local


@pytest.fixture
def namespace(
    control_plane: ControlPlane, kubelet: LocalKubelet, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A fresh namespace per test; pods in it run (the kubelet is started)."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    name = f"{slug[:48].rstrip('-')}-{secrets.token_hex(3)}"
    control_plane.create_namespace(name)
    yield name
    control_plane.delete_namespace(name)
