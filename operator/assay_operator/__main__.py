"""`assay-operator` / `python -m assay_operator`: kopf with the namespaces and probes from the settings.

Equivalent to `kopf run -m assay_operator.startup -m assay_operator.evaluation.handlers
-m assay_operator.campaign.handlers --standalone --liveness=http://0.0.0.0:8080/healthz --namespace=NS ...`;
settings are validated before kopf starts, so a bad value fails the pod at once. With leader election, the
replica first stands by until it holds the lease (assay_operator.startup.elect).
"""

from __future__ import annotations

import os
import sys

from assay_operator.settings import Settings, SettingsError, from_environment

LIVENESS = "http://0.0.0.0:8080/healthz"
MODULES = ("assay_operator.startup", "assay_operator.evaluation.handlers", "assay_operator.campaign.handlers")


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


def main() -> int:
    # kopf asks for the user name; an arbitrary UID (OpenShift) has no passwd entry and getpass fails.
    os.environ.setdefault("USER", "assay-operator")
    try:
        settings = from_environment()
    except SettingsError as exc:
        print(f"assay-operator: {exc}", file=sys.stderr)
        return 2
    from kopf.cli import main as kopf_main

    from assay_operator import metrics, startup

    liveness = os.environ.get("ASSAY_LIVENESS", LIVENESS)
    elector = startup.elect(settings, liveness) if settings.leader_election else None
    metrics.LEADER.set(1)
    sys.argv = ["kopf", *kopf_args(settings, liveness)]
    try:
        kopf_main()
    finally:
        if elector is not None:
            elector.release()  # a clean stop hands over at once
    return 0


def exit_now(code: int) -> None:
    """Exit without the interpreter's finalisation once kopf has stopped: a handler thread still inside a
    synchronous API call can make finalisation abort (a standby that had taken over exited -6, no message,
    after releasing its lease, on the local control plane). Nothing is left to do by then: kopf has stopped,
    the lease is released, and every write the operator makes is idempotent (it survives SIGKILL too)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def console() -> None:
    """The `assay-operator` command. kopf's command line ends in click's SystemExit: its code is kept."""
    try:
        code = main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    exit_now(code)


if __name__ == "__main__":
    console()
