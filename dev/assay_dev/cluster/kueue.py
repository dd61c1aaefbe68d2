"""The real Kueue controller (kueue.x-k8s.io) on the local control plane, for the queueing tests.

The binary, its CRDs and its webhook manifests come from one module version (tools/kueue, built and cached
by scripts/build-go-tools.sh). Kueue runs as a local process with:

- its CRDs applied (server-side: some are larger than a client-side apply's annotation allows);
- its webhooks served on loopback with a certificate of our own CA (Kueue's internal certificate manager
  issues certificates for an in-cluster Service name, which the apiserver cannot reach here), registered as
  `url: https://127.0.0.1:<port>/...` webhook configurations — only the webhooks of Kueue's own kinds and of
  batch Jobs, the one integration enabled, and the Job webhook only in namespaces carrying MANAGED_LABEL, so
  other tests sharing the control plane never depend on this process;
- in a private mount namespace, so the metrics certificate it insists on reading from
  /etc/kueue/metrics/certs is ours (on the host, only the empty mount point, removed afterwards);
- without its visibility API server (feature gate VisibilityOnDemand off: it would need an APIService and
  certificates of its own), which only lists pending workloads.

Stopping it removes the webhook configurations first: a registered webhook whose server is gone would refuse
every Job (failurePolicy Fail).
"""

from __future__ import annotations

import base64
import contextlib
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from .certs import write_loopback_serving_cert
from .controlplane import ControlPlane
from .crds import wait_established
from .kubeapi import ApiError
from .ports import free_port
from .processes import REPO, ControlPlaneError, _Process
from .wait import wait_until

GO_TOOLS = REPO / "scripts" / "build-go-tools.sh"
MANAGED_LABEL = ("assay-test/kueue", "managed")
"""Namespaces whose Jobs Kueue manages (its Job webhook and managedJobsNamespaceSelector)."""
GROUP = "kueue.x-k8s.io"
API = f"/apis/{GROUP}/v1beta2"
METRICS_CERTS = Path("/etc/kueue/metrics/certs")
WEBHOOK_GROUPS = frozenset({GROUP, "batch"})


def locate() -> Path:
    """The Kueue binary (its manifests are in config/ beside it), built on first use."""
    built = subprocess.run(["bash", str(GO_TOOLS), "kueue"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise ControlPlaneError(f"{GO_TOOLS} kueue failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1])


def _configuration(health_port: int, webhook_port: int, cert_dir: Path) -> dict[str, Any]:
    key, value = MANAGED_LABEL
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "health": {"healthProbeBindAddress": f"127.0.0.1:{health_port}"},
        "metrics": {"bindAddress": "0"},
        "webhook": {"host": "127.0.0.1", "port": webhook_port, "certDir": str(cert_dir)},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "manageJobsWithoutQueueName": False,
        "managedJobsNamespaceSelector": {"matchLabels": {key: value}},
        "integrations": {"frameworks": ["batch/job"]},
    }


def _webhooks(manifests: Path, port: int, ca: Path, prefix: str) -> list[dict[str, Any]]:
    """Kueue's webhook configurations, kept to its own kinds and batch Jobs, pointed at loopback."""
    bundle = base64.b64encode(ca.read_bytes()).decode()
    key, value = MANAGED_LABEL
    out = []
    for config in (d for d in yaml.safe_load_all(manifests.read_text()) if d):
        kept = []
        for hook in config.get("webhooks") or []:
            groups = {g for rule in hook.get("rules") or [] for g in rule.get("apiGroups") or []}
            if not groups or not groups <= WEBHOOK_GROUPS:
                continue
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": bundle}
            if "batch" in groups:
                hook["namespaceSelector"] = {"matchLabels": {key: value}}
            kept.append(hook)
        if kept:
            name = config["metadata"]["name"]
            out.append({**config, "metadata": {"name": f"{prefix}-{name}"}, "webhooks": kept})
    return out


@dataclass
class Kueue:
    plane: ControlPlane
    binary: Path
    work_dir: Path
    process: _Process | None = None
    webhook_paths: list[str] = field(default_factory=list)
    created: list[Path] = field(default_factory=list)

    @property
    def config_dir(self) -> Path:
        return self.binary.parent / "config"

    def start(self, timeout: float = 120) -> Kueue:
        plane = self.plane
        crds = sorted((self.config_dir / "crd").glob("*.yaml"))
        plane.kubectl("apply", "--server-side", "--force-conflicts", *(f"--filename={c}" for c in crds))
        names = [yaml.safe_load(c.read_text())["metadata"]["name"] for c in crds]
        wait_established(plane.api, names)
        certs = self.work_dir / "certs"
        ca, _, _ = write_loopback_serving_cert(certs, "kueue-webhook")
        health, webhook = free_port(), free_port()
        config = self.work_dir / "config.yaml"
        config.write_text(yaml.safe_dump(_configuration(health, webhook, certs)))
        self._mount_point()
        script = (
            f"mount --bind {certs} {METRICS_CERTS} && exec {self.binary} --config={config} "
            f"--kubeconfig={plane.kubeconfig} --feature-gates=VisibilityOnDemand=false --zap-log-level=2"
        )
        self.process = plane._spawn(
            "kueue", ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script]
        )
        plane._wait(
            self.process,
            lambda: httpx.get(f"http://127.0.0.1:{health}/readyz", timeout=2).status_code == 200,
            timeout,
            "kueue /readyz",
        )
        prefix = f"assay-test-{secrets.token_hex(3)}"
        for kind, config_path in (
            ("mutatingwebhookconfigurations", "MutatingWebhookConfiguration"),
            ("validatingwebhookconfigurations", "ValidatingWebhookConfiguration"),
        ):
            for hook_config in _webhooks(self.config_dir / "webhook" / "manifests.yaml", webhook, ca, prefix):
                if hook_config["kind"] != config_path:
                    continue
                base = f"/apis/admissionregistration.k8s.io/v1/{kind}"
                plane.api.create(base, hook_config)
                self.webhook_paths.append(f"{base}/{hook_config['metadata']['name']}")
        wait_until(self._webhooks_answer, timeout=timeout, what="Kueue's webhooks to answer")
        return self

    def _mount_point(self) -> None:
        """The empty directories the private bind mount needs on the host; removed at stop if made here."""
        missing = [p for p in (METRICS_CERTS, *METRICS_CERTS.parents) if not p.exists()]
        METRICS_CERTS.mkdir(parents=True, exist_ok=True)
        self.created = sorted(missing, key=lambda p: len(p.parts), reverse=True)

    def _webhooks_answer(self) -> bool:
        """A dry-run ResourceFlavor goes through Kueue's webhooks: true once they answer."""
        probe = {"apiVersion": f"{GROUP}/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "probe"}}
        try:
            self.plane.api.request("POST", f"{API}/resourceflavors", body=probe, params={"dryRun": "All"})
            return True
        except ApiError:
            return False

    def stop(self) -> None:
        for path in self.webhook_paths:  # first: a webhook without its server refuses every Job
            with contextlib.suppress(ApiError):
                self.plane.api.delete(path)
        self.webhook_paths.clear()
        if self.process is not None:
            self.process.stop()
            self.plane._processes.remove(self.process)
            self.process = None
        # Deepest first. One Kueue per machine at a time: the host mount point is shared.
        for directory in self.created:
            with contextlib.suppress(OSError):
                directory.rmdir()

    def log_tail(self, lines: int = 40) -> str:
        return "" if self.process is None else self.process.log_tail(lines)


@contextlib.contextmanager
def running_kueue(plane: ControlPlane) -> Iterator[Kueue]:
    with tempfile.TemporaryDirectory(prefix="assay-kueue-") as work:
        kueue = Kueue(plane, locate(), Path(work))
        try:
            yield kueue.start()
        finally:
            kueue.stop()
