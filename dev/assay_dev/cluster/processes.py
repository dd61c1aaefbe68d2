"""The control plane's binaries (etcd, kube-apiserver, kube-controller-manager, kubectl, helm, built from
source by scripts/build-k8s.sh) and a process the harness runs from them: the control plane's own
(controlplane.py) and those started beside it (storage.py, policy.py, kueue.py), each in a process group of
its own with its log in a file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
BUILD_SCRIPT = REPO / "scripts" / "build-k8s.sh"
BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kubectl", "helm")


class ControlPlaneError(RuntimeError):
    pass


def locate_binaries() -> Path:
    """The bin directory holding the control-plane binaries: $ASSAY_K8S_BIN_DIR, or the build cache, which
    scripts/build-k8s.sh fills on first use (10-25 minutes on 2 cores). Raises if neither works."""
    result = subprocess.run(
        ["bash", str(BUILD_SCRIPT)], stdout=subprocess.PIPE, stderr=sys.stderr, text=True, check=False
    )
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise ControlPlaneError(f"{BUILD_SCRIPT} failed (exit {result.returncode}); see its output above")
    bin_dir = Path(lines[-1])
    missing = [b for b in BINARIES if not os.access(bin_dir / b, os.X_OK)]
    if missing:
        raise ControlPlaneError(f"{bin_dir} lacks {missing}")
    return bin_dir


@dataclass
class _Process:
    name: str
    popen: subprocess.Popen[bytes]
    log_file: Path

    def alive(self) -> bool:
        return self.popen.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        if not self.log_file.exists():
            return ""
        return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the process group, SIGKILL what is left after `timeout`."""
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
            if self.popen.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(wait)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)  # helpers left in the group
