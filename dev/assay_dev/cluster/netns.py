"""Commands in network namespaces, and a thread entering one: what the networked node (network.py) and its
port forwards (forward.py) are built on; a failure is a NetworkError.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

CLONE_NEWNET = 0x40000000


class NetworkError(RuntimeError):
    """A pod's network could not be set up or torn down."""


def _run(argv: list[str], *, stdin: str | None = None, env: Mapping[str, str] | None = None) -> str:
    result = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=dict(env) if env else None, check=False
    )
    if result.returncode != 0:
        raise NetworkError(f"{' '.join(argv)} failed ({result.returncode}): {result.stdout}{result.stderr}")
    return result.stdout


_libc = ctypes.CDLL(None, use_errno=True)


@contextlib.contextmanager
def entered(netns: Path) -> Iterator[None]:
    """Run the calling thread in `netns` (setns(2) affects one thread) and bring it back; a socket made in
    between stays in that namespace."""
    own = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)
    target = os.open(netns, os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise NetworkError(f"setns {netns}: {os.strerror(ctypes.get_errno())}")
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET) != 0:  # pragma: no cover - the thread must not stay there
                error = os.strerror(ctypes.get_errno())
                raise SystemExit(f"setns back to the host's network failed: {error}")
    finally:
        os.close(target)
        os.close(own)
