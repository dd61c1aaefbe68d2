"""`assay-operator` / `python -m assay_operator`: kopf with the namespaces and probes from the settings.

Equivalent to `kopf run -m assay_operator.evaluation.handlers -m assay_operator.campaign.handlers --standalone
--liveness=http://0.0.0.0:8080/healthz --namespace=NS ...`; settings are validated before kopf starts, so a
bad value fails the pod at once.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys

from assay_operator import leader, metrics
from assay_operator.settings import Settings, SettingsError, from_environment

LIVENESS = "http://0.0.0.0:8080/healthz"
MODULES = ("assay_operator.evaluation.handlers", "assay_operator.campaign.handlers")


def kopf_args(settings: Settings, liveness: str = LIVENESS) -> list[str]:
    args = ["run", *(f"--module={module}" for module in MODULES), "--standalone", f"--liveness={liveness}"]
    if settings.all_namespaces:
        # Cluster-wide watches: needs the ClusterRole (chart: watchAllNamespaces; OLM: AllNamespaces).
        args.append("--all-namespaces")
    elif settings.namespaces:
        args += [f"--namespace={namespace}" for namespace in settings.namespaces]
    else:
        # The chart always sets ASSAY_NAMESPACES; alone, watch the namespace the pod runs in.
        args.append(f"--namespace={os.environ.get('POD_NAMESPACE', 'default')}")
    return args


def elect(settings: Settings, liveness: str) -> leader.Elector:
    """Wait as a standby (answering /healthz, exposing metrics) until this replica holds the lease."""
    # Before kopf configures logging: the election's own lines, in kopf's format, not propagated twice.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[%(asctime)s] %(name)-20s [%(levelname)-8s] %(message)s"))
    leader.log.addHandler(handler)
    leader.log.setLevel(logging.INFO)
    leader.log.propagate = False
    identity = os.environ.get("POD_NAME") or f"{socket.gethostname()}-{os.getpid()}"
    election = leader.Election(
        namespace=os.environ.get("POD_NAMESPACE", "default"),
        identity=identity,
        lease_seconds=settings.lease_seconds,
        renew_seconds=settings.lease_seconds * 2 / 3,
        retry_seconds=max(0.5, settings.lease_seconds / 7.5),
    )
    metrics.serve(settings.metrics_port)
    metrics.LEADER.set(0)
    elector = leader.Elector(election)
    # A standby stopped by the kubelet (SIGTERM) exits cleanly; kopf installs its own handlers later.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with leader.StandbyHealth(liveness):
        elector.acquire()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    elector.keep(leader.lose_leadership)
    return elector


def main() -> int:
    # kopf asks for the user name; an arbitrary UID (OpenShift) has no passwd entry and getpass fails.
    os.environ.setdefault("USER", "assay-operator")
    try:
        settings = from_environment()
    except SettingsError as exc:
        print(f"assay-operator: {exc}", file=sys.stderr)
        return 2
    from kopf.cli import main as kopf_main

    liveness = os.environ.get("ASSAY_LIVENESS", LIVENESS)
    elector = elect(settings, liveness) if settings.leader_election else None
    metrics.LEADER.set(1)
    sys.argv = ["kopf", *kopf_args(settings, liveness)]
    try:
        kopf_main()
    finally:
        if elector is not None:
            elector.release()  # a clean stop hands over at once
    return 0


if __name__ == "__main__":
    sys.exit(main())
