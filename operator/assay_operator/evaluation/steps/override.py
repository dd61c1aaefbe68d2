"""A person's override of one Evaluation's verdict (assay_operator.approvals): the annotations
override.assay.dev/verdict, /reason and /by — admitted only from a user allowed to override, naming that very
user — are recorded into the status (status.override: who, why, when, the gate's own verdict; the verdict
and conditions follow it) and an Event, then removed: each request overrides the verdict it found, never a
later run's. A request made before the generation has a verdict is refused with a Warning Event."""

from __future__ import annotations

import logging

from assay_operator import approvals, conditions, events, kube
from assay_operator.evaluation.api import GROUP, PLURAL, VERSION
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.steps.watched import Watched
from assay_runner.vocabulary import Verdict

log = logging.getLogger("assay.operator.override")


def take_latest(namespace: str, name: str) -> None:
    """`take` on the Evaluation as it is now (a retry must not act on the body of an older event)."""
    watched = Watched.read(namespace, name)
    if watched is not None:
        take(watched)


def take(watched: Watched) -> None:
    namespace, name, body, annotations = watched.namespace, watched.name, watched.body, watched.annotations
    verdict = annotations.get(approvals.OVERRIDE_VERDICT)
    if verdict is None:
        return
    reason = str(annotations.get(approvals.OVERRIDE_REASON) or "").strip()
    by = str(annotations.get(approvals.OVERRIDE_BY) or "").strip()
    generation, current = watched.generation, watched.status
    decided = current.verdict is not None and conditions.holds(
        current.conditions, conditions.COMPLETED, generation
    )
    if verdict not in ("Pass", "Blocked") or not reason or not by:
        events.warning(
            body, "OverrideIgnored", f"an override needs {', '.join(approvals.OVERRIDE_ANNOTATIONS)}"
        )
    elif not decided:
        events.warning(
            body,
            "OverrideIgnored",
            f"generation {generation} has no verdict yet: nothing to override (removed)",
        )
    else:
        chosen: Verdict = "Pass" if verdict == "Pass" else "Blocked"
        written = watched.write(
            lambda: reconcile.overridden_status(current, generation, chosen, reason, by, conditions.now())
        )
        if written is None:
            return  # not recorded (gone, or Stalled with the reason): keep the request
        events.warning(body, "VerdictOverridden", written.message or "")
        log.info("Evaluation %s/%s: verdict overridden to %s by %s", namespace, name, verdict, by)
    spent = {key: None for key in approvals.OVERRIDE_ANNOTATIONS}
    kube.if_present(
        lambda: kube.custom().patch_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, name, {"metadata": {"annotations": spent}}
        )
    )
