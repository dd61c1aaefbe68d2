"""Why a run's pod cannot start, read (pure) from what the kubelet and the scheduler report:

- the pod's container statuses: `waiting` with CreateContainerConfigError (a Secret or ConfigMap, or a key
  of one, that an env var refers to is missing), ErrImagePull / ImagePullBackOff / InvalidImageName;
- the pod's PodScheduled=False condition with reason Unschedulable (no node has room), or the scheduler's
  "pod has unbound immediate PersistentVolumeClaims": then the claim says why (claims.py);
- the kubelet's Warning Events on the pod: FailedMount, which is the only place a missing Secret *volume*
  shows (the pod itself just stays ContainerCreating / PodInitializing, as the tokens are mounted as files).

Each problem names what is missing (the Secret, the key, the image, the claim) so the person reading the
Evaluation knows what to fix. What keeps a Job from creating its pods at all (a ResourceQuota) is read from
the Job's Events (pod_creation.py). A problem that cannot heal by itself ends the run Stalled after a grace
period instead of waiting out the deadline; Unschedulable can (a node is added, another run ends), so it is
only reported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay_operator import bounded
from assay_operator.cluster_views import Pod

MAX_MESSAGE = 512
SECRET_MISSING = re.compile(r'secrets? "(?P<name>[^"]+)" not found', re.IGNORECASE)
CONFIG_MAP_MISSING = re.compile(r'configmaps? "(?P<name>[^"]+)" not found', re.IGNORECASE)
KEY_MISSING = re.compile(
    r"couldn't find key (?P<key>\S+) in (?P<kind>Secret|ConfigMap) (?P<namespace>[^/\s]+)/(?P<name>\S+)"
)
VOLUME_KEY_MISSING = re.compile(
    r'volume "(?P<volume>[^"]+)" : (?:configmap )?references non-existent (?:secret|config) key: (?P<key>\S+)'
)
IMAGE_REASONS = frozenset({"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"})
CONFIG_REASONS = frozenset({"CreateContainerConfigError", "CreateContainerError"})
EVENT_REASONS = frozenset({"FailedMount", "Failed", "FailedScheduling"})
UNBOUND_CLAIM = re.compile(
    r"unbound (?:immediate )?PersistentVolumeClaims|"
    r"persistentvolumeclaim \"[^\"]+\" (?:not found|is not bound)|"
    r"storageclass(?:\.storage\.k8s\.io)? \"[^\"]+\" not found",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class StartProblem:
    reason: str
    """SecretNotFound, SecretKeyNotFound, ConfigMapNotFound, ConfigMapKeyNotFound, ImagePullFailed,
    ContainerConfigError or Unschedulable: the condition's reason."""
    message: str
    heals: bool = False
    """True when it can go away by itself (Unschedulable): reported, never stalled on."""
    claim: str | None = None
    """The PersistentVolumeClaim the pod waits for, when the scheduler says it is not bound: the claim and
    its Events say why (claims.from_claim), which replaces this problem when they name something."""


def _volume_source(pod: Mapping[str, Any], volume: str) -> tuple[str, str] | None:
    """(kind, name) of the Secret or ConfigMap a pod's volume projects."""
    for found in (pod.get("spec") or {}).get("volumes") or []:
        if found.get("name") == volume:
            if "secret" in found:
                return "Secret", str(found["secret"].get("secretName"))
            if "configMap" in found:
                return "ConfigMap", str(found["configMap"].get("name"))
    return None


def _missing_object(text: str, pod: str, spec: Mapping[str, Any] | None = None) -> StartProblem | None:
    """A missing Secret / ConfigMap or key, named, from a kubelet message; None when the text names none.
    A volume's missing key is named through the pod's volumes (`spec`: the pod), as kubelet names only the
    volume and the key."""
    volume_key = VOLUME_KEY_MISSING.search(text)
    if volume_key is not None and spec is not None:
        source = _volume_source(spec, volume_key["volume"])
        if source is not None:
            kind, name = source
            message = f"pod {pod} cannot start: {kind} {name!r} has no key {volume_key['key']!r}"
            return StartProblem(f"{kind}KeyNotFound", bounded.text(message, MAX_MESSAGE))
    key = KEY_MISSING.search(text)
    if key is not None:
        kind = key["kind"]
        return StartProblem(
            f"{kind}KeyNotFound",
            bounded.text(
                f"pod {pod} cannot start: {kind} {key['name']!r} has no key {key['key']!r}", MAX_MESSAGE
            ),
        )
    for kind, pattern in (("Secret", SECRET_MISSING), ("ConfigMap", CONFIG_MAP_MISSING)):
        found = pattern.search(text)
        if found is not None:
            message = f"pod {pod} cannot start: {kind} {found['name']!r} not found"
            return StartProblem(f"{kind}NotFound", bounded.text(message, MAX_MESSAGE))
    return None


def _claim_of(pod: Mapping[str, Any] | None) -> str | None:
    """The first PersistentVolumeClaim a pod mounts (a runner pod mounts one: its generation's answers)."""
    for volume in ((pod or {}).get("spec") or {}).get("volumes") or []:
        claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim:
            return str(claim)
    return None


def _unschedulable(pod_name: str, message: str, pod: Mapping[str, Any] | None) -> StartProblem:
    """The scheduler's word; when it says a claim is not bound, the claim to read for why."""
    text = f"pod {pod_name} cannot be scheduled: {message}"
    claim = _claim_of(pod) if UNBOUND_CLAIM.search(message) else None
    return StartProblem("Unschedulable", bounded.text(text, MAX_MESSAGE), heals=True, claim=claim)


def _statuses(pod: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    status = pod.get("status") or {}
    return [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]


def started(pod: Mapping[str, Any]) -> bool:
    """A container of the pod runs or ran: whatever kept it from starting is past (`Pod.started`; here
    read from the raw body a pod's watch event hands over)."""
    return Pod.of(pod).started


def from_pod(pod: Mapping[str, Any]) -> StartProblem | None:
    """The problem the pod's own status shows, or None."""
    name = (pod.get("metadata") or {}).get("name", "?")
    images = {
        c.get("name"): c.get("image")
        for c in [
            *((pod.get("spec") or {}).get("initContainers") or []),
            *((pod.get("spec") or {}).get("containers") or []),
        ]
    }
    for container in _statuses(pod):
        waiting = (container.get("state") or {}).get("waiting") or {}
        reason, message = str(waiting.get("reason") or ""), str(waiting.get("message") or "")
        if reason in CONFIG_REASONS:
            missing = _missing_object(message, name)
            if missing is not None:
                return missing
            text = f"pod {name} cannot start container {container.get('name')}: {reason}: {message}"
            return StartProblem("ContainerConfigError", bounded.text(text, MAX_MESSAGE))
        if reason in IMAGE_REASONS:
            image = images.get(container.get("name")) or container.get("image") or "?"
            text = f"pod {name} cannot pull image {image!r} ({reason}): {message}".rstrip(": ")
            return StartProblem("ImagePullFailed", bounded.text(text, MAX_MESSAGE))
    for condition in (pod.get("status") or {}).get("conditions") or []:
        scheduled = (condition.get("type"), condition.get("status"), condition.get("reason"))
        if scheduled == ("PodScheduled", "False", "Unschedulable"):
            return _unschedulable(name, str(condition.get("message") or "no node fits"), pod)
    return None


def concerns_a_pod(event: Mapping[str, Any]) -> bool:
    """The Event may say why a pod cannot start (cheap: what the watch filter runs on every Event)."""
    involved = event.get("involvedObject") or event.get("regarding") or {}
    return (
        event.get("type") == "Warning"
        and event.get("reason") in EVENT_REASONS
        and involved.get("kind") == "Pod"
    )


def from_event(event: Mapping[str, Any], pod: Mapping[str, Any] | None = None) -> StartProblem | None:
    """The problem a kubelet or scheduler Warning Event on a pod reports (FailedMount is the only report
    of a missing Secret volume), or None. `pod`, when given, names the Secret behind a volume and the claim
    the scheduler waits for."""
    if not concerns_a_pod(event):
        return None
    involved = event.get("involvedObject") or event.get("regarding") or {}
    pod_name = str(involved.get("name") or "?")
    message = str(event.get("message") or event.get("note") or "")
    if event.get("reason") == "FailedScheduling":
        return _unschedulable(pod_name, message, pod)
    return _missing_object(message, pod_name, pod)


def first(problems: Sequence[StartProblem | None]) -> StartProblem | None:
    """The problem to report among several: one that cannot heal before one that can."""
    found = [p for p in problems if p is not None]
    return next((p for p in found if not p.heals), found[0] if found else None)
