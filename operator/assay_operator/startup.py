"""How the operator starts: its settings, kopf's configuration, the login, the metrics server and, with
several replicas, the wait for the lease.

`assay-operator` (__main__) validates the settings, stands by until it leads (leader election), then runs kopf
with the handler modules; kopf runs `configure` below before any handler. A standby keeps everything a
leader needs loaded (modules imported, credentials read), so taking over costs the lease's expiry and little
more.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import signal
import socket
import sys
from typing import Any

import kopf
from kubernetes import config

from assay_operator import kube, leader, metrics, seals
from assay_operator.evaluation.build import names
from assay_operator.settings import Settings, from_environment

# An unexpected error (the apiserver briefly unavailable, a conflict) is retried after this long, not after
# kopf's default minute: a user watching `kubectl get` should not wait a minute for a transient blip.
RETRY_SECONDS = 10
HANDLER_MODULES = ("assay_operator.evaluation.handlers", "assay_operator.campaign.handlers")
# kopf runs every synchronous handler in one thread pool, by default min(32, CPUs + 4) threads: 6 on 2 cores.
# A handler mostly waits for the apiserver (a run's start makes about a dozen requests one after another),
# so with 6 a burst of Evaluations queued behind each other and their Jobs came about 4 a second. The
# Kubernetes client's connection pool is larger (kube.CONNECTIONS), so every thread keeps its connection.
HANDLER_THREADS = 32


@functools.cache
def settings() -> Settings:
    return from_environment()


def login() -> None:
    """In a pod, its ServiceAccount; elsewhere, the kubeconfig (KUBECONFIG or ~/.kube/config)."""
    try:
        config.load_incluster_config()  # type: ignore[no-untyped-call]
    except config.ConfigException:
        config.load_kube_config()  # type: ignore[no-untyped-call]


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    operator = globals()["settings"]()  # validate the environment first: a bad setting stops the start
    seals.KEY.get()  # and the decision key: an unreadable or short key file stops it too
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix="assay.dev")
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
        prefix="assay.dev", key="last-handled-configuration"
    )
    settings.persistence.finalizer = "assay.dev/kopf-finalizer"
    settings.peering.standalone = True  # one replica (Recreate): no peering objects, no extra RBAC
    # The namespaces are explicit (--namespace) and the CRD is installed before the operator: no cluster-wide
    # list/watch of namespaces and CRDs, which a namespaced Role forbids (kopf would retry them for ~40 s at
    # start, logging errors, before serving anything).
    settings.scanning.disabled = True
    # kopf turns its own log lines of this level and above into Events: only problems. Our own Events go
    # through events.normal/kopf.warn, which this level does not filter (kopf.info would be dropped by it).
    settings.posting.level = logging.WARNING
    settings.watching.server_timeout = 300
    settings.watching.client_timeout = 330
    settings.execution.max_workers = HANDLER_THREADS
    select_on_the_server(settings)
    login()
    import_api_classes()
    metrics.serve(operator.metrics_port)


def import_api_classes() -> None:
    """The Kubernetes client imports each API class (and the models it names) when it is first touched:
    0.3 s on an idle machine, seconds under load, while every other handler thread waits for the import
    lock, so the first Evaluations of a burst waited for it. Imported here, before the first handler."""
    for api in (kube.core, kube.batch, kube.networking, kube.custom):
        api()


def select_on_the_server(settings: kopf.OperatorSettings) -> None:
    """The apiserver sends only what a handler can use from the busy kinds (every pod, Event and ConfigMap of
    a watched namespace would otherwise cost kopf a few milliseconds each): the runner Jobs and pods, the
    Warning Events, the ConfigMaps that are not the operator's own snapshots. Warning Events of every kind:
    a field selector cannot name three kinds (Pod, PersistentVolumeClaim, Job), and Normal Events, the
    bulk, stay on the server."""
    ours = f"{names.LABEL_MANAGED_BY}={names.MANAGED_BY}"
    settings.watching.label_selectors["batch", "v1", "jobs"] = f"{ours},{names.LABEL_EVALUATION}"
    settings.watching.label_selectors["", "v1", "pods"] = f"{ours},{names.LABEL_EVALUATION}"
    settings.watching.field_selectors["", "v1", "events"] = "type=Warning"
    settings.watching.label_selectors["", "v1", "configmaps"] = (
        f"{names.LABEL_MANAGED_BY}!={names.MANAGED_BY}"
    )


def prepare_standby() -> None:
    """What a leader needs before its first reconcile, done while standing by: the handler modules imported
    (kopf, the API models, the kubernetes client) and the credentials read."""
    for module in HANDLER_MODULES:
        importlib.import_module(module)
    login()
    import_api_classes()


def elect(operator: Settings, liveness: str) -> leader.Elector:
    """Wait as a standby (answering /healthz, exposing metrics) until this replica holds the lease."""
    # Before kopf configures logging: the election's own lines, in kopf's format, not propagated twice.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[%(asctime)s] %(name)-20s [%(levelname)-8s] %(message)s"))
    leader.log.addHandler(handler)
    leader.log.setLevel(logging.INFO)
    leader.log.propagate = False
    identity = os.environ.get("POD_NAME") or f"{socket.gethostname()}-{os.getpid()}"
    election = leader.timings(os.environ.get("POD_NAMESPACE", "default"), identity, operator.lease_seconds)
    metrics.serve(operator.metrics_port)
    metrics.LEADER.set(0)
    elector = leader.Elector(election)
    # A standby stopped by the kubelet (SIGTERM) exits cleanly; kopf installs its own handlers later.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with leader.StandbyHealth(liveness):
        prepare_standby()
        elector.acquire()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    elector.keep(leader.lose_leadership)
    return elector
