"""runc, driven the way a CRI runtime drives it: one state directory per kubelet, one bundle per container.

A container runs in the foreground (`runc run --keep`): the runc process is the kubelet's handle, its exit
status is the container's (128 + N when killed by signal N), the container's stdout and stderr go straight
to its log file, and runc's own messages go to a separate log, so a container that could not start
(StartError) is told apart from one that ran and failed. `--keep` leaves the stopped container and its
cgroup until `delete`, so the memory cgroup's OOM-kill counter can be read first.

The sandbox runs detached (`runc run --detach`); its PID gives the namespace paths the containers join.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
from pathlib import Path
from typing import IO, Any

Obj = dict[str, Any]


class RuncError(RuntimeError):
    """A runc command failed."""


def runc_path() -> str:
    found = shutil.which("runc")
    if found is None:
        raise RuncError(
            "runc is not installed: run `bash scripts/install-container-tools.sh` (make images does)"
        )
    return found


class Runc:
    def __init__(self, state_dir: Path) -> None:
        self.binary = runc_path()
        self.state_dir = state_dir

    def _argv(self, *args: str, log: Path | None = None) -> list[str]:
        argv = [self.binary, "--root", str(self.state_dir)]
        if log is not None:
            argv += ["--log", str(log), "--log-format", "json"]
        return [*argv, *args]

    def _run(self, *args: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            self._argv(*args), capture_output=True, text=True, timeout=timeout, check=False
        )
        if check and result.returncode != 0:
            raise RuncError(f"`runc {' '.join(args)}` exited {result.returncode}: {result.stderr.strip()}")
        return result

    def write_bundle(self, bundle: Path, config: Obj) -> None:
        bundle.mkdir(parents=True, exist_ok=True)
        (bundle / "config.json").write_text(json.dumps(config, indent=1))

    def run(
        self, container_id: str, bundle: Path, output: IO[bytes], runc_log: Path
    ) -> subprocess.Popen[bytes]:
        """Start a container in the foreground; the Popen ends when the container does."""
        return subprocess.Popen(
            self._argv("run", "--keep", "--bundle", str(bundle), container_id, log=runc_log),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def run_detached(self, container_id: str, bundle: Path, runc_log: Path) -> int:
        """Start a long-lived container (the sandbox) and return its init's PID on the host."""
        runc_log.unlink(missing_ok=True)
        self.delete(container_id)  # what a failed attempt left
        result = subprocess.run(
            self._argv("run", "--detach", "--bundle", str(bundle), container_id, log=runc_log),
            # Not a pipe: the detached process would hold it open, and runc's errors go to runc_log.
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        if result.returncode != 0:
            raise RuncError(f"sandbox {container_id} did not start: {errors(runc_log) or 'no message'}")
        return self.pid(container_id)

    def state(self, container_id: str) -> Obj | None:
        result = self._run("state", container_id, check=False)
        if result.returncode != 0:
            return None
        state: Obj = json.loads(result.stdout)
        return state

    def pid(self, container_id: str) -> int:
        state = self.state(container_id)
        if state is None or not state.get("pid"):
            raise RuncError(f"container {container_id} has no process")
        return int(state["pid"])

    def kill(self, container_id: str, sig: signal.Signals, *, every_process: bool = False) -> None:
        args = ["kill", *(["--all"] if every_process else []), container_id, str(int(sig))]
        self._run(*args, check=False)

    def delete(self, container_id: str) -> None:
        """Remove a container, killing what is left of it (its cgroup goes with it)."""
        self._run("delete", "--force", container_id, check=False)

    def list(self) -> list[str]:
        result = self._run("list", "--format", "json", check=False)
        if result.returncode != 0 or not result.stdout.strip() or result.stdout.strip() == "null":
            return []
        return [str(entry["id"]) for entry in json.loads(result.stdout)]


def errors(runc_log: Path) -> str:
    """runc's own error messages (not the container's output), joined; empty when it had none."""
    if not runc_log.exists():
        return ""
    messages = []
    for line in runc_log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("level") in ("error", "fatal"):
            messages.append(str(entry.get("msg", "")).strip())
    return "; ".join(m for m in messages if m)
