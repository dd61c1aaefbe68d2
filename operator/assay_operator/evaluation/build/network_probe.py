"""The network probe: a Job of one pod shaped like an answer pod (its labels, so the Evaluation's
NetworkPolicy selects it; the runner image; restricted; no service-account token), which tries TCP
connections the policy forbids and writes what each did to its termination message, one JSON object
{"NAME HOST:PORT": outcome}. A Job, not a bare pod: the operator makes pods only through Jobs, so its Role
grants no pod creation. The Job itself carries no Evaluation label, so the operator's watch of its run Jobs
never mistakes it for one; its pod carries the answer pods' labels.

The targets: the apiserver (where the pod's KUBERNETES_SERVICE_HOST/PORT say, so every cluster has one that
listens), the Evaluation's MLflow (its tracking URI's host and port), and the operator's probe targets
(ASSAY_NETWORK_PROBE_TARGETS). An outcome is "connected", or the error that ended the attempt (ECONNREFUSED,
timeout, ...): only "connected" is a breach, since a refusal by the policy and a closed port look alike.
An enforcer may program a new pod's rules a moment after it starts: a connection that got through is tried
again for a few seconds, and the last attempt is the one reported.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build import names
from assay_operator.evaluation.build.layout import TERMINATION_LOG
from assay_operator.evaluation.build.pods import failure_rules, pod_spec, restricted
from assay_operator.settings import Settings

APISERVER = "apiserver"
"""The target the pod finds in its own environment (KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT)."""
RESOURCES = {"cpu": "100m", "memory": "64Mi"}
PROBE_LABEL = "assay.dev/probe"

SCRIPT = """
import errno, json, os, socket, sys, time
def attempt(target):
    host, port = target.split(" ", 1)[-1].rsplit(":", 1)
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=3):
            return "connected"
    except TimeoutError:
        return "timeout"
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, type(error).__name__)
targets = [argument.replace("=", " ", 1) for argument in sys.argv[1:]]
host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT")
if host and port:
    targets.append("apiserver " + ("[%s]" % host if ":" in host else host) + ":" + port)
found = {target: attempt(target) for target in targets}
deadline = time.monotonic() + 10
while "connected" in found.values() and time.monotonic() < deadline:
    time.sleep(1)
    found.update({t: attempt(t) for t, outcome in found.items() if outcome == "connected"})
with open("TERMINATION_LOG", "w") as log:
    json.dump(found, log)
""".replace("TERMINATION_LOG", TERMINATION_LOG)


def address_of(url: str | None) -> str | None:
    """HOST:PORT of an http(s) URL (its scheme's port when it names none); None for anything else."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    return f"{host}:{port}"


def targets(spec: EvaluationSpec, settings: Settings) -> list[str]:
    """What the probe tries besides the apiserver, as NAME=HOST:PORT: the Evaluation's MLflow and the
    operator's targets (named `target`)."""
    mlflow = address_of((spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri)
    found = [f"mlflow={mlflow}"] if mlflow else []
    return list(dict.fromkeys([*found, *(f"target={address}" for address in settings.network_probe_targets)]))


def build_probe_job(
    spec: EvaluationSpec, evaluation: str, generation: int, settings: Settings
) -> dict[str, object]:
    container = k8s.Container(
        name="probe",
        image=settings.runner_image,
        command=["python", "-c", SCRIPT, *targets(spec, settings)],
        working_dir="/",
        env=[],
        resources=k8s.ResourceRequirements(requests=dict(RESOURCES), limits=dict(RESOURCES)),
        volume_mounts=[],
        termination_message_path=TERMINATION_LOG,
        termination_message_policy="File",
        security_context=restricted(),
    )
    # An answer pod's labels: the Evaluation's NetworkPolicy selects the probe's pod.
    pod_labels = {**names.labels(evaluation, component=names.ANSWER), PROBE_LABEL: "network"}
    job = k8s.Job(
        metadata=k8s.ObjectMeta(
            name=names.network_probe_name(evaluation, generation), labels={PROBE_LABEL: "network"}
        ),
        spec=k8s.JobSpec(
            backoff_limit=0,
            active_deadline_seconds=max(1, int(settings.network_probe_seconds)),
            ttl_seconds_after_finished=settings.job_ttl_seconds,
            pod_failure_policy=k8s.PodFailurePolicy(rules=failure_rules([container])),
            template=k8s.PodTemplateSpec(
                metadata=k8s.PodTemplateMeta(labels=pod_labels), spec=pod_spec(settings, [], [container], [])
            ),
        ),
    )
    return job.body()
