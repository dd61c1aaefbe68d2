"""One container of a pod on the local kubelet, as its worker keeps it: the spec, the pulled image, the
runtime's handle, the state and restarts its status reports, and the message it leaves when it ends (as
kubelet cuts it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .images import PulledImage
from .podspec import Obj
from .runtime import ContainerHandle

TERMINATION_MESSAGE_MAX = 4096
LOG_TAIL_LINES = 80
LOG_TAIL_BYTES = 2048
POD_MESSAGE_BUDGET = 12 * 1024


def termination_message(
    container: Obj, message_file: Path, log_file: Path, exit_code: int, pod_budget: int = POD_MESSAGE_BUDGET
) -> str:
    """The message kubelet puts in state.terminated.message (pkg/kubelet/kuberuntime: the file's last 4096
    bytes, else the log tail; pkg/kubelet/status: at most 12 KiB per pod, split evenly among containers)."""
    data = b""
    if message_file.exists():
        with message_file.open("rb") as f:
            f.seek(max(0, message_file.stat().st_size - TERMINATION_MESSAGE_MAX))
            data = f.read()
    fallback = container.get("terminationMessagePolicy") == "FallbackToLogsOnError" and exit_code != 0
    if not data and fallback and log_file.exists():
        lines = log_file.read_bytes().splitlines(keepends=True)[-LOG_TAIL_LINES:]
        data = b"".join(lines)[-LOG_TAIL_BYTES:]
    return data[:pod_budget].decode(errors="replace")


@dataclass
class Container:
    spec: Obj
    init: bool
    state: Obj = field(default_factory=lambda: {"waiting": {"reason": "ContainerCreating"}})
    image: PulledImage | None = None
    handle: ContainerHandle | None = None
    started_at: str = ""
    oom_killed: bool = False
    """Set by the kubelet's oom_kill fault (a test's stand-in for the kernel's OOM killer)."""
    message_file: Path | None = None
    log_file: Path | None = None
    restart_count: int = 0
    last_state: Obj = field(default_factory=dict)
    restart_at: float | None = None
    """When an exited sidecar is started again (monotonic clock)."""

    @property
    def name(self) -> str:
        return str(self.spec["name"])

    @property
    def sidecar(self) -> bool:
        """A native sidecar: an init container that runs beside the others until the pod ends."""
        return self.init and self.spec.get("restartPolicy") == "Always"

    @property
    def terminated(self) -> Obj | None:
        value: Obj | None = self.state.get("terminated")
        return value

    def status(self) -> Obj:
        running = "running" in self.state
        status: Obj = {
            "name": self.name,
            "image": self.spec["image"],
            "imageID": self.image.image_id if self.image is not None else "",
            "ready": running and (self.sidecar or not self.init),
            "restartCount": self.restart_count,
            "started": running,
            "state": self.state,
            "lastState": self.last_state,
        }
        if self.handle is not None and self.handle.process is not None:
            status["containerID"] = f"runc://{self.handle.id}"
        return status
