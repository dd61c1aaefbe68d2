"""Leader election on a coordination.k8s.io Lease, as client-go's leaderelection does it, so that two or more
replicas run with exactly one reconciling: the others wait, answering /healthz, and the first to see the
leader's lease expire takes it. A leader that cannot renew in time exits at once (the kubelet restarts it as
a standby) rather than reconcile beside a new leader; one stopped cleanly hands the lease over at once.

Expiry is judged by the standby's own clock (how long the record has not changed), never by comparing
clocks across nodes. Takeover after a leader dies takes up to lease_seconds + retry_seconds.

Safety does not rest on the renewal loop being on time: every Lease request has a timeout shorter than a
retry, and a watchdog thread stops the leader once renew_seconds have passed since its last successful
renewal even if a request hangs, so a leader always stops before a standby may take its lease.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from assay_operator import kube
from assay_operator.cluster_views import View
from assay_operator.objects import ApiJson

log = logging.getLogger("assay.leader")
LEASE_NAME = "assay-operator"


@dataclass(frozen=True)
class Election:
    namespace: str
    identity: str
    lease_seconds: int = 15
    renew_seconds: float = 10.0
    """A leader that has not renewed for this long stops (less than lease_seconds, so it stops first)."""
    retry_seconds: float = 2.0


def timings(namespace: str, identity: str, lease_seconds: int) -> Election:
    """The election for a lease of `lease_seconds`: a leader gives up after two thirds of it without a
    renewal (before any standby may take it), and every replica looks at the lease ten times per lease."""
    return Election(
        namespace=namespace,
        identity=identity,
        lease_seconds=lease_seconds,
        renew_seconds=lease_seconds * 2 / 3,
        retry_seconds=max(0.25, lease_seconds / 10),
    )


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _micro_time(value: object) -> str | None:
    """A MicroTime as the apiserver parses it (always six fractional digits), from what the client read."""
    if not isinstance(value, str) or not value:
        return None
    return (
        datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    )


class LeaseMeta(View):
    name: str = LEASE_NAME
    namespace: str = ""
    resource_version: str | None = None


class LeaseSpec(View):
    holder_identity: str | None = None
    lease_duration_seconds: int | None = None
    acquire_time: str | None = None
    renew_time: str | None = None
    lease_transitions: int | None = None


class Lease(View, ApiJson):
    """The Lease as the elector reads and writes it (the fields it sets; unset ones are left out)."""

    api_version: str = "coordination.k8s.io/v1"
    kind: str = "Lease"
    metadata: LeaseMeta = LeaseMeta()
    spec: LeaseSpec = LeaseSpec()


class Leases:
    """The one Lease, read and written through the API (optimistic concurrency on resourceVersion); every
    request gives up after `timeout` seconds (a hung request must not outlive the leader's deadline)."""

    def __init__(self, namespace: str, timeout: float = 5.0) -> None:
        try:
            config.load_incluster_config()  # type: ignore[no-untyped-call]
        except config.ConfigException:
            config.load_kube_config()  # type: ignore[no-untyped-call]
        self.api: Any = client.CoordinationV1Api()
        self.namespace = namespace
        self.timeout = timeout

    def read(self) -> Lease | None:
        found = kube.if_present(
            lambda: self.api.read_namespaced_lease(LEASE_NAME, self.namespace, _request_timeout=self.timeout)
        )
        return None if found is None else Lease.of(kube.plain(found))

    def create(self, lease: Lease) -> Lease:
        created = self.api.create_namespaced_lease(
            self.namespace, lease.body(), _request_timeout=self.timeout
        )
        return Lease.of(kube.plain(created))

    def replace(self, lease: Lease) -> Lease:
        replaced = self.api.replace_namespaced_lease(
            LEASE_NAME, self.namespace, lease.body(), _request_timeout=self.timeout
        )
        return Lease.of(kube.plain(replaced))

    def release(self, version: str | None) -> None:
        """Empty the holder of the Lease at `version` (a conflict when it changed since)."""
        body = {"metadata": {"resourceVersion": version}, "spec": {"holderIdentity": None}}
        self.api.patch_namespaced_lease(LEASE_NAME, self.namespace, body, _request_timeout=self.timeout)


class Elector:
    def __init__(self, election: Election, leases: Leases | None = None) -> None:
        self.election = election
        self.leases = leases or Leases(election.namespace, timeout=max(1.0, election.retry_seconds * 2))
        self._seen: tuple[Any, ...] | None = None
        self._seen_at = 0.0
        self._version: str | None = None
        self._transitions = 0
        self._acquired: str | None = None

    def _lease(self, acquire: bool) -> Lease:
        now = _stamp()
        # A renewal replaces the whole object: it keeps when the lease was acquired and how often it changed
        # hands.
        spec = LeaseSpec(
            holder_identity=self.election.identity,
            lease_duration_seconds=self.election.lease_seconds,
            renew_time=now,
            acquire_time=now if acquire else self._acquired,
            lease_transitions=self._transitions + 1 if acquire else self._transitions,
        )
        metadata = LeaseMeta(namespace=self.election.namespace, resource_version=self._version)
        return Lease(metadata=metadata, spec=spec)

    def _write(self, write: Callable[[Lease], Lease], acquire: bool) -> bool:
        try:
            written = write(self._lease(acquire))
        except ApiException as conflict:
            if conflict.status == 409:
                return False  # changed under us: another replica created, renewed or took it
            raise
        self._version = written.metadata.resource_version
        return True

    def try_acquire(self) -> bool:
        """One attempt: True when this replica holds the lease afterwards."""
        lease = self.leases.read()
        if lease is None:
            self._version = None
            return self._write(self.leases.create, acquire=True)
        spec = lease.spec
        self._version = lease.metadata.resource_version
        self._transitions = spec.lease_transitions or 0
        self._acquired = _micro_time(spec.acquire_time)
        holder = spec.holder_identity
        record = (holder, spec.renew_time, spec.lease_duration_seconds)
        if record != self._seen:
            self._seen, self._seen_at = record, time.monotonic()
        mine = holder == self.election.identity
        expired = time.monotonic() - self._seen_at > (spec.lease_duration_seconds or 0)
        if not (mine or not holder or expired):
            return False
        return self._write(self.leases.replace, acquire=not mine)

    def acquire(self) -> None:
        """Block until this replica leads."""
        waiting_logged = False
        while True:
            try:
                if self.try_acquire():
                    log.info(
                        "leading as %s (Lease %s/%s)",
                        self.election.identity,
                        self.election.namespace,
                        LEASE_NAME,
                    )
                    return
            except Exception as error:  # the apiserver unreachable for a moment: keep standing by
                log.warning("leader election: %s; retrying", error)
            if not waiting_logged:
                log.info("standing by: %s leads", self._seen[0] if self._seen else "another replica")
                waiting_logged = True
            time.sleep(self.election.retry_seconds)

    def keep(self, lost: Callable[[], None]) -> threading.Thread:
        """Renew in the background; call `lost` (which must stop the process) when renewal fails for
        renew_seconds or another replica holds the lease. A watchdog thread enforces the deadline even
        while a renewal request hangs."""
        renewed = [time.monotonic()]
        stop = threading.Event()

        def give_up(reason: str) -> None:
            if not stop.is_set():
                stop.set()
                log.error("leadership lost: %s", reason)
                lost()

        def renew() -> None:
            while not stop.wait(self.election.retry_seconds):
                try:
                    if self.try_acquire() and self._seen is not None:
                        renewed[0] = time.monotonic()
                    elif self._seen and self._seen[0] not in (None, self.election.identity):
                        give_up(f"{self._seen[0]} holds the lease")
                        return
                except Exception as error:
                    log.warning("leader election: cannot renew: %s", error)

        def watchdog() -> None:
            while not stop.wait(min(0.2, self.election.retry_seconds)):
                silent = time.monotonic() - renewed[0]
                if silent > self.election.renew_seconds:
                    give_up(f"not renewed for {silent:.1f} s")
                    return

        threading.Thread(target=watchdog, name="lease-watchdog", daemon=True).start()
        thread = threading.Thread(target=renew, name="lease-renewal", daemon=True)
        thread.start()
        return thread

    def release(self) -> None:
        """Hand the lease over at once (a clean stop): the standby does not wait for it to expire."""
        try:
            lease = self.leases.read()
            if lease is None or lease.spec.holder_identity != self.election.identity:
                return
            self.leases.release(lease.metadata.resource_version)
            log.info("released the lease")
        except ApiException as error:
            log.warning("could not release the lease: %s %s", error.status, error.reason)


class StandbyHealth:
    """/healthz for a replica that waits for the lease, on the port kopf's liveness endpoint takes later."""

    def __init__(self, liveness_url: str) -> None:
        parsed = urlparse(liveness_url)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                ok = self.path == (parsed.path or "/")
                self.send_response(200 if ok else 404)
                self.end_headers()
                self.wfile.write(b"standing by\n" if ok else b"")

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((parsed.hostname or "0.0.0.0", parsed.port or 8080), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, name="standby-health", daemon=True)

    def __enter__(self) -> StandbyHealth:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def lose_leadership() -> None:
    """Stop at once: another replica may already reconcile."""
    logging.shutdown()
    os._exit(1)
