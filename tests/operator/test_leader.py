"""Leader election's decisions (assay_operator.leader.Elector) against an in-memory Lease store with the
apiserver's optimistic concurrency; the real thing runs on the control plane in tests/operator_cluster/
test_ha.py."""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException

from assay_operator import leader
from assay_operator.leader import Election, Elector, Lease


class MemoryLeases:
    """One Lease, kept as the API's JSON; a write with a stale resourceVersion is a 409, as the apiserver
    answers."""

    def __init__(self) -> None:
        self.lease: dict[str, Any] | None = None
        self.version = 0

    def read(self) -> Lease | None:
        return None if self.lease is None else Lease.of(self.lease)

    def _store(self, body: dict[str, Any]) -> Lease:
        self.version += 1
        self.lease = copy.deepcopy(body)
        self.lease["metadata"]["resourceVersion"] = str(self.version)
        return Lease.of(self.lease)

    def create(self, lease: Lease) -> Lease:
        if self.lease is not None:
            raise ApiException(status=409, reason="AlreadyExists")
        return self._store(lease.body())

    def replace(self, lease: Lease) -> Lease:
        assert self.lease is not None
        if lease.metadata.resource_version != self.lease["metadata"]["resourceVersion"]:
            raise ApiException(status=409, reason="Conflict")
        return self._store(lease.body())

    def release(self, version: str | None) -> None:
        assert self.lease is not None
        if version != self.lease["metadata"]["resourceVersion"]:
            raise ApiException(status=409, reason="Conflict")
        self.lease["spec"]["holderIdentity"] = None
        self._store(self.lease)


def elector(store: MemoryLeases, identity: str) -> Elector:
    return Elector(Election("ns", identity, lease_seconds=15), leases=store)  # type: ignore[arg-type]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(leader.time, "monotonic", lambda: now[0])
    return now


def test_the_first_takes_the_lease_and_the_second_waits_until_it_expires(clock: list[float]) -> None:
    store = MemoryLeases()
    a, b = elector(store, "a"), elector(store, "b")
    assert a.try_acquire()
    assert not b.try_acquire()
    clock[0] += 10
    assert a.try_acquire()  # renewed: the record changed
    clock[0] += 10
    assert not b.try_acquire()  # 10 s since b saw it change: not expired
    clock[0] += 16
    assert b.try_acquire()  # unchanged for 16 s > 15 s: expired, b takes it
    assert store.lease is not None and store.lease["spec"]["holderIdentity"] == "b"
    assert store.lease["spec"]["leaseTransitions"] == 2
    assert not a.try_acquire()  # a sees b holding a fresh lease


def test_two_standbys_racing_for_an_expired_lease_get_one_winner(clock: list[float]) -> None:
    store = MemoryLeases()
    assert elector(store, "dead").try_acquire()
    b, c = elector(store, "b"), elector(store, "c")
    assert not b.try_acquire() and not c.try_acquire()
    clock[0] += 16
    lease = store.read()
    # b writes first; c's write carries the version it read before: a conflict, not a second leader.
    assert b.try_acquire()
    c._version = lease.metadata.resource_version if lease else None
    assert not c._write(store.replace, acquire=True)
    assert store.lease is not None and store.lease["spec"]["holderIdentity"] == "b"


def test_a_released_lease_is_taken_at_once(clock: list[float]) -> None:
    store = MemoryLeases()
    a, b = elector(store, "a"), elector(store, "b")
    assert a.try_acquire() and not b.try_acquire()
    a.release()
    assert b.try_acquire()  # no expiry wait: the holder is empty


def test_release_leaves_someone_elses_lease_alone(clock: list[float]) -> None:
    store = MemoryLeases()
    a, b = elector(store, "a"), elector(store, "b")
    assert a.try_acquire()
    b.release()
    assert store.lease is not None and store.lease["spec"]["holderIdentity"] == "a"


class HangingLeases(MemoryLeases):
    """The apiserver stops answering: every write hangs (far longer than the leader's deadline)."""

    def __init__(self, release: threading.Event) -> None:
        super().__init__()
        self.release_hang = release

    def replace(self, lease: Lease) -> Lease:
        self.release_hang.wait(60)
        return super().replace(lease)


def test_a_leader_whose_renewal_hangs_stops_at_its_deadline() -> None:
    """Safety must not depend on a request returning: the watchdog stops the leader renew_seconds after its
    last renewal even while the renewal hangs (a standby takes the lease only after lease_seconds)."""
    unblock = threading.Event()
    store = HangingLeases(unblock)
    election = Election("ns", "a", lease_seconds=3, renew_seconds=0.6, retry_seconds=0.05)
    first = Elector(election, leases=store)  # type: ignore[arg-type]
    assert first.try_acquire()
    lost = threading.Event()
    first.keep(lost.set)
    try:
        assert lost.wait(30)  # stopped while the renewal still hangs (it would for 60 s)
        assert not unblock.is_set()
    finally:
        unblock.set()


def test_timings_keep_the_leader_inside_its_lease() -> None:
    for seconds in (3, 6, 15, 120):
        election = leader.timings("ns", "a", seconds)
        assert election.renew_seconds < election.lease_seconds
        assert election.retry_seconds * 4 <= election.renew_seconds
