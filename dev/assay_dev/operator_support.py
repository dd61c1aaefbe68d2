"""Helpers for running the real operator against the real control plane: the CRD, the runner images, the
operator process with its own ServiceAccount and Role, Evaluation manifests, waits and watch recorders.

Shared by tests/operator_cluster and the operator's benchmarks (bench/operator_latency.py, bench/takeover.py).
Nothing here knows the operator's internals: it talks to the apiserver and reads the operator's log, as a
user would.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from assay_dev.cluster import ApiError, ControlPlane, Credentials, KubeApi, LocalKubelet, PullFault
from assay_dev.cluster.podspec import DEFAULT_PATH
from assay_dev.cluster.ports import free_port
from assay_dev.cluster.wait import wait_until
from assay_dev.images import buildah
from assay_dev.images.derived import derived_image
from assay_operator import rbac
from assay_operator.evaluation import names
from assay_runner.contract import (
    Inputs,
    RepetitionFigures,
    RunSummary,
    SummaryCounts,
    SummaryRule,
)

Obj = dict[str, Any]

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SUPPORT_DESK = EXAMPLES / "support-desk"
CRD_FILE = REPO / "crds" / "assay.dev_evaluations.yaml"
CRD_FILES = (CRD_FILE, REPO / "crds" / "assay.dev_campaigns.yaml")
VENV_BIN = Path(sys.executable).parent
OPERATOR_BIN = VENV_BIN / "assay-operator"

GROUP, VERSION, PLURAL = "assay.dev", "v1alpha1", "evaluations"
CRD_NAME = f"{PLURAL}.{GROUP}"

TEST_ROOT = "/opt/assay-test"
"""Where the test images keep what the tests add to the runner image (never the runner's own paths)."""
AGENTS_DIR = f"{TEST_ROOT}/agents"
"""tests/support/agents/*.py (the cheating agent, the fake agent) in the test runner image."""
ANSWERS_DIR = f"{TEST_ROOT}/answers"
"""The example's recorded answers, outside the bundled examples (which the answer phase hides from agents
that run a program: they hold the suite's answer keys)."""
FAKE_DIR = f"{TEST_ROOT}/fake"
"""The stand-in `assay` of the fake runner image, first on its PATH."""
IMAGE_USER = 1001

OPERATOR_SA = "assay-operator"
GRACE_SECONDS = 30.0
"""The operator Deployment's terminationGracePeriodSeconds (Kubernetes' default)."""

# --- paths ------------------------------------------------------------------------------------------------


def evaluations_path(namespace: str, name: str = "", subresource: str = "") -> str:
    return _join(f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/{PLURAL}", name, subresource)


def campaigns_path(namespace: str, name: str = "", subresource: str = "") -> str:
    return _join(f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/campaigns", name, subresource)


def jobs_path(namespace: str, name: str = "") -> str:
    return _join(f"/apis/batch/v1/namespaces/{namespace}/jobs", name, "")


def pods_path(namespace: str, name: str = "") -> str:
    return _join(f"/api/v1/namespaces/{namespace}/pods", name, "")


def config_maps_path(namespace: str, name: str = "") -> str:
    return _join(f"/api/v1/namespaces/{namespace}/configmaps", name, "")


def _join(base: str, name: str, subresource: str) -> str:
    path = f"{base}/{name}" if name else base
    return f"{path}/{subresource}" if subresource else path


# --- the CRD ----------------------------------------------------------------------------------------------


def install_crd(api: KubeApi, timeout: float = 60) -> Obj:
    """Create (or replace) every committed CRD (Evaluation, Campaign) and wait until each is Established and
    its endpoint serves. Returns the Evaluation CRD."""
    installed = [install_one_crd(api, path, timeout) for path in CRD_FILES]
    return next(crd for crd in installed if crd["metadata"]["name"] == CRD_NAME)


def install_one_crd(api: KubeApi, file: Path, timeout: float = 60) -> Obj:
    documents: list[Obj] = [d for d in yaml.safe_load_all(file.read_text()) if d]
    crd = next(d for d in documents if d.get("kind") == "CustomResourceDefinition")
    name, plural = crd["metadata"]["name"], crd["spec"]["names"]["plural"]
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    try:
        api.create(path, crd)
    except ApiError as error:
        if error.status != 409:
            raise
        current = api.get(f"{path}/{name}")
        crd = {
            **crd,
            "metadata": {**crd["metadata"], "resourceVersion": current["metadata"]["resourceVersion"]},
        }
        api.request("PUT", f"{path}/{name}", body=crd)

    def established() -> bool:
        got = api.get(f"{path}/{name}")
        return any(
            c["type"] == "Established" and c["status"] == "True"
            for c in got.get("status", {}).get("conditions") or []
        )

    wait_until(established, timeout=timeout, what=f"the CRD {name} to be Established")

    def serving() -> bool:
        try:
            api.get(f"/apis/{GROUP}/{VERSION}/{plural}")
            return True
        except ApiError as error:
            if error.status in (404, 429):  # not yet routed; 429: "storage is (re)initializing"
                return False
            raise

    wait_until(serving, timeout=timeout, what=f"the {plural} endpoint to serve")
    return crd


# --- runner images ----------------------------------------------------------------------------------------

FAKE_RUNNER = r"""#!/bin/sh
# A stand-in for the runner: `assay split` and `assay answer` (the answer pods) do nothing, except that
# `queued-*`'s answer pod holds its queue's quota for 6 s; `assay score --config FILE` (the judge pod)
# writes a canned termination message chosen by the Evaluation's name (the RunConfig's runName is
# "namespace/name") and exits as told. A canned summary is bound to the snapshots the pod mounted (as the
# real judge phase reports them), except `foreign-*`'s, which names another brain. A Campaign's cells are
# named `<campaign>-<brain>-<agent>`: an agent named `mute` wrote no answer (incomplete, Blocked); cell
# b7-okay is Blocked by its gate.
run_name() { sed -n 's/.*"runName": *"[^/"]*\/\([^"]*\)".*/\1/p' "$1"; }
case "$1" in
  split) exit 0 ;;
  answer) case "$(run_name /etc/assay/run/answer.json)" in queued-*) sleep 6 ;; esac; exit 0 ;;
esac
here=$(dirname "$0")
name=$(run_name /etc/assay/run/config.json)
case "$name" in
  junk-*)   printf 'this is not JSON {' > /dev/termination-log ;;
  empty-*)  : ;;
  schema-*) printf '{"verdict": "Pass", "score": 1.0}' > /dev/termination-log ;;
  future-*) python "$here/bind.py" "$here/future.json" > /dev/termination-log ;;
  blocked-*) python "$here/bind.py" "$here/blocked.json" > /dev/termination-log ;;
  foreign-*) cat "$here/pass.json" > /dev/termination-log ;;
  crash-*)  python "$here/bind.py" "$here/pass.json" > /dev/termination-log
            echo "runner crashed" >&2; exit 1 ;;
  *-mute)   python "$here/bind.py" "$here/incomplete.json" > /dev/termination-log ;;
  *-b7-okay) python "$here/bind.py" "$here/blocked.json" > /dev/termination-log ;;
  *)        python "$here/bind.py" "$here/pass.json" > /dev/termination-log ;;
esac
exit 0
"""

BIND_SUMMARY = r"""
import json, sys
from pathlib import Path
from assay_runner.contract import digest_files
from assay_runner.core.digests import tree_digest

summary = json.loads(Path(sys.argv[1]).read_text())
inputs = summary["inputs"]
inputs["brainDigest"] = tree_digest(Path("/etc/assay/brain"))
keys = Path("/etc/assay/key/keys.yaml")
if keys.is_file():
    inputs["publicDigest"] = tree_digest(Path("/etc/assay/suite"))
    inputs["keyDigest"] = digest_files({"keys.yaml": keys.read_bytes()})
print(json.dumps(summary), end="")
"""


def canned_summary(verdict: str = "Pass", schema_version: int = 1, complete: bool = True) -> RunSummary:
    """A valid RunSummary, as the real runner would write it for a 4-ticket suite, one repetition;
    `complete=False`: no cell was answered (the agent wrote nothing), so the run is Blocked."""
    passed = verdict == "Pass" and complete
    score = 0.95 if passed else (0.6 if complete else 0.0)
    return RunSummary(
        schema_version=schema_version,
        verdict="Pass" if passed else "Blocked",
        score=score,
        judges={"must_mention": 1.0 if passed else 0.5, "format": 0.9},
        rules=[
            SummaryRule(name="score", passed=passed, detail=f"score {score:.3f} vs 0.900", value=score),
            SummaryRule(name="judges", passed=True, detail="all 2 judges at or above their thresholds"),
            SummaryRule(name="ticketFloor", passed=passed, detail="lowest ticket", value=score),
            SummaryRule(
                name="complete",
                passed=complete,
                detail="4/4 cells judged" if complete else "0/4 cells answered: the agent wrote no answer",
                value=1.0 if complete else 0.0,
            ),
        ],
        counts=SummaryCounts(tickets=4, passed_tickets=4 if passed else 2 * complete, cells=4, errors=0),
        failing_tickets=[] if passed else ["T-003", "T-004"],
        repetitions=RepetitionFigures(
            k=1,
            cells=4,
            passing_cells=4 if passed else 0,
            pass_rate=1.0 if passed else 0.0,
            pass_at_k=1.0 if passed else 0.0,
            pass_hat_k=1.0 if passed else 0.0,
            fully_resolved=4 if passed else 0,
        ),
        inputs=Inputs(
            brain_digest="sha256:" + "0" * 64, suite_digest="sha256:" + "1" * 64, judges_digest="x"
        ),
    )


@dataclass(frozen=True)
class Images:
    """The runner images the operator tests put in Jobs, by digest."""

    runner: str
    """The runner image as `make images` builds it."""
    test_runner: str
    """The runner image plus the tests' agents and recorded answers under /opt/assay-test; same entrypoint,
    user and environment. The `operator` fixture's default."""
    fake_runner: str
    """test_runner with a stand-in `assay` first on PATH that writes a canned termination message chosen by
    the Evaluation's name prefix."""
    never_starts: str
    """The runner under a name whose pull never ends: the pod stays ContainerCreating."""


IMAGES: dict[str, Images] = {}


def images() -> Images:
    """The images register_images() prepared (the `images` fixture)."""
    if "images" not in IMAGES:
        raise RuntimeError("the test images are not prepared: use the `images` fixture")
    return IMAGES["images"]


def _test_files() -> dict[str, tuple[bytes, int]]:
    files: dict[str, tuple[bytes, int]] = {}
    for agent in sorted((REPO / "tests" / "support" / "agents").glob("*.py")):
        files[f"{AGENTS_DIR}/{agent.name}"] = (agent.read_bytes(), 0o644)
    for answer in sorted((SUPPORT_DESK / "answers").rglob("*")):
        if answer.is_file():
            relative = answer.relative_to(SUPPORT_DESK / "answers").as_posix()
            files[f"{ANSWERS_DIR}/{relative}"] = (answer.read_bytes(), 0o644)
    return files


def _fake_runner_files() -> dict[str, tuple[bytes, int]]:
    files = {
        f"{FAKE_DIR}/assay": (FAKE_RUNNER.encode(), 0o755),
        f"{FAKE_DIR}/bind.py": (BIND_SUMMARY.encode(), 0o644),
    }
    for name, summary in (
        ("pass.json", canned_summary("Pass")),
        ("blocked.json", canned_summary("Blocked")),
        ("future.json", canned_summary("Pass", schema_version=2)),
        ("incomplete.json", canned_summary("Blocked", complete=False)),
    ):
        files[f"{FAKE_DIR}/{name}"] = (json.dumps(summary.to_wire()).encode(), 0o644)
    return files


def register_images(kubelet: LocalKubelet, runner: str) -> Images:
    """Derive the test images from the runner image (cached by content) and make one pull never end."""
    test_files = _test_files()
    test_runner = derived_image(runner, "localhost/assay-test/runner", test_files)
    path = buildah.inspect_image(runner).env.get("PATH", DEFAULT_PATH)
    fake_runner = derived_image(
        runner,
        "localhost/assay-test/fake-runner",
        {**test_files, **_fake_runner_files()},
        env={"PATH": f"{FAKE_DIR}:{path}"},
    )
    never_starts = derived_image(runner, "localhost/assay-test/never-starts", {})
    kubelet.fault_pull(never_starts, PullFault(never=True))
    found = Images(runner=runner, test_runner=test_runner, fake_runner=fake_runner, never_starts=never_starts)
    IMAGES["images"] = found
    return found


# --- the operator ------------------------------------------------------------------------------------------


def grant_operator(api: KubeApi, namespace: str, rules: Sequence[Obj] | None = None) -> None:
    """The operator's ServiceAccount, Role (from assay_operator.rbac unless `rules` is given) and binding;
    an existing Role is replaced, so a test can narrow or restore the permissions."""
    base = f"/api/v1/namespaces/{namespace}/serviceaccounts"
    with contextlib.suppress(ApiError):
        api.create(base, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": OPERATOR_SA}})
    rbac_base = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}"
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": OPERATOR_SA},
        "rules": list(rules if rules is not None else rbac.role_rules()),
    }
    try:
        api.create(f"{rbac_base}/roles", role)
    except ApiError as error:
        if error.status != 409:
            raise
        api.request("PUT", f"{rbac_base}/roles/{OPERATOR_SA}", body=role)
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": OPERATOR_SA},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": OPERATOR_SA},
        "subjects": [{"kind": "ServiceAccount", "name": OPERATOR_SA, "namespace": namespace}],
    }
    with contextlib.suppress(ApiError):
        api.create(f"{rbac_base}/rolebindings", binding)


def other_checkout(operator_dir: Path | None) -> dict[str, str]:
    """Environment that runs another version of the operator (a directory holding assay_operator/, with
    its runner/ beside it, e.g. from `git archive main operator runner | tar -x -C /tmp/main`), for a
    benchmark's before/after in one run; empty for this checkout's."""
    if operator_dir is None:
        return {}
    return {"PYTHONPATH": f"{operator_dir}:{operator_dir.parent / 'runner'}"}


class OperatorProcess:
    """`assay-operator` (kopf) as a subprocess, authenticated with its ServiceAccount's token."""

    def __init__(
        self,
        control_plane: ControlPlane,
        namespaces: Sequence[str],
        log_file: Path,
        *,
        image: str | None = None,
        env: Mapping[str, str] | None = None,
        kubeconfig: Path | None = None,
    ) -> None:
        self.control_plane = control_plane
        self.namespaces = list(namespaces)
        self.log_file = log_file
        self.image = image or images().test_runner
        self.extra_env = dict(env or {})
        self.kubeconfig = kubeconfig or control_plane.token_kubeconfig(
            self.namespaces[0], OPERATOR_SA, path=log_file.with_suffix(".kubeconfig")
        )
        self.popen: subprocess.Popen[bytes] | None = None
        self.liveness_port = 0
        self.metrics_port = 0
        self.exit_codes: list[int] = []

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def environment(self) -> dict[str, str]:
        env = {
            "PATH": f"{VENV_BIN}:{DEFAULT_PATH}",
            "HOME": os.environ.get("HOME", "/root"),
            "KUBECONFIG": str(self.kubeconfig),
            "ASSAY_RUNNER_IMAGE": self.image,
            "ASSAY_NAMESPACES": ",".join(self.namespaces),
            "ASSAY_METRICS_PORT": str(self.metrics_port),
            "ASSAY_LIVENESS": f"http://127.0.0.1:{self.liveness_port}/healthz",
            "PYTHONUNBUFFERED": "1",
        }
        if os.environ.get("PYTHONPATH"):  # the operator under test (a worktree's, first on the path)
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        env.update(self.extra_env)
        return env

    def start(self, wait: float = 60) -> OperatorProcess:
        assert self.popen is None or self.popen.poll() is not None, "already running"
        self.liveness_port, self.metrics_port = free_port(), free_port()
        with self.log_file.open("ab") as out:
            out.write(f"\n===== starting assay-operator at {time.strftime('%H:%M:%S')} =====\n".encode())
            out.flush()
            self.popen = subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", "--", str(OPERATOR_BIN)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                start_new_session=True,
            )
        if wait:
            self.wait_ready(wait)
        return self

    def wait_ready(self, timeout: float = 60) -> None:
        def healthy() -> bool:
            if self.popen is not None and self.popen.poll() is not None:
                raise RuntimeError(f"assay-operator exited {self.popen.returncode}:\n{self.log_tail()}")
            try:
                return (
                    httpx.get(f"http://127.0.0.1:{self.liveness_port}/healthz", timeout=2).status_code == 200
                )
            except httpx.HTTPError:
                return False

        wait_until(healthy, timeout=timeout, what="assay-operator /healthz", describe=self.log_tail)

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def stop(self, grace: float = GRACE_SECONDS) -> float:
        """SIGTERM, as the kubelet stops the pod; returns the seconds it took. Raises if the operator does
        not exit within the grace period (it is then SIGKILLed, as the kubelet would)."""
        assert self.popen is not None
        if self.popen.poll() is not None:
            return 0.0
        started = time.monotonic()
        self.popen.send_signal(signal.SIGTERM)
        try:
            code = self.popen.wait(grace)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(10)
            raise AssertionError(
                f"assay-operator did not exit within {grace:.0f}s of SIGTERM:\n{self.log_tail()}"
            ) from None
        self.exit_codes.append(code)
        return time.monotonic() - started

    def kill(self) -> None:
        """SIGKILL: no cleanup, as when the node dies or the container is OOM-killed."""
        assert self.popen is not None
        self.popen.kill()
        self.exit_codes.append(self.popen.wait(10))

    def log_text(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def problems(self) -> list[str]:
        """Tracebacks, errors and warnings in the log (kopf's included: a forbidden request, a status field
        the schema dropped), except a handler waiting on purpose (TemporaryError: "failed temporarily") and
        kopf's shutdown notes: a handler still waiting for its retry ("Unprocessed streams") or still running
        when the operator is stopped ("is cancelled. Will escalate")."""
        lines = self.log_text().splitlines()
        bad = ("Traceback (most recent call last)", "[ERROR", "[WARNING", "[CRITICAL", "Unhandled exception")
        benign = ("failed temporarily", "Unprocessed streams left", "is cancelled. Will escalate.")
        return [line for line in lines if any(b in line for b in bad) and not any(b in line for b in benign)]

    def cpu_seconds(self) -> float:
        """User + system CPU time of the operator process so far, from /proc."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_kib(self) -> tuple[int, int]:
        """(VmRSS, VmHWM) of the operator process, from /proc."""
        values: dict[str, int] = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0])
        return values.get("VmRSS", 0), values.get("VmHWM", 0)


# --- manifests ---------------------------------------------------------------------------------------------


def brain_config_map(name: str, version: str) -> Obj:
    """The example brain as a ConfigMap, one key per file (as `kubectl create configmap --from-file`)."""
    folder = SUPPORT_DESK / "brains" / version
    data = {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.is_file()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def brain_files(version: str) -> dict[str, bytes]:
    folder = SUPPORT_DESK / "brains" / version
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


SMALL = {"cpu": "1", "memory": "512Mi"}
"""A runner pod's resources in these tests. The runtime enforces them (a CFS quota, a memory cgroup): a
whole core keeps the mostly single-threaded runner unthrottled, 512 MiB is well above what it uses."""


def replay_spec(brain: str, answers: str = "v1", **overrides: Any) -> Obj:
    """The bundled support-desk example, replayed (offline, ~2 s of runner time)."""
    spec: Obj = {
        "brain": {"configMap": {"name": brain}},
        "suite": {"bundled": "support-desk"},
        "agent": {"kind": "replay", "answers": {"bundled": f"support-desk/answers/{answers}"}},
        "cassettes": {"bundled": "support-desk/cassettes"},
        "judgeModel": "example-judge",
        "resources": dict(SMALL),
    }
    spec.update(overrides)
    return spec


def slow_agent(seconds: float, answers: str = "v1") -> Obj:
    """A command agent that takes `seconds` per ticket, then gives the recorded answer (same verdict as
    replay). The answers come from the test runner image, outside the bundled examples, which the answer
    phase hides from agents that run a program (they hold the suite's answer keys)."""
    source = f"{ANSWERS_DIR}/{answers}"
    script = f"sleep {seconds}; cp {source}/{{ticket_id}}/answer.md {{answer_file}}"
    return {"kind": "command", "model": "recorded", "command": ["sh", "-c", script], "timeoutSeconds": 3600}


HANGING_AGENT: Obj = {
    "kind": "command",
    "model": "none",
    "command": ["sleep", "3600"],
    "timeoutSeconds": 3600,
}


def secret(name: str, key: str, value: str) -> Obj:
    """An Opaque Secret holding `value` under `key` (a token for the gateway, the judge or MLflow)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "data": {key: base64.b64encode(value.encode()).decode()},
    }


def evaluation(name: str, spec: Obj, labels: Mapping[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Evaluation", "metadata": meta, "spec": spec}


# --- reading state -----------------------------------------------------------------------------------------


def condition(obj: Obj | None, kind: str) -> Obj | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return dict(c)
    return None


def condition_status(obj: Obj | None, kind: str) -> str | None:
    found = condition(obj, kind)
    return None if found is None else str(found["status"])


def assert_conditions(obj: Obj, want: Mapping[str, str], generation: int) -> None:
    """Each condition type has the wanted status and describes `generation`."""
    for kind, status in want.items():
        found = condition(obj, kind)
        assert found is not None and found["status"] == status, (kind, found)
        assert found["observedGeneration"] == generation, (kind, found)


def get_or_none(api: KubeApi, path: str) -> Obj | None:
    try:
        return api.get(path)
    except ApiError as error:
        if error.status == 404:
            return None
        raise


def jobs_of(api: KubeApi, namespace: str, evaluation_name: str) -> list[Obj]:
    """The Jobs labelled for `evaluation_name` (the label value as the operator writes it)."""
    label = names.evaluation_label(evaluation_name)
    items: list[Obj] = api.get(jobs_path(namespace), labelSelector=f"{names.LABEL_EVALUATION}={label}")[
        "items"
    ]
    return items


def pods_of_job(api: KubeApi, namespace: str, job: str) -> list[Obj]:
    items: list[Obj] = api.get(pods_path(namespace), labelSelector=f"job-name={job}")["items"]
    return items


def events_for(api: KubeApi, namespace: str, name: str) -> list[Obj]:
    items: list[Obj] = api.get(
        f"/api/v1/namespaces/{namespace}/events", fieldSelector=f"involvedObject.name={name}"
    )["items"]
    return items


def wait_for_events(api: KubeApi, namespace: str, name: str, reasons: set[str], timeout: float = 30) -> None:
    def probe() -> bool:
        return reasons <= {e["reason"] for e in events_for(api, namespace, name)}

    wait_until(
        probe,
        timeout=timeout,
        what=f"events {sorted(reasons)} on {name}",
        describe=lambda: str(sorted({e["reason"] for e in events_for(api, namespace, name)})),
    )


def summarize(obj: Obj | None) -> str:
    if obj is None:
        return "absent"
    status = obj.get("status") or {}
    conditions = {
        c["type"]: f"{c['status']}/{c.get('reason')}@g{c.get('observedGeneration')}"
        for c in status.get("conditions") or []
    }
    return json.dumps(
        {
            "generation": obj["metadata"].get("generation"),
            "observedGeneration": status.get("observedGeneration"),
            "verdict": status.get("verdict"),
            "jobName": status.get("jobName"),
            "message": status.get("message"),
            "conditions": conditions,
        }
    )


def wait_for_evaluation(
    api: KubeApi,
    namespace: str,
    name: str,
    predicate: Callable[[Obj], bool],
    *,
    timeout: float = 120,
    what: str = "",
    operator: OperatorProcess | None = None,
) -> Obj:
    path = evaluations_path(namespace, name)

    def probe() -> Obj | None:
        obj = get_or_none(api, path)
        if operator is not None and not operator.alive():
            raise RuntimeError(f"the operator died:\n{operator.log_tail()}")
        return obj if obj is not None and predicate(obj) else None

    return wait_until(
        probe,
        timeout=timeout,
        interval=0.25,
        what=what or f"evaluation {namespace}/{name}",
        describe=lambda: summarize(get_or_none(api, path)),
    )


def has_verdict(generation: int | None = None) -> Callable[[Obj], bool]:
    """The verdict of the current (or the given) generation is in the status."""

    def check(obj: Obj) -> bool:
        status = obj.get("status") or {}
        want = generation if generation is not None else obj["metadata"]["generation"]
        completed = condition(obj, "Completed")
        return (
            status.get("verdict") in ("Pass", "Blocked")
            and status.get("observedGeneration") == want
            and completed is not None
            and completed["status"] == "True"
            and completed.get("observedGeneration") == want
        )

    return check


def wait_for_verdict(
    api: KubeApi,
    namespace: str,
    name: str,
    *,
    generation: int | None = None,
    timeout: float = 120,
    operator: OperatorProcess | None = None,
) -> Obj:
    return wait_for_evaluation(
        api,
        namespace,
        name,
        has_verdict(generation),
        timeout=timeout,
        what=f"the verdict of {namespace}/{name}",
        operator=operator,
    )


# --- watch recorders ---------------------------------------------------------------------------------------


@dataclass
class Recorded:
    type: str
    object: Obj
    at: float


@dataclass
class Recorder:
    """Lists then watches a collection in a thread and keeps every event, so a test sees each version of
    an object, even one that lasted milliseconds (a status between two patches)."""

    credentials: Credentials
    path: str
    on_event: Callable[[str, Obj], None] | None = None
    """Called in the watch thread for every event (to react at once, e.g. kill a process)."""
    events: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._api = KubeApi(self.credentials)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._listed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"recorder {self.path}", daemon=True)

    def __enter__(self) -> Recorder:
        self._thread.start()
        if not self._listed.wait(30):
            raise TimeoutError(f"could not list {self.path}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._api.close()
        self._thread.join(10)

    def _record(self, kind: str, obj: Obj) -> None:
        with self._lock:
            self.events.append(Recorded(kind, obj, time.monotonic()))
        if self.on_event is not None:
            self.on_event(kind, obj)

    def _run(self) -> None:
        version = ""
        while not self._stop.is_set():
            try:
                if not version:
                    listing = self._api.get(self.path)
                    for item in listing["items"]:
                        self._record("LISTED", item)
                    version = listing["metadata"]["resourceVersion"]
                    self._listed.set()
                for event in self._api.watch(self.path, version, timeout_seconds=30):
                    if event["type"] == "ERROR":
                        version = ""
                        break
                    obj = event["object"]
                    version = obj["metadata"]["resourceVersion"]
                    if event["type"] != "BOOKMARK":
                        self._record(event["type"], obj)
            except Exception:
                if self._stop.is_set():
                    return
                time.sleep(0.2)

    def snapshot(self) -> list[Recorded]:
        with self._lock:
            return list(self.events)

    def versions(self, name: str) -> list[Obj]:
        return [e.object for e in self.snapshot() if e.object["metadata"]["name"] == name]

    def uids(self) -> dict[str, set[str]]:
        """name -> the uids ever seen under that name."""
        seen: dict[str, set[str]] = {}
        for e in self.snapshot():
            seen.setdefault(e.object["metadata"]["name"], set()).add(e.object["metadata"]["uid"])
        return seen


ONE_RUN = {names.ANSWER: 1, names.JUDGE: 1}
"""A generation's Jobs, by component, once its verdict is in: exactly one answer Job and one judge Job."""


def jobs_per_generation(recorder: Recorder) -> dict[tuple[str, str, str], set[str]]:
    """(owning Evaluation's name, generation label, component: answer or judge) -> uids of every Job ever
    seen for it."""
    seen: dict[tuple[str, str, str], set[str]] = {}
    for e in recorder.snapshot():
        meta = e.object["metadata"]
        owner = next((r["name"] for r in meta.get("ownerReferences") or [] if r["kind"] == "Evaluation"), "?")
        labels = meta.get("labels") or {}
        key = (owner, labels.get(names.LABEL_GENERATION, "?"), labels.get(names.LABEL_COMPONENT, "?"))
        seen.setdefault(key, set()).add(meta["uid"])
    return seen


@contextlib.contextmanager
def recording(
    control_plane: ControlPlane, path: str, on_event: Callable[[str, Obj], None] | None = None
) -> Iterator[Recorder]:
    with Recorder(control_plane.admin_credentials(), path, on_event) as recorder:
        yield recorder


# --- test steps ---------------------------------------------------------------------------------------------


def create_evaluation(api: KubeApi, namespace: str, name: str, spec: Obj) -> Obj:
    return api.create(evaluations_path(namespace), evaluation(name, spec))


def job_status(api: KubeApi, namespace: str, job: str) -> dict[str, Any]:
    got = get_or_none(api, jobs_path(namespace, job))
    return dict((got or {}).get("status") or {})


def job_condition(api: KubeApi, namespace: str, job: str, kind: str) -> Obj | None:
    for c in job_status(api, namespace, job).get("conditions") or []:
        if c["type"] == kind and c["status"] == "True":
            return dict(c)
    return None


def job_failed_reason(api: KubeApi, namespace: str, job: str) -> str | None:
    failed = job_condition(api, namespace, job, "Failed")
    return None if failed is None else str(failed.get("reason"))


def answer_job(evaluation_name: str, generation: int = 1, rerun: str | None = None) -> str:
    """The name of a run's answer Job (its judge Job is `<name>-g<generation>`)."""
    return names.answer_job_name(evaluation_name, generation, rerun)


def running_pod(api: KubeApi, namespace: str, job: str, exclude: set[str] | None = None) -> str:
    """The name of a pod of `job` with a container running (not one of `exclude`); "" once the Job has
    failed."""

    def probe() -> list[str] | None:
        for pod in pods_of_job(api, namespace, job):
            name = str(pod["metadata"]["name"])
            status = pod.get("status", {})
            statuses = [
                *(status.get("initContainerStatuses") or []),
                *(status.get("containerStatuses") or []),
            ]
            if name not in (exclude or set()) and any("running" in s["state"] for s in statuses):
                return [name]
        return [""] if job_failed_reason(api, namespace, job) else None

    found = wait_until(
        probe,
        timeout=60,
        what=f"a running pod of Job {job}",
        describe=lambda: str([p.get("status", {}).get("phase") for p in pods_of_job(api, namespace, job)]),
    )
    return found[0]


def claim_path(api: KubeApi, namespace: str, claim: str) -> Path:
    """Where a bound PersistentVolumeClaim's volume lives on this node (the local-path provisioner's
    hostPath volume): the answers (`shard-<i>/`) and the result (`result/`) of a run."""
    bound = api.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{claim}")
    volume = api.get(f"/api/v1/persistentvolumes/{bound['spec']['volumeName']}")
    return Path(volume["spec"]["hostPath"]["path"])


def barrier(api: KubeApi, namespace: str, operator: OperatorProcess) -> None:
    """Run one more Evaluation to its verdict: by then the operator has handled the events queued before it
    (kopf dispatches a watch stream in order)."""
    name = f"barrier-{len(api.get(evaluations_path(namespace))['items'])}"
    brain = "barrier-brain"
    if get_or_none(api, config_maps_path(namespace, brain)) is None:
        api.create(config_maps_path(namespace), brain_config_map(brain, "v1"))
    create_evaluation(api, namespace, name, replay_spec(brain))
    wait_for_verdict(api, namespace, name, operator=operator)


def jobs_per_generation_of(recorder: Recorder, name: str) -> dict[str, dict[str, int]]:
    """generation -> component -> how many distinct Jobs (uids) were ever seen for Evaluation `name`."""
    found: dict[str, dict[str, int]] = {}
    for (evaluation_name, generation, component), uids in jobs_per_generation(recorder).items():
        if evaluation_name == name:
            found.setdefault(generation, {})[component] = len(uids)
    return found


def log_count(operator: OperatorProcess, *fragments: str) -> int:
    """Lines of the operator's log holding every fragment."""
    return sum(all(f in line for f in fragments) for line in operator.log_text().splitlines())
