"""The operator as a process: its ServiceAccount and Role, and `assay-operator` started, read and stopped."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

from assay_dev.cluster import ApiError, ControlPlane, KubeApi
from assay_dev.cluster.kubeapi import Obj
from assay_dev.cluster.podspec import DEFAULT_PATH
from assay_dev.cluster.ports import free_port
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support.images import images
from assay_operator import rbac

VENV_BIN = Path(sys.executable).parent
OPERATOR_BIN = VENV_BIN / "assay-operator"


OPERATOR_SA = "assay-operator"
GRACE_SECONDS = 30.0
"""The operator Deployment's terminationGracePeriodSeconds (Kubernetes' default)."""


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


def new_decision_key(path: Path) -> Path:
    """A fresh decision key in `path` (the chart makes one at install, in a Secret)."""
    path.write_text(secrets.token_hex(32))
    path.chmod(0o600)
    return path


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
        decision_key: Path | None = None,
    ) -> None:
        self.control_plane = control_plane
        self.namespaces = list(namespaces)
        self.log_file = log_file
        self.image = image or images().test_runner
        self.extra_env = dict(env or {})
        self.kubeconfig = kubeconfig or control_plane.token_kubeconfig(
            self.namespaces[0], OPERATOR_SA, path=log_file.with_suffix(".kubeconfig")
        )
        # The key of the operator's seals (assay_operator.seals), as the chart's Secret gives it: the same
        # across restarts of this operator, so its earlier decisions still verify; `decision_key`, a file
        # several operators share (the replicas of one installation, one succeeding another).
        self.decision_key = decision_key or new_decision_key(log_file.with_suffix(".decision-key"))
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
            "ASSAY_DECISION_KEY_FILE": str(self.decision_key),
            "ASSAY_METRICS_PORT": str(self.metrics_port),
            "ASSAY_LIVENESS": f"http://127.0.0.1:{self.liveness_port}/healthz",
            "PYTHONUNBUFFERED": "1",
            # The test process's own checkout first, when it names one (a worktree beside the virtualenv's).
            **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
        }
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
        when the operator is stopped ("is cancelled. Will escalate"), and its resource observer's scan of the
        API groups racing the close of its own HTTP session ("Connector is closed": only once stopping)."""
        lines = self.log_text().splitlines()
        bad = ("Traceback (most recent call last)", "[ERROR", "[WARNING", "[CRITICAL", "Unhandled exception")
        benign = (
            "failed temporarily",
            "Unprocessed streams left",
            "is cancelled. Will escalate.",
            "ClientConnectionError('Connector is closed.')",
        )
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


def log_count(operator: OperatorProcess, *fragments: str) -> int:
    """Lines of the operator's log holding every fragment."""
    return sum(all(f in line for f in fragments) for line in operator.log_text().splitlines())
