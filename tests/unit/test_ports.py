"""Free ports under pytest-xdist: each worker takes its own block below the kernel's ephemeral range, so two
workers starting control planes side by side, or any client's outgoing connection, never take a port one of
them found free a moment ago (assay_dev.cluster.ports)."""

from __future__ import annotations

import itertools
import socket

import pytest

from assay_dev.cluster import ports


def test_the_workers_blocks_are_apart_and_below_the_ephemeral_range() -> None:
    blocks = [ports.worker_block(f"gw{index}", 4, 32768) for index in range(4)]
    for block in blocks:
        assert ports.LOWEST <= block.start < block.stop <= 32768
    for first, second in itertools.pairwise(blocks):
        assert first.stop <= second.start


@pytest.mark.parametrize(("worker", "workers"), [("gw2", 2), ("gw-1", 2)])
def test_a_worker_outside_the_count_is_refused(worker: str, workers: int) -> None:
    with pytest.raises(ValueError, match=worker):
        ports.worker_block(worker, workers, 32768)


def test_too_many_workers_for_the_ports_below_the_range_are_refused() -> None:
    with pytest.raises(ValueError, match="too few ports"):
        ports.worker_block("gw0", 400, 32768)


def test_a_worker_hands_out_bindable_ports_of_its_block_never_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    ports.CURSORS.reset()
    block = ports.worker_block("gw1", 2, ports.ephemeral_low())
    handed = [ports.free_port() for _ in range(200)]
    assert all(port in block for port in handed)
    assert len(set(handed)) == len(handed)
    for port in handed[:5]:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_a_port_someone_holds_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setattr(ports.random, "randrange", lambda n: 0)
    ports.CURSORS.reset()
    block = ports.worker_block("gw0", 2, ports.ephemeral_low())
    with socket.socket() as held:
        held.bind(("127.0.0.1", block.start))
        held.listen()
        assert ports.free_port() == block.start + 1


def test_outside_xdist_the_kernel_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    port = ports.free_port()
    low = ports.ephemeral_low()
    assert port >= low
