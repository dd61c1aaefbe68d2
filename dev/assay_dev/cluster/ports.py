"""Free loopback ports for the control plane's listeners and the tests' servers.

A port is found free and released before its user (etcd, the apiserver, a test's server) binds it. In that
moment another process that asks the kernel for any port may be handed the same one. Under pytest-xdist two
workers start control planes side by side, so each worker takes its ports from a block of its own, below the
kernel's ephemeral range (which the kernel hands out for port 0 and for outgoing connections): no other
worker, nor any client's connection, is given a port in it. Outside xdist the kernel picks, as before.
"""

from __future__ import annotations

import itertools
import os
import random
import socket
from collections.abc import Iterator
from pathlib import Path

LOWEST = 10000  # below the well-known and registered ports most services use
_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago, never handed out twice by one process in a row of
    its block's size."""
    block = _worker_block()
    if block is None:
        return _kernel_port()
    return CURSORS.next_in(block)


def worker_block(worker: str, workers: int, ephemeral_start: int) -> range:
    """The ports pytest-xdist worker `worker` ("gw0", "gw1", ...) of `workers` takes: an equal share of the
    ports between LOWEST and the start of the ephemeral range."""
    index = int(worker.removeprefix("gw"))
    if not 0 <= index < workers:
        raise ValueError(f"xdist worker {worker!r} is not one of {workers}")
    span = (ephemeral_start - LOWEST) // workers
    if span < 64:
        raise ValueError(f"too few ports below the ephemeral range ({ephemeral_start}) for {workers} workers")
    return range(LOWEST + index * span, LOWEST + (index + 1) * span)


def _worker_block() -> range | None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return None
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or "1")
    return worker_block(worker, workers, ephemeral_low())


def ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux's default when it cannot be read)."""
    return int(_EPHEMERAL.read_text().split()[0]) if _EPHEMERAL.exists() else 32768


class Cursors:
    """Where each block's next port is looked for: a cycle from a random start, so a port handed out is not
    offered again until the block has gone round (two listeners started in one process never get the same
    one)."""

    def __init__(self) -> None:
        self._cycles: dict[range, Iterator[int]] = {}

    def reset(self) -> None:
        self._cycles.clear()

    def next_in(self, block: range) -> int:
        cycle = self._cycles.get(block)
        if cycle is None:
            start = random.randrange(len(block))
            cycle = self._cycles[block] = itertools.cycle([*block[start:], *block[:start]])
        for port in itertools.islice(cycle, len(block)):
            if _bindable(port):
                return port
        raise OSError(f"no free port in {block.start}-{block.stop - 1}")


CURSORS = Cursors()


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _kernel_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
